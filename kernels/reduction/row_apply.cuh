// Row-wise ops that read a row, reduce it to statistics and write a transformed row of the same size:
// softmax, log_softmax (reduction family), layer_norm and rms_norm (norm family). Three paths:
//
//  cached  rows of up to 16384 elements: the row lives in registers between the statistics and the
//          output (one read, one write). Rows of up to 32 vectors share a warp (4..16 lanes a row,
//          pick_cached), longer ones up to 1024 elements take a warp each (4 rows per 128-thread block),
//          else one block of 128..1024 threads per row, <= 16 elements per thread (32 for softmax and
//          log_softmax in 16 bits where rows abound: pick_cached). 16-byte
//          loads/stores when x, y (and w, b) are 16-byte aligned and cols is a multiple of the vector
//          width; scalar (coalesced) otherwise. Statistics: per-thread exact (two passes over its
//          registers), then ONE all-reduction of a small state (online softmax (m, s); shifted sums
//          (x - x[row, 0]) and their squares for layer_norm; sum of squares for rms_norm).
//  looped  many rows longer than 16384: one block per row streams the row for the statistics, then
//          streams it again (mostly from L2) to write.
//  split   few long rows (at most half a wave of blocks, e.g. 1 x 262144): each row is cut into chunks
//          filling one wave; kernel 1 writes a partial state per chunk, kernel 2 combines the row's
//          partials and writes its chunk.
// Measured on H100 (L2 flushed, median): softmax 8192x8192 fp32 182.4 us (98% of copy, 1.60x LibTorch
// 2.11), bf16 93.7 us (95%, 2.84x); layer_norm bf16 94.2 us (95%, 1.57x); rms_norm bf16 93.5 us (95%,
// 1.51x); softmax 1 x 262144 fp32 11.0 us (7.2x).
#pragma once
#include <type_traits>

#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace rowwise {

enum class RowOp { softmax, log_softmax, layer_norm, rms_norm };

// Statistic reducers for the streamed paths (the cached path computes its own).
template <class T, RowOp OP>
struct StatOps;
template <class T>
struct StatOps<T, RowOp::softmax> : LseOps {
  __host__ __device__ StatOps(const T*, int64_t) {}
  __device__ void write(int64_t, const State&) const {}
};
template <class T>
struct StatOps<T, RowOp::log_softmax> : LseOps {
  __host__ __device__ StatOps(const T*, int64_t) {}
  __device__ void write(int64_t, const State&) const {}
};
template <class T>
struct StatOps<T, RowOp::layer_norm> : MomentOps<T> {
  __host__ __device__ StatOps(const T* x_, int64_t cols_) {
    this->x = x_;
    this->cols = cols_;
  }
  __device__ void write(int64_t, const MomentState&) const {}
};
template <class T>
struct StatOps<T, RowOp::rms_norm> : SumSqOps {
  __host__ __device__ StatOps(const T*, int64_t) {}
  __device__ void write(int64_t, const State&) const {}
};

// Per-row parameters (a, b) of the output transform, from the row's statistics.
struct RowParams {
  float a;
  float b;
};
template <RowOp OP>
__device__ __forceinline__ RowParams row_params(const LseState& st, int64_t, float) {
  if (OP == RowOp::softmax) return {st.m, 1.f / st.s};
  return {lse_value(st), 0.f};
}
template <RowOp OP>
__device__ __forceinline__ RowParams row_params(const MomentState& st, int64_t cols, float eps) {
  const float inv_n = 1.f / float(cols);
  const float d = st.s1 * inv_n;
  const float var = fmaxf(st.s2 * inv_n - d * d, 0.f);
  return {st.k + d, rsqrtf(var + eps)};
}
template <RowOp OP>
__device__ __forceinline__ RowParams row_params(const SumState& st, int64_t cols, float eps) {
  return {rsqrtf(st.s / float(cols) + eps), 0.f};
}

// y for one element, given the row parameters and (norms) the column's weight and bias.
template <RowOp OP>
__device__ __forceinline__ float row_out(float v, RowParams p, float w, float b) {
  if (OP == RowOp::softmax) return __expf(v - p.a) * p.b;
  if (OP == RowOp::log_softmax) return v - p.a;
  if (OP == RowOp::layer_norm) return fmaf((v - p.a) * p.b, w, b);
  return v * p.a * w;
}

