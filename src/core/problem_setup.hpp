// The memory of one problem: its inputs (seeded random, shared by every implementation, so all of them
// compute on the same data), each implementation's own outputs, and the framework's workspace.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/registry.hpp"
#include "src/core/device_buffer.hpp"

namespace opbench {

class ProblemSetup {
 public:
  // `misalign` shifts every tensor by that many elements from a 256-byte boundary (the GPU tests use
  // it to check unaligned views). Throws OutOfMemory.
  ProblemSetup(const OpIO& io, uint64_t seed, cudaStream_t s, int64_t misalign = 0);

  const OpIO& io() const { return io_; }
  const std::vector<TensorView>& inputs() const { return inputs_; }
  // The bindings an implementation runs with; its outputs are allocated on first use.
  Bindings bindings(ImplKind k);
  // Outputs with the same shapes as the op's, in `dt` (int64 outputs stay int64): for the oracle.
  std::vector<TensorView> make_outputs(DType dt);

  std::size_t operand_bytes() const;  // inputs + one set of outputs

 private:
  TensorView allocate(const TensorSpec& spec, DType dt);

  OpIO io_;
  int64_t misalign_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<TensorView> inputs_;
  std::map<ImplKind, std::vector<TensorView>> outputs_;
  DeviceBuffer workspace_;
};

}  // namespace opbench
