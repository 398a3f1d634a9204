// Shared device machinery of the row-wise families (reduction, norm, loss): reduction states and their
// combines, warp/block all-reductions of any small state struct, 16-byte vector loads and stores, a
// streaming "reduce a contiguous range" routine that copes with any element alignment (scalar head,
// 16-byte body, scalar tail), and the host-side plans that decide how rows are split over blocks.
//
// Plans fill one wave of the GPU (occupancy API x SM count), but the workspace a plan may use is
// bounded by a function of the shape alone, so bench/ can size OpIO::workspace_bytes without a device.
#pragma once
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <cooperative_groups.h>

#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/types.cuh"
#include "kernels/reduction/plans.hpp"

namespace fw {
namespace rowwise {

// ----------------------------------------------------------------------------------------------------
// Host side: residency and cooperative launches (the plans are in plans.hpp)
// ----------------------------------------------------------------------------------------------------

// 256-thread blocks of `Kernel` resident on the whole GPU (cached per kernel: two kernels of one
// signature have their own counts).
template <auto Kernel>
int64_t resident_blocks() {
  static int64_t cached = 0;
  if (cached == 0) {
    int per_sm = 0;
    FW_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, kBlock, 0));
    cached = int64_t(per_sm < 1 ? 1 : per_sm) * sm_count();
  }
  return cached;
}

// The smaller residency of two kernels: a plan that runs either of them (the plain kernel when it does
// not split, the cooperative one when it does) must fit one wave of both.
template <auto K1, auto K2>
int64_t resident_blocks_of_both() {
  const int64_t r1 = resident_blocks<K1>(), r2 = resident_blocks<K2>();
  return r1 < r2 ? r1 : r2;
}

// The caller's workspace as `states` partial states of a split plan, or an error naming `what`.
template <class State>
State* split_workspace(void* ws, std::size_t ws_bytes, int64_t states, const char* what) {
  FW_REQUIRE(ws != nullptr && ws_bytes >= std::size_t(states) * sizeof(State),
             std::string("workspace too small for ") + what);
  return static_cast<State*>(ws);
}

// A row plan's checks before either row kernel runs it: every job's chunk indexes with an int, and a split
// plan's partial states fit the workspace. Returns where they go (nullptr when the plan does not split).
template <class State>
State* row_plan_partials(const RowPlan& plan, int64_t rows, void* ws, std::size_t ws_bytes) {
  FW_REQUIRE(plan.chunk < (int64_t(1) << 31) - 64, "row too long for one job (2^31 elements)");
  return plan.splits > 1 ? split_workspace<State>(ws, ws_bytes, rows * plan.splits, "the split row reduction")
                         : nullptr;
}

// Launches `kernel` cooperatively: every block resident at once, so that it may wait on the whole grid
// (cooperative_groups::this_grid().sync()). The grid must not exceed the kernel's resident blocks.
template <class... P, class... A>
void launch_cooperative(void (*kernel)(P...), dim3 grid, cudaStream_t stream, A&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(kBlock);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  FW_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...));
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// ----------------------------------------------------------------------------------------------------
// Device helpers
// ----------------------------------------------------------------------------------------------------

template <class T>
constexpr int vec_of() {
  return int(16 / sizeof(T));
}

template <class T, int VEC>
__device__ __forceinline__ void load_vec(const T* p, float (&v)[VEC]) {
  if constexpr (VEC == 1) {
    v[0] = to_float(*p);
  } else {
    const Packet<T, VEC> pk = *reinterpret_cast<const Packet<T, VEC>*>(p);
#pragma unroll
    for (int j = 0; j < VEC; ++j) v[j] = to_float(pk.v[j]);
  }
}