constexpr bool op_has_weight(RowOp op) { return op == RowOp::layer_norm || op == RowOp::rms_norm; }
constexpr bool op_has_bias(RowOp op) { return op == RowOp::layer_norm; }

// Writes y[0, n) = f(x[0, n)) for the chunk; w and b point at the chunk's first column. 16-byte body
// when x, y, w, b share the same 16-byte phase, else scalar.
template <class T, RowOp OP>
__device__ __forceinline__ void range_apply(const T* __restrict__ xp, T* __restrict__ yp, const T* __restrict__ wp,
                                            const T* __restrict__ bp, int64_t n, int t, int nt, RowParams p) {
  constexpr int VEC = vec_of<T>();
  const int ph = int(reinterpret_cast<uintptr_t>(xp) & 15);
  bool same = int(reinterpret_cast<uintptr_t>(yp) & 15) == ph;
  if (op_has_weight(OP)) same = same && int(reinterpret_cast<uintptr_t>(wp) & 15) == ph;
  if (op_has_bias(OP)) same = same && int(reinterpret_cast<uintptr_t>(bp) & 15) == ph;
  auto one = [&](int64_t i) {
    const float w = op_has_weight(OP) ? to_float(wp[i]) : 1.f;
    const float b = op_has_bias(OP) ? to_float(bp[i]) : 0.f;
    yp[i] = from_float<T>(row_out<OP>(to_float(xp[i]), p, w, b));
  };
  if (!same) {
    for (int64_t i = t; i < n; i += nt) one(i);
    return;
  }
  int64_t head = int64_t(((16 - ph) & 15) / int(sizeof(T)));
  if (head > n) head = n;
  if (t < head) one(t);
  const int64_t nvec = (n - head) / VEC;
  auto vec_at = [&](int64_t i, const float (&v)[VEC]) {
    const int64_t e = head + i * VEC;
    float w[VEC], b[VEC], o[VEC];
    if (op_has_weight(OP)) load_vec<T, VEC>(wp + e, w);
    if (op_has_bias(OP)) load_vec<T, VEC>(bp + e, b);
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      o[j] = row_out<OP>(v[j], p, op_has_weight(OP) ? w[j] : 1.f, op_has_bias(OP) ? b[j] : 0.f);
    store_vec<T, VEC>(yp + e, o);
  };
  int64_t i = t;
  for (; i + int64_t(nt) < nvec; i += 2 * int64_t(nt)) {
    float a[VEC], c[VEC];
    load_vec<T, VEC>(xp + head + i * VEC, a);
    load_vec<T, VEC>(xp + head + (i + nt) * VEC, c);
    vec_at(i, a);
    vec_at(i + nt, c);
  }
  for (; i < nvec; i += nt) {
    float a[VEC];
    load_vec<T, VEC>(xp + head + i * VEC, a);
    vec_at(i, a);
  }
  const int64_t tail0 = head + nvec * VEC;
  if (tail0 + t < n) one(tail0 + t);
}

// ---- looped: one block per row -------------------------------------------------------------------
template <class T, RowOp OP>
__global__ void __launch_bounds__(512, 2) row_looped_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                         const T* __restrict__ w, const T* __restrict__ b,
                                                         int64_t cols, float eps) {
  using Ops = StatOps<T, OP>;
  using State = typename Ops::State;
  const Ops ops(x, cols);
  const int64_t row = blockIdx.x;
  const State id = ops.init(row);
  State st = id;
  range_accumulate(x + row * cols, int(cols), 0, threadIdx.x, blockDim.x, ops, st);
  st = block_allreduce(st, [&](const State& a, const State& c) { return ops.combine(a, c); }, id);
  const RowParams p = row_params<OP>(st, cols, eps);
  range_apply<T, OP>(x + row * cols, y + row * cols, w, b, cols, threadIdx.x, blockDim.x, p);
}

