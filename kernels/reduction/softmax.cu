// softmax and log_softmax over the last dim: y = exp(x - max) / sum(exp(x - max)), or
// y = x - max - log(sum(exp(x - max))). fp32 statistics; one exp per element (softmax keeps
// exp(x - thread max) in registers and rescales it once the row's max and sum are known).
//
// Paths (row_apply.cuh): the row cached in registers up to 16384 elements (one read, one write),
// looped for many longer rows, split over blocks for few long rows (1 x 262144: ~128 blocks).
// Bytes: 2 * rows*cols*s (read x, write y); e.g. 4096x8192 fp32: 268 MB -> ~90 us at ~3.0 TB/s.
// FLOPs ~5 per element (max, sub, exp, add, mul): memory bound (MUFU ex2 at 16/clk/SM is ~5x the
// element rate the bandwidth allows for fp32, ~2.5x for bf16).
#include "kernels/reduction/reduction.hpp"
#include "kernels/reduction/row_apply.cuh"

namespace fw {

std::size_t softmax_workspace_bytes(int64_t rows, int64_t cols, opbench::DType) {
  return rowwise::row_apply_workspace_bytes(rows, cols);
}

void softmax_last(opbench::DType dt, const void* x, void* y, int64_t rows, int64_t cols, bool log, void* workspace,
                  std::size_t workspace_bytes, cudaStream_t stream) {
  FW_REQUIRE(x != nullptr && y != nullptr, "null pointer");
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using rowwise::RowOp;
    const T* xp = static_cast<const T*>(x);
    T* yp = static_cast<T*>(y);
    if (log)
      rowwise::launch_row_apply<T, RowOp::log_softmax>(xp, yp, nullptr, nullptr, rows, cols, 0.f, workspace,
                                                       workspace_bytes, stream);
    else
      rowwise::launch_row_apply<T, RowOp::softmax>(xp, yp, nullptr, nullptr, rows, cols, 0.f, workspace,
                                                   workspace_bytes, stream);
  });
}

}  // namespace fw