// Raw 16-byte packets, converted to fp32 only when used (keeps 8 loads in flight in 32 registers).
template <class T, int VEC>
__device__ __forceinline__ Packet<T, VEC> load_raw(const T* p) {
  return *reinterpret_cast<const Packet<T, VEC>*>(p);
}
template <class T, int VEC>
__device__ __forceinline__ void unpack(const Packet<T, VEC>& pk, float (&v)[VEC]) {
#pragma unroll
  for (int j = 0; j < VEC; ++j) v[j] = to_float(pk.v[j]);
}
// The same, with bf16 pairs widened from their 32-bit words (the low element shifted up, the high one masked:
// exact, NaN payloads kept), one instruction an element. unpack splits each bf16 word with a PRMT first, which
// ptxas hoists next to the loads, so a loaded vector holds twice its registers until it is used. Where that
// spilled or held the occupancy down, this is used: row_short_kernel at eight vectors a lane (84-92 bytes of
// spills in every bf16 reducer at 64 registers, none with this), mse_kernel (80 -> 62 registers),
// rms_bwd_cached_kernel (a 20-byte spill gone) and ce_backward_kernel (both its passes). H100 A/B (notes/performance.md,
// thirty-second round): rms_norm_backward bf16 16384x4096 185.2 -> 158.1 us, cross_entropy_backward bf16
// 4096x32000 217.1 -> 194.0. Not in the 4-deep row kernel or the column kernels: there the registers saved gave
// them a block an SM more and made them slower (cross_entropy bf16 16384x8192 93.6 -> 97.4 us, argmax_first bf16
// 256x256x256 18.8 -> 26.6), nor in the short-row kernel's narrower layouts (argmax_last bf16 256x256x256 17.0 ->
// 17.5 us, 128x128x128 5.7 -> 6.0). The 4-deep kernel uses it for reducers with a Side stream (below).
// The two bf16 elements of a 32-bit word as fp32: the low one shifted up, the high one masked (exact).
__device__ __forceinline__ void widen_bf16_word(uint32_t w, float& lo, float& hi) {
  lo = __uint_as_float(w << 16);
  hi = __uint_as_float(w & 0xffff0000u);
}
template <class T, int VEC>
__device__ __forceinline__ void unpack_words(const Packet<T, VEC>& pk, float (&v)[VEC]) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value && VEC % 2 == 0) {
    uint32_t w[VEC / 2];
    memcpy(w, &pk, sizeof(w));
#pragma unroll
    for (int j = 0; j < VEC / 2; ++j) widen_bf16_word(w[j], v[2 * j], v[2 * j + 1]);
  } else {
    unpack<T, VEC>(pk, v);
  }
}

// Eight 16-bit elements from the four words of a 16-byte load (bf16 as unpack_words widens it; fp16 a pair a
// word).
template <class T>
__device__ __forceinline__ void widen_words(const uint4& q, float (&v)[8]) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (std::is_same<T, __nv_bfloat16>::value) {
      widen_bf16_word(w[j], v[2 * j], v[2 * j + 1]);
    } else {
      __half2 h;
      memcpy(&h, &w[j], 4);
      const float2 f = __half22float2(h);
      v[2 * j] = f.x;
      v[2 * j + 1] = f.y;
    }
  }
}

template <class T, int VEC>
__device__ __forceinline__ void store_vec(T* p, const float (&v)[VEC]) {
  if constexpr (VEC == 1) {
    *p = from_float<T>(v[0]);
  } else {
    Packet<T, VEC> pk;
#pragma unroll
    for (int j = 0; j < VEC; ++j) pk.v[j] = from_float<T>(v[j]);
    store_packet(p, pk);
  }
}

// Shuffle any trivially-copyable state word by word.
template <class S>
__device__ __forceinline__ S shfl_xor_state(const S& s, int mask) {
  static_assert(sizeof(S) % 4 == 0, "state must be a whole number of 32-bit words");
  constexpr int W = int(sizeof(S) / 4);
  int w[W];
  memcpy(w, &s, sizeof(S));
#pragma unroll
  for (int k = 0; k < W; ++k) w[k] = __shfl_xor_sync(0xffffffffu, w[k], mask);
  S r;
  memcpy(&r, w, sizeof(S));
  return r;
}

// Every lane ends with the combination of all 32 lanes' states (combine must be commutative).
template <class S, class F>
__device__ __forceinline__ S warp_allreduce(S s, F combine) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) s = combine(s, shfl_xor_state(s, m));
  return s;
}

// A group width known at compile time (row_short_kernel's): the shuffle trees below start at W / 2, not at
// 16, and no step is tested.
template <int W>
struct Lanes {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a power of two <= 32");
  __host__ __device__ constexpr operator int() const { return W; }
};
// First xor step of a shuffle tree over `width` lanes: every step (16) for a runtime width, W / 2 for Lanes<W>.
__host__ __device__ constexpr int first_xor(int) { return 16; }
template <int W>
__host__ __device__ constexpr int first_xor(Lanes<W>) { return W / 2; }

// The same within aligned groups of `width` lanes (a power of two <= 32, uniform across the warp; every lane
// of the warp calls it). A run-time width: every step shuffles and only the combine depends on the width (with
// the shuffles under the width test the short-row reductions were up to 4.5% slower; H100, bench_ops A/B:
// sum_last bf16 256^3 13.6 -> 13.0 us; notes/performance.md, twenty-fourth round). Lanes<W>: steps W / 2 .. 1.
template <class S, class F, class Width>
__device__ __forceinline__ S group_allreduce(S s, F combine, Width width) {
#pragma unroll
  for (int m = first_xor(width); m > 0; m >>= 1) {
    const S o = shfl_xor_state(s, m);
    if (m < width) s = combine(s, o);
  }
  return s;
}