// ---- split: kernel 2 (kernel 1 is row_reduce_kernel writing partials) ----------------------------
template <class T, RowOp OP>
__global__ void __launch_bounds__(256, 4) row_split_apply_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                              const T* __restrict__ w, const T* __restrict__ b,
                                                              int64_t cols, int64_t chunk, int64_t splits,
                                                              const typename StatOps<T, OP>::State* partials,
                                                              float eps) {
  using Ops = StatOps<T, OP>;
  using State = typename Ops::State;
  const Ops ops(x, cols);
  const int64_t job = blockIdx.x;
  const int64_t row = job / splits;
  const int64_t c0 = (job - row * splits) * chunk;
  const int64_t n = (cols - c0 < chunk) ? cols - c0 : chunk;
  const State id = ops.init(row);
  State st = id;
  for (int64_t k = threadIdx.x; k < splits; k += blockDim.x) st = ops.combine(st, partials[row * splits + k]);
  st = block_allreduce(st, [&](const State& a, const State& c) { return ops.combine(a, c); }, id);
  const RowParams p = row_params<OP>(st, cols, eps);
  range_apply<T, OP>(x + row * cols + c0, y + row * cols + c0, w + (w ? c0 : 0), b + (b ? c0 : 0), n,
                     threadIdx.x, blockDim.x, p);
}

// ---- cached: the row in registers ----------------------------------------------------------------
// How a cached kernel loads and holds its row. fp32: load_vec (softmax and log_softmax, whose 16-bit vectors load
// as before; fp32 everything). The 16-bit norms load 16-byte words and widen them (widen_words: bf16 one shift or
// mask an element, where load_vec's element-wise copy takes a PRMT and a shift for every high half), their weight
// and bias too; a lane of 32 elements (the warp path's four vectors) keeps the words and widens them at each use
// (raw), so that it fits the 64 registers of eight blocks a SM without spilling (fp32 values spilled 8 bytes).
// Where that lane's grid fits one wave at six blocks a SM, it holds the widened values instead, bounded to six
// blocks (71-80 registers, no spill; launch_cached_nv): there residency is not short and each warp's latency
// decides. H200 GPU 3d713062, bench_ops, three turns each of B (raw everywhere), C (the fp32 hold at six, as before
// 82bf427) and D (this), rows of 256..3072 x 896 and 1024 (notes/performance.md, forty-fifth round), medians, us:
// rms_norm bf16 1024x1024 2.56 -> 2.40 (C 2.40), 256x1024 1.92 -> 1.79 (C 1.86), 3072x1024 4.16 -> 3.97 (C 4.22);
// layer_norm bf16 1024x1024 2.75 -> 2.66 (C 2.72), 256x1024 2.14 -> 2.08 (C 2.24); geomean over the 40 problems
// 0.961 (C 0.986), none slower; 4096 rows (1024 blocks, over the wave: raw in all three) D 0.998, C 0.994.
enum class RowHold { fp32, widened, raw };
template <class T, int VEC, int NV, RowOp OP>
constexpr RowHold kRowHold = !(sizeof(T) == 2 && VEC == 8 && op_has_weight(OP)) ? RowHold::fp32
                             : NV * VEC >= 32                                     ? RowHold::raw
                                                                                  : RowHold::widened;
// Blocks a SM each cached kernel is bounded to: the block path's 1024 threads once (64 registers), the warp
// path's 128 six times (85: kWarpWideBlocks); the 16-bit norms twice (32 registers: 2048 threads a SM on every
// block size) and eight times (64), but six for the one-wave widened lane of 32 elements (above). Left to the
// looser bounds, ptxas gave the bf16 norms 40 registers on the block path (six 256-thread blocks a SM) and 71-80
// on the warp path's four vectors (six or seven blocks). With these holds and bounds (and the warp path's early
// weight and bias below), H200 GPU a1dea9a3, bench_ops A/B twice (notes/performance.md, forty-third round), bf16,
// us: layer_norm 4096^2 18.1 -> 17.2, 2048x8192 19.1 -> 17.4, 16384x896 16.5 -> 14.5, 8192^2 71.8 -> 65.0,
// 4096x768 5.35 -> 4.18 (one wave at eight blocks a SM), rms_norm 4096x1024 5.9 -> 4.8; geomean over the 30
// shapes 0.915 (layer_norm), 0.973 (rms_norm); fp16 0.935 and 0.976. Slower then: rms_norm 1024x1024 2.39 -> 2.55
// (fp16 +6%), layer_norm 1024x1024 2.72 -> 2.80 (one-wave grids, which now hold the widened values: above), and
// rms_norm 32x256x256 3.20 -> 3.30 (one vector a lane; 3.17-3.20 us against 3.26-3.30 for the old files in the
// forty-fifth round's x111, so no longer slower).
constexpr int kWarpWideBlocks = 6;
template <RowHold HOLD, bool WARP, int ELEMS>
constexpr int kCachedMinBlocks = HOLD == RowHold::fp32 || (HOLD == RowHold::widened && ELEMS >= 32)
                                     ? (WARP ? kWarpWideBlocks : 1)
                                     : (WARP ? 8 : 2);

