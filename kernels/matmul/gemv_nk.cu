// fp32 decode GEMV with W as [N, K] (linear, M = 1, batch 1): y[n] = sum_k x[k] W[n, k] (+ bias[n]) is a row
// reduction of W, each row weighted by x, so it runs on the row engine (row_engine.cuh) with a dot-product reducer:
// the plans, kernels and 16-byte streaming of sum_last over W's rows (at N = 4096: a warp a row, four 16-byte loads
// of W a lane in flight). Each 16-byte vector of W meets the vector of x at the same columns, loaded beside it (x is
// K floats, read by every row from L1 and L2).
// Bytes: N*K*4 + K*4 + N*4; e.g. {1, 4096, 4096}: 67.1 MB, ~14.5 us at the H200's read roof (4.64 TB/s). FLOPs:
// 2*N*K. Memory bound.
// H200 GPU acbb6015, bench_ops A/F, three turns, medians (notes/performance.md, forty-ninth round), against the
// skinny kernel (gemm_skinny.cu: a warp per two rows of W, x staged whole in shared memory), us: linear 1x4096x4096
// 18.91 -> 17.22, 1x2048x8192 23.04 -> 17.41, 1x4096x11008 48.64 -> 42.82, 1x8192x8192 66.24 -> 61.57, 1x11008x4096
// 45.79 -> 42.62. In 16 bits the same reducer lost where N is 4096 or 8192 (bf16 1x4096x4096 13.68 -> 15.20,
// 1x4096x11008 30.78 -> 36.83, 1x8192x8192 43.44 -> 45.18; not explained) and won at N = 2048 and 11008 (bf16
// 1x2048x8192 19.26 -> 15.39), so 16-bit rows stay on the skinny kernel.
#include <cstdint>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/reduction/row_engine.cuh"

namespace fw::gemv_nk {

using namespace fw::rowwise;

// The reducer: a row's state is its running dot product with x. XVEC: each 16-byte vector of a row of W starts at a
// column where x holds a 16-byte vector too (W and x 16-byte aligned, K a multiple of 4), so x's four values come in
// one 16-byte load; otherwise one load a value (rows of W at other phases: the engine's scalar head and tail, and its
// vectors between).
template <bool XVEC>
struct DotOps {
  using State = SumState;
  const float* x;
  const float* bias;  // nullptr: none
  float* y;
  __device__ __forceinline__ State init(int64_t) const { return {0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t col) const {
    float a[N];
    if constexpr (XVEC && N == 4) {
      const float4 q = *reinterpret_cast<const float4*>(x + col);
      a[0] = q.x, a[1] = q.y, a[2] = q.z, a[3] = q.w;
    } else {
#pragma unroll
      for (int j = 0; j < N; ++j) a[j] = x[col + j];
    }
#pragma unroll
    for (int j = 0; j < N; ++j) st.s = fmaf(v[j], a[j], st.s);
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const { return {a.s + b.s}; }
  __device__ __forceinline__ void write(int64_t row, const State& st) const {
    y[row] = bias != nullptr ? st.s + bias[row] : st.s;
  }
};

}  // namespace fw::gemv_nk

namespace fw::detail {

bool gemv_nk_supported(const GemmArgs& a) {
  // The shapes where the skinny kernel took fp32 M = 1 before and was measured against it.
  return a.dt == DType::f32 && a.b_layout == GemmLayout::nk && a.batch == 1 && a.M == 1 && a.N >= 2048 &&
         a.K >= 1024 && a.K <= INT32_MAX;
}

void gemm_gemv_nk(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::gemv_nk;
  FW_REQUIRE(gemv_nk_supported(a), "the gemv_nk path takes fp32, W as [N, K], batch 1, M = 1");
  // Few long rows split over a wave (plans.hpp): their partial states go to a scratch.
  const std::size_t ws_bytes = row_reduce_workspace_bytes(a.N, a.K);
  void* ws = ws_bytes > 0 ? scratch(Scratch::gemv_nk_partials, ws_bytes) : nullptr;
  const float* x = static_cast<const float*>(a.A);
  const float* w = static_cast<const float*>(a.B);
  const float* bias = static_cast<const float*>(a.bias);
  float* y = static_cast<float*>(a.C);
  if (aligned16(x) && aligned16(w) && a.K % 4 == 0)
    launch_row_reduce(w, a.N, a.K, DotOps<true>{x, bias, y}, ws, ws_bytes, s);
  else
    launch_row_reduce(w, a.N, a.K, DotOps<false>{x, bias, y}, ws, ws_bytes, s);
}

}  // namespace fw::detail
