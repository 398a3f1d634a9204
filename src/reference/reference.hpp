// The reference implementations bench_ops compares the framework with: LibTorch always, cuDNN and
// cuBLAS where they have the op. This header is ATen-free: the harness and bench/ include it; only the
// translation units in src/reference/ see LibTorch.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opbench/op.hpp"

namespace opbench::reference {

// LibTorch's implementation of `op` (registered in src/reference/torch_*.cpp). When none is registered
// the Impl carries a `missing` message and the harness reports the problem's torch row as failed.
Impl torch_impl(const std::string& op);

// The vendor libraries' implementations, when the library has the op.
std::optional<Impl> cudnn_impl(const std::string& op);
std::optional<Impl> cublas_impl(const std::string& op);

// The fp64 oracle: LibTorch's reference run on fp64 copies of the floating inputs (integer inputs as
// they are), its results written to `out` (fp64 for floating outputs, int64 for index outputs).
void run_oracle(const std::string& op, const Bindings& inputs, const std::vector<TensorView>& out);

std::string torch_version();
std::string cudnn_version();   // of the libcudnn loaded at run time
std::string cublas_version();
// Returns LibTorch's cached blocks to the device (between problems, so the harness's allocations fit).
void torch_empty_cache();
bool torch_has_cuda();  // false for a CPU-only LibTorch: the CUDA references cannot run

// Peak bytes LibTorch's caching allocator handed out during one call of `launch`, beyond what was
// allocated before it (0 for a CPU-only LibTorch).
std::size_t torch_peak_extra_bytes(const Launch& launch, cudaStream_t stream);

// --tf32: allow TF32 in LibTorch's matmuls (off by default: fp32 means fp32).
void set_torch_tf32(bool allow);

}  // namespace opbench::reference