// Every thread of the block ends with the combination of all threads' states. blockDim.x must be a
// multiple of 32 (at most 1024). Starts with a barrier so that the shared slots can be reused.
template <class S, class F>
__device__ __forceinline__ S block_allreduce(S s, F combine, const S& identity) {
  __shared__ S slots[32];
  s = warp_allreduce(s, combine);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
  __syncthreads();
  if (lane == 0) slots[warp] = s;
  __syncthreads();
  s = lane < nwarps ? slots[lane] : identity;
  return warp_allreduce(s, combine);
}

__device__ __forceinline__ bool is_nan(float x) { return x != x; }

// NaN-propagating max/min (fmaxf would drop NaN; LibTorch's max returns it).
__device__ __forceinline__ float max_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float min_nan(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// ----------------------------------------------------------------------------------------------------
// Reduction states. Each reducer R provides
//   State init(int64_t row) const;               identity for that row
//   template <int N> void add(State&, const float (&v)[N], int64_t idx) const;   idx of v[0]
//   State combine(const State&, const State&) const;   commutative
// and, where it ends a reduction, a write(row, state) (see the families' .cu files). A reducer whose rows
// end in one sum (cross_entropy's mean: write(row, state) stores the row's term) may declare kSumsRows and
//   float row_value(int64_t row, const State&) const;   the row's term of the sum
//   void write_total(int64_t block, float) const;       block `block`'s sum of its rows' terms
// for the short-row kernel (RowSink and launch_row_short below). A reducer that reads a second stream beside
// its rows, a 16-byte value at the columns of each 16-byte vector of a row (gemv_nk.cu's dot product: x), may
// declare
//   using Side = ...;   a 16-byte type
//   const Side* sides(int64_t idx) const;   its stream from element idx on, one Side a vector, 16-byte aligned
//   template <int N> void add(State&, const float (&v)[N], int64_t idx, const Side&) const;
// range_accumulate then loads each vector's Side in its load phase, beside the vector. Loaded inside add, x waited
// for the row's loads (notes/performance.md, fiftieth round). It is used where the range starts on the stream's
// 16-byte phase: the reducer's caller guarantees it (the row and the stream aligned alike).
// ----------------------------------------------------------------------------------------------------

struct SumState {
  float s;
};
struct SumOps {
  using State = SumState;
  __device__ __forceinline__ State init(int64_t) const { return {0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t) const {
#pragma unroll
    for (int j = 0; j < N; ++j) st.s += v[j];
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const { return {a.s + b.s}; }
};

// The sum of every thread's v over the block (every thread gets it; block_allreduce's rules).
__device__ __forceinline__ float block_sum_all(float v) {
  return block_allreduce(SumState{v}, [](const SumState& a, const SumState& b) { return SumOps().combine(a, b); },
                         SumState{0.f})
      .s;
}

struct SumSqOps {  // sum of squares (rms_norm)
  using State = SumState;
  __device__ __forceinline__ State init(int64_t) const { return {0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t) const {
#pragma unroll
    for (int j = 0; j < N; ++j) st.s = fmaf(v[j], v[j], st.s);
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const { return {a.s + b.s}; }
};

template <bool IS_MIN>
struct ExtremumOps {
  using State = SumState;  // one float
  __device__ __forceinline__ State init(int64_t) const { return {IS_MIN ? INFINITY : -INFINITY}; }
  __device__ __forceinline__ static float pick(float a, float b) { return IS_MIN ? min_nan(a, b) : max_nan(a, b); }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t) const {
#pragma unroll
    for (int j = 0; j < N; ++j) st.s = pick(st.s, v[j]);
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const { return {pick(a.s, b.s)}; }
};

// argmax: the largest value; NaN counts as the largest; ties go to the smaller index (LibTorch).
struct ArgMaxState {
  long long i;
  float v;
  int pad;
};
__device__ __forceinline__ bool argmax_better(float av, long long ai, float bv, long long bi) {
  const bool an = is_nan(av), bn = is_nan(bv);
  if (an || bn) return an && bn ? ai < bi : an;
  if (av != bv) return av > bv;
  return ai < bi;
}
struct ArgMaxOps {
  using State = ArgMaxState;
  __device__ __forceinline__ State init(int64_t) const { return {LLONG_MAX, -INFINITY, 0}; }
  // Elements arrive in increasing index order per thread, so only a strictly better vector maximum
  // (NaN-propagating) can replace the state; then the first element equal to it is the index.
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t idx) const {
    float vm = v[0];
#pragma unroll
    for (int j = 1; j < N; ++j) vm = max_nan(vm, v[j]);
    if (argmax_better(vm, idx, st.v, st.i)) {
      int first = N - 1;
      const bool nan = is_nan(vm);
#pragma unroll
      for (int j = N - 1; j >= 0; --j)
        if (v[j] == vm || (nan && is_nan(v[j]))) first = j;
      st = {idx + first, vm, 0};
    }
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const {
    return argmax_better(a.v, a.i, b.v, b.i) ? a : b;
  }
};

// log-sum-exp, online: s = sum exp(x - m) for the running max m.
struct LseState {
  float m;
  float s;
};
struct LseOps {
  using State = LseState;
  __device__ __forceinline__ State init(int64_t) const { return {-INFINITY, 0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t) const {
    float mx = v[0];
#pragma unroll
    for (int j = 1; j < N; ++j) mx = max_nan(mx, v[j]);
    // NaN anywhere puts NaN in m (max_nan), and so in the result: fmaxf dropped it, and a vector of NaN
    // first in a lane left m at -inf and the sum untouched (an all-NaN row gave -inf). A max of +inf
    // leaves inf - inf = NaN in s; the logsumexp write reads m = +inf as the result +inf (LibTorch's).
    // tests/gpu/test_special_vs_torch.cpp holds this to LibTorch; its cost (H100 A/B): cross_entropy bf16
    // 64x512x512 19.1 -> 19.4 us, fp32 256x256x256 28.9 -> 29.5 us, logsumexp and softmax within noise.
    // Selects, not branches (H100, A/B against the two branches: logsumexp bf16 256x256x256 19.9 -> 17.8 us,
    // cross_entropy bf16 64x512x512 21.6 -> 19.1 us, fp32 256x256x256 30.9 -> 29.5 us; sum and argmax unchanged).
    const float m = max_nan(st.m, mx);
    const float scale = __expf(st.m - m);  // used only when the max changes (no NaN from -inf - -inf, inf - inf)
    st.s = m == st.m ? st.s : st.s * scale;
    st.m = m;
    const float ml = m * kLog2e;
    float e = 0.f;
#pragma unroll
    for (int j = 0; j < N; ++j) e += ex2(fmaf(v[j], kLog2e, -ml));
    if (st.m != -INFINITY) st.s += e;  // an all -inf lane keeps s = 0 (-inf - -inf would give NaN)
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const {
    if (is_nan(a.m) || is_nan(b.m)) return {NAN, NAN};
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) return {m, 0.f};
    return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
  }
};
__device__ __forceinline__ float lse_value(const LseState& st) {
  return st.m == -INFINITY ? -INFINITY : st.m + logf(st.s);
}

// Log-sum-exp states merge across lanes max-first: the group's max M by shuffles, then each lane rescales
// its own s once, s exp(m - M), and the rescaled sums are added by shuffles. One exp a lane, where merging
// pairwise (LseOps::combine) takes two a step: ten over 32 lanes, as many as a lane spends on its own
// vector of 8 bf16 elements when a short row gives it one. NaN anywhere in m gives M = NaN (max_nan), so
// the result is NaN as combine's is; a group of empty states stays {-inf, 0}.
template <class Width>
__device__ __forceinline__ LseState lse_allreduce_lanes(LseState st, Width width) {
  float mx = st.m;
#pragma unroll
  for (int k = first_xor(width); k > 0; k >>= 1) {  // every step from first_xor(width) shuffles, as group_allreduce's
    const float o = __shfl_xor_sync(0xffffffffu, mx, k);
    const float c = max_nan(mx, o);  // then a select, not a branch around max_nan's asm (measured with add's)
    mx = k < width ? c : mx;
  }
  const float scale = __expf(st.m - mx);
  float sum = mx == -INFINITY ? 0.f : st.s * scale;
#pragma unroll
  for (int k = first_xor(width); k > 0; k >>= 1) {
    const float o = __shfl_xor_sync(0xffffffffu, sum, k);
    if (k < width) sum += o;
  }
  return {mx, sum};
}
// The lane merges of an LseState (found by argument-dependent lookup from the generic kernels, whose
// combine for this state is always LseOps::combine; the functor is not needed).
template <class F>
__device__ __forceinline__ LseState warp_allreduce(LseState s, F) {
  return lse_allreduce_lanes(s, 32);
}
template <class F, class Width>
__device__ __forceinline__ LseState group_allreduce(LseState s, F, Width width) {
  return lse_allreduce_lanes(s, width);
}

// Shifted first and second moments (layer_norm over long rows): s1 = sum(x - k), s2 = sum((x - k)^2)
// with k = the row's first element, so that var = s2/n - (s1/n)^2 does not cancel when |mean| >> std.
struct MomentState {
  float k;
  float s1;
  float s2;
};
template <class T>
struct MomentOps {
  using State = MomentState;
  const T* x;
  int64_t cols;
  __device__ __forceinline__ State init(int64_t row) const { return {to_float(x[row * cols]), 0.f, 0.f}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t) const {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const float d = v[j] - st.k;
      st.s1 += d;
      st.s2 = fmaf(d, d, st.s2);
    }
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const {
    return {a.k, a.s1 + b.s1, a.s2 + b.s2};
  }
};

template <class R, class = void>
struct SumsRows {
  static constexpr bool value = false;
};
template <class R>
struct SumsRows<R, std::void_t<decltype(R::kSumsRows)>> {
  static constexpr bool value = R::kSumsRows;
};

template <class R, class = void>
struct HasSide {
  static constexpr bool value = false;
};
template <class R>
struct HasSide<R, std::void_t<typename R::Side>> {
  static constexpr bool value = true;
};
// A reducer's Side type, or an empty one where it has none.
template <class R, bool = HasSide<R>::value>
struct SideOf {
  using type = typename R::Side;
};
template <class R>
struct SideOf<R, false> {
  struct type {};
};

// Where row_short_kernel puts a finished row: red.write(row, state), or (SUM) the thread's running sum of
// red.row_value, which finish() adds over the block into red.write_total(blockIdx.x, sum). A block's rows and
// the order of every addition are fixed by the grid, so the sums are deterministic; the pass after the kernel
// adds one wave's block sums instead of one value a row (H100, cross_entropy bf16 256x256x256: one block read
// 65536 row losses, 4.5-5.5 us by ncu). Every thread of the block calls finish().
template <class R, bool SUM>
struct RowSink {
  template <class S>
  __device__ __forceinline__ void put(const R& red, int64_t row, const S& st) {
    red.write(row, st);
  }
  __device__ __forceinline__ void finish(const R&) {}
};
template <class R>
struct RowSink<R, true> {
  float acc = 0.f;
  template <class S>
  __device__ __forceinline__ void put(const R& red, int64_t row, const S& st) {
    acc += red.row_value(row, st);
  }
  __device__ __forceinline__ void finish(const R& red) {
    const float s = block_sum_all(acc);
    if (threadIdx.x == 0) red.write_total(blockIdx.x, s);
  }
};

// ----------------------------------------------------------------------------------------------------
// Streaming range reduction: thread t of nt accumulates elements [0, n) of p into st. idx0 is the
// index of p[0] (for argmax). Any element-aligned p: a scalar head up to the first 16-byte boundary,
// 16-byte vectors (kUnroll loads in flight per thread, predicated, so short rows keep them in flight
// too), a scalar tail. Each thread sees its elements in increasing index order.
// ----------------------------------------------------------------------------------------------------

// WORDS: the vectors widened by unpack_words (else unpack).
template <int U = kUnroll, bool WORDS = false, class T, class R>
__device__ __forceinline__ void range_accumulate(const T* __restrict__ p, int n, int64_t idx0, int t, int nt,
                                                 const R& red, typename R::State& st) {
  constexpr int VEC = vec_of<T>();
  using Vec = Packet<T, VEC>;
  int head = int(((16 - (reinterpret_cast<uintptr_t>(p) & 15)) & 15) / sizeof(T));
  if (head > n) head = n;
  if (t < head) {
    const float v[1] = {to_float(p[t])};
    red.add(st, v, idx0 + t);
  }
  const Vec* q = reinterpret_cast<const Vec*>(p + head);
  const int m = n - head;
  const int nvec = m / VEC;
  const int64_t qidx = idx0 + head;
  using Side = typename SideOf<R>::type;
  const Side* sp = nullptr;
  if constexpr (HasSide<R>::value) sp = red.sides(qidx);
  for (int i = t; i < nvec; i += U * nt) {
    Vec raw[U];
    Side side[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i + u * nt < nvec) raw[u] = q[i + u * nt];
    if constexpr (HasSide<R>::value) {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (i + u * nt < nvec) side[u] = sp[i + u * nt];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = i + u * nt;
      if (k < nvec) {
        float a[VEC];
        if constexpr (WORDS)
          unpack_words<T, VEC>(raw[u], a);
        else
          unpack<T, VEC>(raw[u], a);
        if constexpr (HasSide<R>::value)
          red.add(st, a, qidx + int64_t(k) * VEC, side[u]);
        else
          red.add(st, a, qidx + int64_t(k) * VEC);
      }
    }
  }
  const int tail = m - nvec * VEC;
  if (t < tail) {
    const float v[1] = {to_float(p[head + nvec * VEC + t])};
    red.add(st, v, qidx + int64_t(nvec) * VEC + t);
  }
}

// Jobs of `group` threads (job = row * splits + piece), 256-thread blocks. With splits == 1 the result
// goes to red.write(row, state), else to partials[job] for the caller's second pass (row_apply.cuh). U:
// 16-byte loads in flight a thread; the short-row kernel (U = 1) is bounded to 32 registers for a full SM (8 blocks).
// A Side reducer's 4-deep kernel holds twice the loads in flight, and is bounded to 64 registers for four blocks an
// SM, its bf16 widened from words (unpack_words: no PRMT held beside the loads). Without the bound (80 registers in
// bf16, three blocks) and with the Side passed by value, the decode GEMV bf16 1x4096x4096 took 12.32 us against 10.34
// (gemv_nk.cu; the three changes measured together).
template <class T, class R, int U = kUnroll>
__global__ void __launch_bounds__(kBlock, U == 1 ? 8 : U == 2 ? 6 : HasSide<R>::value ? 4 : 3)
    row_reduce_kernel(const T* __restrict__ x, int64_t rows, int64_t cols, int64_t chunk, int64_t splits, int group,
                      R red, typename R::State* __restrict__ partials) {
  using State = typename R::State;
  allow_dependents();  // a one-block second pass (cross_entropy's mean) may be queued as a dependent launch
  const int t = int(threadIdx.x) & (group - 1);
  const int64_t job = int64_t(blockIdx.x) * (kBlock / group) + int(threadIdx.x) / group;
  const int64_t jobs = rows * splits;
  const bool active = job < jobs;
  // A warp whose first job is past the end has no job (jobs are consecutive); no barrier below for jobs of
  // at most a warp, and the others stay for the shuffles. (U > 1: group >= 32, U == 1: group <= 32.)
  if constexpr (U > 1) {
    if (group == 32 && !active) return;
  } else {
    if (int64_t(blockIdx.x) * (kBlock / group) + int(threadIdx.x & ~31u) / group >= jobs) return;
  }
  const int64_t row = (active ? job : jobs - 1) / splits;
  const int64_t c0 = (job - row * splits) * chunk;
  const State id = red.init(row);
  State st = id;
  if (active) {
    const int n = int((cols - c0 < chunk) ? cols - c0 : chunk);
    range_accumulate<U, HasSide<R>::value>(x + row * cols + c0, n, c0, t, group, red, st);
  }
  auto comb = [&](const State& a, const State& b) { return red.combine(a, b); };
  if constexpr (U > 1)
    st = warp_allreduce(st, comb);
  else
    st = group_allreduce(st, comb, group);
  if (group > 32) {  // uniform: every thread of the block reaches the barrier
    __shared__ State slots[kBlock / 32];
    const int warp = int(threadIdx.x) >> 5;
    if ((threadIdx.x & 31) == 0) slots[warp] = st;
    __syncthreads();
    if (t == 0) {
      const int w0 = warp & ~(group / 32 - 1);
      st = slots[w0];
      for (int k = 1; k < group / 32; ++k) st = red.combine(st, slots[w0 + k]);
    }
  }
  if (t == 0 && active) {
    if (splits == 1)
      red.write(row, st);
    else
      partials[job] = st;
  }
}

// The block combines row `row`'s `splits` partial states and writes the result (every thread calls it).
template <class R>
__device__ __forceinline__ void finalize_row(const typename R::State* partials, int64_t splits, const R& red,
                                             int64_t row) {
  using State = typename R::State;
  const State id = red.init(row);
  State st = id;
  for (int64_t k = threadIdx.x; k < splits; k += blockDim.x) st = red.combine(st, partials[row * splits + k]);
  st = block_allreduce(st, [&](const State& a, const State& b) { return red.combine(a, b); }, id);
  if (threadIdx.x == 0) red.write(row, st);
}

// A split plan in one launch (cooperative: the plan's rows * splits blocks fit one wave): block `job`
// reduces its chunk to partials[job], the grid waits, then block b finalizes rows b, b + gridDim.x, ...
// Saves the second launch and the gap before it (H100: the finalize kernel costs ~2-4 us on a 15-30 us
// reduction).
template <class T, class R>
__global__ void __launch_bounds__(kBlock, 3) row_split_reduce_kernel(const T* __restrict__ x, int64_t rows,
                                                                     int64_t cols, int64_t chunk, int64_t splits,
                                                                     R red, typename R::State* partials) {
  using State = typename R::State;
  allow_dependents();
  const int64_t job = blockIdx.x;
  const int64_t row = job / splits;
  const int64_t c0 = (job - row * splits) * chunk;
  const State id = red.init(row);
  State st = id;
  range_accumulate(x + row * cols + c0, int((cols - c0 < chunk) ? cols - c0 : chunk), c0, int(threadIdx.x), kBlock,
                   red, st);
  st = block_allreduce(st, [&](const State& a, const State& b) { return red.combine(a, b); }, id);
  if (threadIdx.x == 0) partials[job] = st;
  cooperative_groups::this_grid().sync();
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) finalize_row(partials, splits, red, r);
}

// Short aligned rows past one wave (at most short_row_max_vectors a row, cols a multiple of the vector,
// x 16-byte aligned): groups of GROUP lanes stay resident and take kShortRowsAStep<VPL> consecutive
// rows a step, grid-stride, VPL vectors a lane per row (lane t: vectors t, t + GROUP, ...; short_row_shape in
// plans.hpp), all of a step's loads issued together before the rows' reductions. row_reduce_kernel gives a
// group one row, so a lane holds one or two 16-byte loads in flight and a block retires after eight rows
// (H100, sum_last bf16 256x256x256: 20.2 us, 54% of the read roof; H200 A/B/A, one vector a lane, two rows a
// step: 20.5 -> 10.7 us). Five blocks an SM with one vector a lane, four with more (eight vectors a lane too, their
// bf16 widened from whole words: unpack_words): bounded to more, the bf16 reducers spilled.
// SUM: the rows end in block sums (RowSink).
// Rows a group takes a step: two hold two rows' loads in flight; at four vectors a lane one row holds as many (two
// rows of four spilled 224-308 bytes in every bf16 reducer, ptxas).
template <int VPL>
constexpr int kShortRowsAStep = VPL >= 4 ? 1 : 2;
template <class T, class R, int VPL, int GROUP, bool SUM>
__global__ void __launch_bounds__(kBlock, VPL == 1 ? 5 : 4)
    row_short_kernel(const T* __restrict__ x, int64_t rows, int nvec, R red) {
  constexpr int group = GROUP, ROWS = kShortRowsAStep<VPL>;
  using State = typename R::State;
  constexpr int VEC = vec_of<T>();
  using Vec = Packet<T, VEC>;
  allow_dependents();
  const int t = int(threadIdx.x) & (group - 1);
  const int64_t per_block = kBlock / group;
  const int64_t groups = int64_t(gridDim.x) * per_block;
  const int64_t cols = int64_t(nvec) * VEC;
  auto comb = [&](const State& a, const State& b) { return red.combine(a, b); };
  RowSink<R, SUM> sink;
  // The warp's lanes loop together (the shuffles need all 32): until its first group runs out of rows.
  const int64_t g_warp = int64_t(blockIdx.x) * per_block + int(threadIdx.x & ~31u) / group;
  const int64_t g_mine = int64_t(blockIdx.x) * per_block + int(threadIdx.x) / group;
  for (int64_t step = 0; (g_warp + step) * ROWS < rows; step += groups) {
    const int64_t r0 = (g_mine + step) * ROWS;
    Vec raw[ROWS][VPL];
#pragma unroll
    for (int k = 0; k < ROWS; ++k)
#pragma unroll
      for (int v = 0; v < VPL; ++v)
        if (r0 + k < rows && t + v * group < nvec)
          raw[k][v] = reinterpret_cast<const Vec*>(x + (r0 + k) * cols)[t + v * group];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
      const int64_t r = r0 + k;
      State st = red.init(r < rows ? r : rows - 1);
#pragma unroll
      for (int v = 0; v < VPL; ++v)
        if (r < rows && t + v * group < nvec) {
          float a[VEC];
          if constexpr (VPL == 8)
            unpack_words<T, VEC>(raw[k][v], a);
          else
            unpack<T, VEC>(raw[k][v], a);
          red.add(st, a, int64_t(t + v * group) * VEC);
        }
      st = group_allreduce(st, comb, Lanes<GROUP>{});
      if (t == 0 && r < rows) sink.put(red, r, st);
    }
  }
  sink.finish(red);
}
// The grid of row_short_kernel<..., SUM> for `rows`: one wave, or fewer blocks if the rows need fewer.
template <class T, class R, int VPL, int GROUP, bool SUM>
int64_t row_short_grid(int64_t rows) {
  const int64_t resident = resident_blocks<row_short_kernel<T, R, VPL, GROUP, SUM>>();
  const int64_t need = ceil_div(ceil_div(rows, int64_t(kShortRowsAStep<VPL>)), int64_t(kBlock / GROUP));
  return need < resident ? need : resident;
}
// Launches row_short_kernel, GROUP lanes of VPL vectors a row. A reducer that sums its rows (SumsRows) ends them in
// block sums where its groups take two rows or more at one row a step; elsewhere the block's closing barrier cost
// more than the shorter pass after it saved, and at two rows a step the running sum spilled (H100, cross_entropy,
// bench_ops A/B, notes/performance.md, twenty-seventh round: bf16 256x256x256 16.90 -> 16.19 us, 512x512x512 98.1
// -> 93.7, fp32 256x256x256 27.6 -> 26.3; but fp32 128x128x128, one row a group, 6.82 -> 6.97, and bf16 65536x128,
// two rows a step, 12.04 -> 12.26). Returns the number of values the rows left: the grid's block sums, else one a row.
template <class T, class R, int VPL, int GROUP>
int64_t launch_row_short(const T* x, int64_t rows, int64_t cols, const R& red, cudaStream_t stream) {
  const int nvec = int(cols / vec_of<T>());
  if constexpr (SumsRows<R>::value && kShortRowsAStep<VPL> == 1) {
    const int64_t grid = row_short_grid<T, R, VPL, GROUP, true>(rows);
    if (rows >= 2 * grid * (kBlock / GROUP)) {
      row_short_kernel<T, R, VPL, GROUP, true><<<unsigned(grid), kBlock, 0, stream>>>(x, rows, nvec, red);
      FW_CHECK_LAUNCH();
      return grid;
    }
  }
  const int64_t grid = row_short_grid<T, R, VPL, GROUP, false>(rows);
  row_short_kernel<T, R, VPL, GROUP, false><<<unsigned(grid), kBlock, 0, stream>>>(x, rows, nvec, red);
  FW_CHECK_LAUNCH();
  return rows;
}

// Kernel 1 of a streamed row reduction with reducer R over x [rows, cols] under `plan` (R::write ends it
// when the plan does not split; otherwise partials go to ws). Returns the number of values the rows left
// (launch_row_short; one a row from row_reduce_kernel).
template <class T, class R>
int64_t launch_row_plan(const RowPlan& plan, const T* x, int64_t rows, int64_t cols, const R& red, void* ws,
                        std::size_t ws_bytes, cudaStream_t stream) {
  typename R::State* partials = row_plan_partials<typename R::State>(plan, rows, ws, ws_bytes);
  const int64_t blocks = row_plan_blocks(plan, rows);
  FW_REQUIRE(blocks < (int64_t(1) << 31), "too many rows");
  // plan.unroll (1, 2 or kUnroll) as a compile-time constant for `f`.
  const auto with_unroll = [&](auto f) {
    if (plan.unroll == 1) return f(std::integral_constant<int, 1>{});
    if (plan.unroll == 2) return f(std::integral_constant<int, 2>{});
    return f(std::integral_constant<int, kUnroll>{});
  };
  const int64_t plan_resident =
      with_unroll([](auto u) { return resident_blocks<row_reduce_kernel<T, R, decltype(u)::value>>(); });
  constexpr bool kOneFloat = sizeof(typename R::State) == sizeof(float);  // sum, mean, max, min
  if (takes_short_rows(plan, rows, cols, vec_of<T>(), aligned16(x), plan_resident,
                       short_row_max_vectors(vec_of<T>(), kOneFloat))) {
    const ShortRowShape shape = short_row_shape(cols / vec_of<T>());
    if (shape.vectors == 1) return launch_row_short<T, R, 1, 8>(x, rows, cols, red, stream);
    if (shape.vectors == 2) return launch_row_short<T, R, 2, 8>(x, rows, cols, red, stream);
    if (shape.vectors == 8) return launch_row_short<T, R, 8, 16>(x, rows, cols, red, stream);
    if (shape.lanes == 8) return launch_row_short<T, R, 4, 8>(x, rows, cols, red, stream);
    return launch_row_short<T, R, 4, 16>(x, rows, cols, red, stream);
  }
  with_unroll([&](auto u) {
    row_reduce_kernel<T, R, decltype(u)::value><<<unsigned(blocks), kBlock, 0, stream>>>(
        x, rows, cols, plan.chunk, plan.splits, plan.group, red, partials);
    return 0;
  });
  FW_CHECK_LAUNCH();
  return rows;
}

// The whole streamed row reduction in one launch: split plans (few long rows) run the cooperative
// split-and-finalize kernel. Planned for the smaller residency of the two kernels, so that a split grid
// fits one wave of either. Returns the number of values the rows left for a pass after (launch_row_plan; one
// a row from the split kernel).
template <class T, class R>
int64_t launch_row_reduce(const T* x, int64_t rows, int64_t cols, const R& red, void* ws, std::size_t ws_bytes,
                          cudaStream_t stream) {
  using State = typename R::State;
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  const RowPlan plan = plan_rows(rows, cols, vec_of<T>(),
                                 resident_blocks_of_both<row_reduce_kernel<T, R>, row_split_reduce_kernel<T, R>>());
  if (plan.splits == 1) return launch_row_plan(plan, x, rows, cols, red, ws, ws_bytes, stream);
  State* partials = row_plan_partials<State>(plan, rows, ws, ws_bytes);
  launch_cooperative(row_split_reduce_kernel<T, R>, dim3(unsigned(rows * plan.splits)), stream, x, rows, cols,
                     plan.chunk, plan.splits, red, partials);
  return rows;
}

}  // namespace rowwise
}  // namespace fw