// One vector of a row (x, or a norm's weight or bias) as fp32, loaded as its hold says.
template <class T, int VEC, RowHold H>
__device__ __forceinline__ void load_row_vec(const T* p, float (&v)[VEC]) {
  if constexpr (H == RowHold::fp32)
    load_vec<T, VEC>(p, v);
  else
    widen_words<T>(*reinterpret_cast<const uint4*>(p), v);
}
// The vectors of the row a thread holds from the statistics to the output, as fp32 values.
template <class T, int VEC, int NV, RowHold H>
struct RowRegs {
  float v[NV][VEC];
  __device__ __forceinline__ void load(int i, const T* p) { load_row_vec<T, VEC, H>(p, v[i]); }
  __device__ __forceinline__ void zero(int i) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) v[i][j] = 0.f;
  }
  __device__ __forceinline__ void get(int i, float (&a)[VEC]) const {
#pragma unroll
    for (int j = 0; j < VEC; ++j) a[j] = v[i][j];
  }
  __device__ __forceinline__ void set(int i, const float (&a)[VEC]) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) v[i][j] = a[j];
  }
};
// ... or as the loaded words, widened at each use (one instruction an element, twice; half the registers).
template <class T, int VEC, int NV>
struct RowRegs<T, VEC, NV, RowHold::raw> {
  uint4 r[NV];  // words, not a Packet: a Packet of a 16-bit class type is copied element by element (PRMTs)
  __device__ __forceinline__ void load(int i, const T* p) { r[i] = *reinterpret_cast<const uint4*>(p); }
  __device__ __forceinline__ void zero(int i) { r[i] = make_uint4(0u, 0u, 0u, 0u); }
  __device__ __forceinline__ void get(int i, float (&a)[VEC]) const { widen_words<T>(r[i], a); }
};

// WARP: one warp per row (blockDim.x / 32 rows per block); else one block per row. Thread t holds
// vectors (i * tpr + t) for i < NV, VEC elements each; cols <= tpr * NV * VEC.
// WARP: LANES (4..32, a power of two, a compile-time constant: a run-time one cost up to 1.9 us on
// 1024-element rows) threads a row, 32 / LANES rows a warp.
// HOIST: the weight and bias loads are unconditional (a vector past the row reads column 0) and only the
// store is guarded (see the output loop below for when that pays).
template <class T, int VEC, int NV, bool WARP, RowOp OP, int LANES = 32, bool HOIST = WARP,
          RowHold HOLD = kRowHold<T, VEC, NV, OP>>
