// The correctness gate, run before anything is timed. Every implementation (the framework, LibTorch,
// each vendor library) runs once on the problem's inputs into its own poisoned outputs and is compared
// elementwise with the fp64 oracle (LibTorch on fp64 copies of the inputs) within the op's tolerance;
// the framework is also compared with LibTorch in the same dtype, when LibTorch itself passed (within
// twice the tolerance: both are within it of the oracle, on either side). Each
// gets its own verdict (as cutlass_profiler verifies each provider). NaN never passes.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/result.hpp"
#include "src/core/problem_setup.hpp"

namespace opbench {

// Writes the fp64 (int64 for index outputs) results for the problem's inputs into `out`.
using Oracle = std::function<void(const Bindings& inputs, const std::vector<TensorView>& out)>;

class Gate {
 public:
  // Computes the oracle's results once. `tols`: one bound per output (OpDef::tolerance, or
  // OpDef::output_tolerance where an output has its own). Throws on a CUDA error or a failing oracle.
  Gate(ProblemSetup& setup, std::vector<Tolerance> tols, const Oracle& oracle, cudaStream_t s);

  // Runs `impl` once (outputs poisoned first) and compares. `against_torch`: LibTorch's outputs to
  // compare with as well (the framework's check). Throws on a CUDA error (the caller reports failed).
  Verification check(ImplKind k, const Prepared& impl, const std::vector<TensorView>* against_torch = nullptr);

  const Tolerance& tolerance() const { return tols_.front(); }

 private:
  ProblemSetup& setup_;
  std::vector<Tolerance> tols_;
  cudaStream_t stream_;
  std::vector<TensorView> exact_;
};

}  // namespace opbench
