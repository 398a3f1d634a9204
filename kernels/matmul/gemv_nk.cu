// Decode GEMV with W as [N, K] (linear, M = 1, batch 1; fp32, fp16, bf16): y[n] = sum_k x[k] W[n, k] (+ bias[n])
// is a row reduction of W, each row weighted by x, so it runs on the row engine (row_engine.cuh) with a dot-product
// reducer: the plans, kernels and 16-byte streaming of sum_last over W's rows (at N = 4096: a warp a row, four
// 16-byte loads of W a lane in flight). x is the reducer's Side stream: its vector at each vector's columns is
// loaded beside the vector of W (x is K elements, read by every row from L1 and L2). fp32 accumulation, one
// rounding at the end.
// Bytes: N*K*s + K*s + N*s; e.g. {1, 4096, 4096}: 67.1 MB in fp32, ~14.5 us at the H200's read roof (4.64 TB/s),
// 33.6 MB in bf16, ~7.2 us. FLOPs: 2*N*K. Memory bound.
// H200, bench_ops A/F and A/E, three turns, medians (notes/performance.md, forty-ninth and fiftieth rounds), against
// the skinny kernel (gemm_skinny.cu: a warp per two rows of W, x staged in shared memory), us:
//   fp32 (GPU acbb6015): linear 1x4096x4096 18.91 -> 17.22, 1x2048x8192 23.04 -> 17.41, 1x4096x11008 48.64 ->
//     42.82, 1x8192x8192 66.24 -> 61.57, 1x11008x4096 45.79 -> 42.62.
//   bf16 (GPU 00ffd930): 1x4096x4096 13.76 -> 10.34, 1x4096x1024 5.30 -> 4.38, 1x2048x8192 19.20 -> 10.69,
//     1x8192x8192 42.80 -> 33.02, 1x11008x4096 32.10 -> 24.32, 1x32000x4096 80.91 -> 64.26; fp16 alike.
// With x loaded inside the reducer's add, 16 bits lost to the skinny kernel at N = 4096 and 8192 (bf16 1x4096x4096
// 13.68 -> 15.20): each vector's add was a branch with x's load inside, so x's loads waited for W's. The Side stream
// issues them together. Its first form (x128, GPU 16f2fc15: the Side passed by value, no register bound; 80 registers
// in bf16, 72 in fp16, three blocks an SM) took bf16 1x4096x4096 12.32 us; this one (the Side by pointer, 64
// registers and four blocks an SM, bf16 widened from words; the three measured together) 10.34.
#include <cstdint>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/reduction/row_engine.cuh"

namespace fw::gemv_nk {

using namespace fw::rowwise;

// The reducer: a row's state is its running dot product with x, x loaded in add one element at a time (any
// alignment of W and x).
template <class T>
struct DotOps {
  using State = SumState;
  const T* x;
  const T* bias;  // nullptr: none
  T* y;
  __device__ __forceinline__ State init(int64_t) const { return {0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t col) const {
#pragma unroll
    for (int j = 0; j < N; ++j) st.s = fmaf(v[j], to_float(x[col + j]), st.s);
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const { return {a.s + b.s}; }
  __device__ __forceinline__ void write(int64_t row, const State& st) const {
    y[row] = from_float<T>(bias != nullptr ? st.s + to_float(bias[row]) : st.s);
  }
};

// W and x 16-byte aligned and K a multiple of the vector: x is the reducer's Side stream (row_engine.cuh), its
// 16-byte vector at each vector's columns loaded beside the vector of W, as a uint4 (loaded as a Packet of 16-bit T
// it compiled to one 2-byte load an element). The rows' scalar heads and tails (none here) take DotOps's add.
template <class T>
struct DotOpsVec : DotOps<T> {
  using Side = uint4;
  using DotOps<T>::add;
  __device__ __forceinline__ const Side* sides(int64_t col) const {
    return reinterpret_cast<const Side*>(this->x + col);
  }
  template <int N>
  __device__ __forceinline__ void add(SumState& st, const float (&v)[N], int64_t, const Side& sd) const {
    static_assert(N * sizeof(T) == sizeof(Side), "a Side is one 16-byte vector of x");
    float a[N];
    if constexpr (sizeof(T) == 2) {
      widen_words<T>(sd, a);
    } else {
      a[0] = __uint_as_float(sd.x), a[1] = __uint_as_float(sd.y), a[2] = __uint_as_float(sd.z);
      a[3] = __uint_as_float(sd.w);
    }
#pragma unroll
    for (int j = 0; j < N; ++j) st.s = fmaf(v[j], a[j], st.s);
  }
};

}  // namespace fw::gemv_nk

namespace fw::detail {

bool gemv_nk_supported(const GemmArgs& a) {
  // The shapes where the skinny kernel took M = 1 before and was measured against it.
  return a.b_layout == GemmLayout::nk && a.batch == 1 && a.M == 1 && a.N >= 2048 && a.K >= 1024 &&
         a.K <= INT32_MAX;
}

void gemm_gemv_nk(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::gemv_nk;
  FW_REQUIRE(gemv_nk_supported(a), "the gemv_nk path takes W as [N, K], batch 1, M = 1");
  // Few long rows split over a wave (plans.hpp): their partial states go to a scratch.
  const std::size_t ws_bytes = row_reduce_workspace_bytes(a.N, a.K);
  void* ws = ws_bytes > 0 ? scratch(Scratch::gemv_nk_partials, ws_bytes) : nullptr;
  dispatch_float(a.dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(a.A);
    const T* w = static_cast<const T*>(a.B);
    const T* bias = static_cast<const T*>(a.bias);
    T* y = static_cast<T*>(a.C);
    if (aligned16(x) && aligned16(w) && a.K % vec_of<T>() == 0)
      launch_row_reduce(w, a.N, a.K, DotOpsVec<T>{{x, bias, y}}, ws, ws_bytes, s);
    else
      launch_row_reduce(w, a.N, a.K, DotOps<T>{x, bias, y}, ws, ws_bytes, s);
  });
}

}  // namespace fw::detail