__global__ void __launch_bounds__(WARP ? 128 : 1024, kCachedMinBlocks<HOLD, WARP, NV * VEC>) row_cached_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                          const T* __restrict__ w, const T* __restrict__ b,
                                                          int64_t rows, int cols, float eps) {
  static_assert(LANES >= 4 && LANES <= 32 && (LANES & (LANES - 1)) == 0, "lanes a row: 4..32, a power of two");
  const int tpr = WARP ? LANES : int(blockDim.x);
  const int t = WARP ? int(threadIdx.x) & (LANES - 1) : int(threadIdx.x);
  const int64_t row0 = WARP ? int64_t(blockIdx.x) * (blockDim.x / LANES) : int64_t(blockIdx.x);
  // A warp whose first row is past the end leaves whole; in a warp that straddles the end, the groups
  // past it recompute the last row (for the shuffles) and store nothing.
  if (WARP && row0 + int(threadIdx.x & ~31u) / LANES >= rows) return;
  const int64_t my_row = WARP ? row0 + int(threadIdx.x) / LANES : row0;
  const bool writes = !WARP || LANES == 32 || my_row < rows;  // a block or a warp a row: always
  const int64_t row = writes ? my_row : rows - 1;
  const T* xr = x + row * cols;
  T* yr = y + row * cols;

  RowRegs<T, VEC, NV, HOLD> v;
#pragma unroll
  for (int i = 0; i < NV; ++i) {
    const int c = (i * tpr + t) * VEC;
    if (c < cols)
      v.load(i, xr + c);
    else
      v.zero(i);
  }
  auto valid = [&](int i) { return (i * tpr + t) * VEC < cols; };
  // The 16-bit norms' warp path (HOIST) loads its weight and bias words here, with the row, and widens them at
  // the output: loaded there, under the 64-register bound, ptxas issued them only after the statistics, a
  // second trip to DRAM (cold L2) in every block's path.
  constexpr bool kEarlyParams = HOIST && HOLD != RowHold::fp32;
  uint4 wq[kEarlyParams ? NV : 1], bq[kEarlyParams && op_has_bias(OP) ? NV : 1];
  if constexpr (kEarlyParams) {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      const int cw = valid(i) ? (i * tpr + t) * VEC : 0;
      wq[i] = *reinterpret_cast<const uint4*>(w + cw);
      if constexpr (op_has_bias(OP)) bq[i] = *reinterpret_cast<const uint4*>(b + cw);
    }
  }

  RowParams p;
  float tmax = -INFINITY;  // softmax: this thread's max
  if constexpr (OP == RowOp::softmax || OP == RowOp::log_softmax) {
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (valid(i)) {
        float a[VEC];
        v.get(i, a);
#pragma unroll
        for (int j = 0; j < VEC; ++j) tmax = fmaxf(tmax, a[j]);
      }
    // A thread whose values are all -inf shifts by 0, not by tmax: exp(-inf - -inf) is NaN, exp(-inf) is 0
    // (its state {-inf, 0} then merges as an empty one, and its outputs are 0, as LibTorch's).
    const float shift = tmax == -INFINITY ? 0.f : tmax;
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (valid(i)) {
        float a[VEC];
        v.get(i, a);
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          a[j] = __expf(a[j] - shift);
          s += a[j];
        }
        if constexpr (OP == RowOp::softmax) v.set(i, a);  // keep exp(x - shift): no second exp per element
      }
    const LseOps ops;
    LseState st{tmax, s};
    auto comb = [&](const LseState& a, const LseState& c) { return ops.combine(a, c); };
    st = WARP ? group_allreduce(st, comb, LANES) : block_allreduce(st, comb, LseState{-INFINITY, 0.f});
    if (OP == RowOp::softmax)
      // y = exp(x - shift) * exp(tmax - M) / S: shift = tmax, or 0 where tmax = -inf (then y = 0 if M > -inf)
      p = {0.f, __expf(tmax - st.m) / st.s};
    else
      p = {lse_value(st), 0.f};
  } else if constexpr (OP == RowOp::layer_norm) {
    // Exact per-thread moments would need Chan's merge (a division per step); shifted sums merge with
    // two adds: s1 = sum(x - k), s2 = sum((x - k)^2), k = x[row, 0] (a sample of the row, so |mean - k|
    // is of the order of the standard deviation and var = s2/n - (s1/n)^2 keeps its digits).
    const float k = to_float(xr[0]);
    float s1 = 0.f, s2 = 0.f;
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (valid(i)) {
        float a[VEC];
        v.get(i, a);
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          const float d = a[j] - k;
          s1 += d;
          s2 = fmaf(d, d, s2);
        }
      }
    MomentState st{k, s1, s2};
    auto comb = [](const MomentState& a, const MomentState& c) { return MomentState{a.k, a.s1 + c.s1, a.s2 + c.s2}; };
    st = WARP ? group_allreduce(st, comb, LANES) : block_allreduce(st, comb, MomentState{k, 0.f, 0.f});
    p = row_params<OP>(st, cols, eps);
  } else {  // rms_norm
    float ss = 0.f;
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (valid(i)) {
        float a[VEC];
        v.get(i, a);
#pragma unroll
        for (int j = 0; j < VEC; ++j) ss = fmaf(a[j], a[j], ss);
      }
    SumState st{ss};
    auto comb = [](const SumState& a, const SumState& c) { return SumState{a.s + c.s}; };
    st = WARP ? group_allreduce(st, comb, LANES) : block_allreduce(st, comb, SumState{0.f});
    p = {rsqrtf(st.s / float(cols) + eps), 0.f};
  }

  if (!writes) return;
  // HOIST (the warp path, and fp32 blocks of up to 256 threads): the weight and bias loads are
  // unconditional and only the store is guarded, so ptxas predicates the store and issues the later
  // vectors' loads ahead of the earlier stores; guarding the whole vector made each one a branch whose
  // loads waited for the previous store (layer_norm fp32 1024x1024 on the H100: 6.2 -> 4.1 us; fp32 rows
  // of 2048 / 4096: 11.9 / 12.1 -> 10.7 / 11.1 us). Elsewhere on the block path the hoisted loads cost
  // registers and with them resident blocks (bf16 layer_norm, 512 threads: 40 -> 56 registers, 3 -> 2
  // blocks a SM on rows of 8192, 87 -> 98 us), so each vector stays guarded as a whole
  // (notes/performance.md).
#pragma unroll
  for (int i = 0; i < NV; ++i) {
    const int c = (i * tpr + t) * VEC;
    if (!HOIST && !valid(i)) continue;
    const int cw = valid(i) ? c : 0;
    float a[VEC], wv[VEC], bv[VEC], o[VEC];
    v.get(i, a);
    if constexpr (kEarlyParams) {
      widen_words<T>(wq[i], wv);
      if constexpr (op_has_bias(OP)) widen_words<T>(bq[i], bv);
    } else {
      if (op_has_weight(OP)) load_row_vec<T, VEC, HOLD>(w + cw, wv);
      if (op_has_bias(OP)) load_row_vec<T, VEC, HOLD>(b + cw, bv);
    }
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      if (OP == RowOp::softmax)
        o[j] = a[j] * p.b;
      else
        o[j] = row_out<OP>(a[j], p, op_has_weight(OP) ? wv[j] : 1.f, op_has_bias(OP) ? bv[j] : 0.f);
    }
    if (valid(i)) store_vec<T, VEC>(yr + c, o);
  }
}

// ---- host dispatch -------------------------------------------------------------------------------
constexpr int64_t kCachedMaxCols = 16384;

struct CachedCfg {
  bool ok;
  bool warp;
  int threads;
  int nv;
  int lanes;  // threads a row on the warp path
};

inline int pow2_at_least(int64_t n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// Rows of at most 32 vectors take one lane a vector and share a warp (4..32 lanes a row): a whole warp on
// a 16-vector row left half its lanes idle (H100, softmax bf16 128x128x128: 8.7 us by ncu against
// LibTorch's 7.2 us, whose warp takes two such rows).
// Rows of 65..96 vectors (bf16 / fp16 rows of 520..768, fp32 of 260..384) take three vectors a lane, not four: at
// bf16 16384x768 the fourth was a whole idle vector in every lane, computed (layer_norm loads its weight and bias
// unconditionally) and holding registers: layer_norm 79 registers, 6 blocks a SM, 62% of issue slots busy
// (H200, ncu). With three: 71 registers, 7 blocks, 6.80 M instructions against 8.08 M. H200 GPU 47af2219, bench_ops
// A/B twice (notes/performance.md, forty-first round), us: bf16 layer_norm 16384x768 14.6 -> 13.5, rms_norm
// 4096x768 5.22 -> 4.29 and 16384x768 12.8 -> 12.5, log_softmax 4096x768 4.61 -> 4.45, softmax 4.64 -> 4.54; fp32
// 16384x384 (three fp32 vectors a lane) 1-2% faster; rows of 896 (four) as before.
// Rows of 17..32 vectors, when rows abound (>= 32 a SM), take 16 lanes x 2 vectors, two rows a warp (H100,
// A/B/A: softmax bf16 256^3 1.26x -> 1.56x of LibTorch, log_softmax fp32 128^3 0.82x -> 1.00x; but with
// only 256 rows, layer_norm bf16 256^2 1.62x -> 1.31x: half the warps).
// The block path holds 16 elements a thread, or 32 (four 16-byte vectors, half the threads a row, one
// all-reduction for twice the elements) where `wide` (16-bit softmax and log_softmax, which hold fp32
// values: 47-48 registers, no spill) and there are at least kWideBlockRowsPerSm rows a SM. H200 GPU 4f39397b,
// bench_ops in turns, three each (notes/performance.md, fifty-fifth round), bf16, medians, us: log_softmax
// 4096x8192 33.12 -> 31.22, 2048x8192 17.31 -> 16.58, 8192x8192 65.66 -> 63.33, 4096^2 16.74 -> 16.45; softmax
// 4096x8192 31.94 -> 30.98, 2048x8192 16.70 -> 16.35. With few rows the halved threads a row lose (softmax
// 256x3000 2.61 -> 2.88, 512x16384 10.34 -> 10.67; at 1024x4096 log_softmax 6.14 -> 5.86, softmax 5.73 both).
// The norms hold 16-bit words and widen them twice: at 32 elements layer_norm bf16 4096^2 took 17.09 -> 20.03
// with its weight and bias hoisted (63 registers), 17.55 -> 18.37 without (GPU 1b8712eb); they keep 16.
constexpr int kWideBlockRowsPerSm = 8;
inline CachedCfg pick_cached(int64_t rows, int64_t cols, int vec, bool wide) {
  if (cols <= 32 * vec) {
    const int lanes = pow2_at_least(ceil_div(cols, vec));
    if (lanes == 32 && rows >= 32 * int64_t(sm_count())) return {true, true, 128, 2, 16};
    return {true, true, 128, 1, lanes < 4 ? 4 : lanes};
  }
  if (cols <= 1024) {
    const int64_t need = ceil_div(cols, 32 * vec);
    const int nv = need == 3 ? 3 : pow2_at_least(need);
    if (nv <= 8 && nv * vec <= 32) return {true, true, 128, nv, 32};
  }
  const int block_elems = wide && vec == 8 && rows >= kWideBlockRowsPerSm * int64_t(sm_count()) ? 32 : 16;
  for (int threads : {128, 256, 512, 1024}) {
    if (cols > int64_t(threads) * block_elems) continue;
    const int nv = pow2_at_least(ceil_div(cols, int64_t(threads) * vec));
    if (nv <= 8 && nv * vec <= block_elems) return {true, false, threads, nv, 0};
  }
  return {false, false, 0, 0, 0};
}

// Ops whose block path may hold 32 elements a thread (pick_cached): 16-bit rows held as fp32 values.
template <class T, RowOp OP>
constexpr bool kWideBlock = sizeof(T) == 2 && kRowHold<T, vec_of<T>(), 4, OP> == RowHold::fp32;

template <class T, int VEC, bool WARP, RowOp OP>
void launch_cached_nv(int nv, int threads, int lanes, const T* x, T* y, const T* w, const T* b, int64_t rows,
                      int64_t cols, float eps, cudaStream_t stream) {
  const unsigned grid = unsigned(WARP ? ceil_div(rows, threads / lanes) : rows);
  if constexpr (WARP) {
    if (nv == 2 && lanes == 16) {  // two rows a warp, two vectors a lane
      row_cached_kernel<T, VEC, 2, true, OP, 16><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      FW_CHECK_LAUNCH();
      return;
    }
    if (nv == 1 && lanes < 32) {  // short rows: one vector a lane
      auto go = [&](auto lc) {
        row_cached_kernel<T, VEC, 1, true, OP, decltype(lc)::value>
            <<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      };
      if (lanes == 4) go(std::integral_constant<int, 4>{});
      else if (lanes == 8) go(std::integral_constant<int, 8>{});
      else if (lanes == 16) go(std::integral_constant<int, 16>{});
      else throw std::invalid_argument("row_cached: bad lanes a row");
      FW_CHECK_LAUNCH();
      return;
    }
  }
  if constexpr (!WARP && op_has_weight(OP) && sizeof(T) == 4 && VEC == 4) {
    // fp32 blocks of 128 / 256 threads (rows of 1025..4096): hoisted loads still leave 8 / 4 blocks a SM.
    if (nv == 4 && threads <= 256) {
      row_cached_kernel<T, 4, 4, false, OP, 32, true><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      FW_CHECK_LAUNCH();
      return;
    }
  }
  // Tiles pick_cached never chooses (warp: > 32 elements per lane; block: > 16 per thread, or > 32 where
  // wide) are not instantiated.
  constexpr int kMaxElems = WARP || kWideBlock<T, OP> ? 32 : 16;
  if (nv * VEC > kMaxElems) throw std::invalid_argument("row_cached: register tile too large");
  switch (nv) {
    case 1:
      if constexpr (1 * VEC <= kMaxElems)
        row_cached_kernel<T, VEC, 1, WARP, OP><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      break;
    case 2:
      if constexpr (2 * VEC <= kMaxElems)
        row_cached_kernel<T, VEC, 2, WARP, OP><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      break;
    case 3:  // the warp path's only (pick_cached)
      if constexpr (WARP && 3 * VEC <= kMaxElems)
        row_cached_kernel<T, VEC, 3, WARP, OP><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      else
        throw std::invalid_argument("row_cached: three vectors a thread on the block path");
      break;
    case 4:
      if constexpr (WARP && kRowHold<T, VEC, 4, OP> == RowHold::raw) {
        if (int64_t(grid) <= kWarpWideBlocks * int64_t(sm_count())) {  // one wave at six blocks a SM (kRowHold)
          row_cached_kernel<T, VEC, 4, true, OP, 32, true, RowHold::widened>
              <<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
          break;
        }
      }
      if constexpr (4 * VEC <= kMaxElems)
        row_cached_kernel<T, VEC, 4, WARP, OP><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      break;
    case 8:
      if constexpr (8 * VEC <= kMaxElems)
        row_cached_kernel<T, VEC, 8, WARP, OP><<<grid, threads, 0, stream>>>(x, y, w, b, rows, int(cols), eps);
      break;
    default: throw std::invalid_argument("row_cached: bad register tile");
  }
  FW_CHECK_LAUNCH();
}

inline std::size_t row_apply_workspace_bytes(int64_t rows, int64_t cols) {
  return row_reduce_workspace_bytes(rows, cols);
}

// x, y: [rows, cols]; w, b: [cols] or nullptr (as the op needs).
template <class T, RowOp OP>
void launch_row_apply(const T* x, T* y, const T* w, const T* b, int64_t rows, int64_t cols, float eps, void* ws,
                      std::size_t ws_bytes, cudaStream_t stream) {
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  FW_REQUIRE(cols < (int64_t(1) << 31) - 64, "row too long (2^31 elements)");
  using Ops = StatOps<T, OP>;
  using State = typename Ops::State;
  const RowPlan plan = plan_rows(rows, cols, vec_of<T>(), resident_blocks<row_reduce_kernel<T, Ops>>());
  if (plan.splits > 1) {
    const Ops ops(x, cols);
    launch_row_plan(plan, x, rows, cols, ops, ws, ws_bytes, stream);  // partial states
    row_split_apply_kernel<T, OP><<<unsigned(rows * plan.splits), 256, 0, stream>>>(
        x, y, w, b, cols, plan.chunk, plan.splits, static_cast<const State*>(ws), eps);
    FW_CHECK_LAUNCH();
    return;
  }
  constexpr int VEC = vec_of<T>();
  bool vec_ok = aligned16(x) && aligned16(y) && cols % VEC == 0;
  if (op_has_weight(OP)) vec_ok = vec_ok && aligned16(w);
  if (op_has_bias(OP)) vec_ok = vec_ok && aligned16(b);
  const CachedCfg cfg = pick_cached(rows, cols, vec_ok ? VEC : 1, kWideBlock<T, OP>);
  if (cols <= kCachedMaxCols && cfg.ok) {
    if (vec_ok) {
      if (cfg.warp)
        launch_cached_nv<T, VEC, true, OP>(cfg.nv, cfg.threads, cfg.lanes, x, y, w, b, rows, cols, eps, stream);
      else
        launch_cached_nv<T, VEC, false, OP>(cfg.nv, cfg.threads, cfg.lanes, x, y, w, b, rows, cols, eps, stream);
    } else {
      if (cfg.warp)
        launch_cached_nv<T, 1, true, OP>(cfg.nv, cfg.threads, cfg.lanes, x, y, w, b, rows, cols, eps, stream);
      else
        launch_cached_nv<T, 1, false, OP>(cfg.nv, cfg.threads, cfg.lanes, x, y, w, b, rows, cols, eps, stream);
    }
    return;
  }
  row_looped_kernel<T, OP><<<unsigned(rows), 512, 0, stream>>>(x, y, w, b, cols, eps);
  FW_CHECK_LAUNCH();
}

}  // namespace rowwise
}  // namespace fw
