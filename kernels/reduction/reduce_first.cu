// Reductions over the first dim: x[rows, cols] -> y[cols] (sum, mean, max, min, argmax).
//
// Coalesced column reduction: a 256-thread block is bx x by threads (bx lanes along the columns,
// each lane owning one 16-byte vector of columns; by threads along the rows). Each thread walks its
// rows with a stride of by, 4 rows in flight (predicated), so a warp reads 512 contiguous bytes per
// row. When the column blocks alone do not fill one wave of resident blocks, the rows are split over
// blockIdx.y (each thread keeping >= 8 rows, at most 64 splits), in one cooperative launch: the blocks
// leave partial states, wait for the whole grid, and combine them per column.
// Scalar lanes (one column each) when x is not 16-byte aligned or cols is not a multiple of the vector.
//
// Bytes: rows*cols*s read + cols*s_out written (+ splits*cols*16 of partials, < 1% at 8192^2): e.g.
// 8192x8192 fp32 sum_first: 268 MB -> ~90 us at ~3.0 TB/s. FLOPs: 1 per element. Memory bound.
// Measured on H100 (8192x8192, L2 flushed, median): sum_first fp32 107.9 us (83% of copy), bf16 64.9 us
// (69%); argmax_first fp32 117.9 us (76%), bf16 76.1 us (59%).
#include "kernels/reduction/kind_dispatch.cuh"
#include "kernels/reduction/plans.hpp"
#include "kernels/reduction/reduction.hpp"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace {

using namespace rowwise;

int vec_for(opbench::DType dt) { return int(16 / opbench::dtype_size(dt)); }

template <class T>
struct ColSum : SumOps {
  T* out;
  float scale;
  __device__ void write(int64_t c, const State& st) const { out[c] = from_float<T>(st.s * scale); }
};
template <class T, bool IS_MIN>
struct ColExt : ExtremumOps<IS_MIN> {
  T* out;
  __device__ void write(int64_t c, const SumState& st) const { out[c] = from_float<T>(st.s); }
};
// argmax down the columns: rows reach each thread in increasing order, so a strictly larger value
// (or the first NaN) replaces the state; i < 0 until the first element. Combines use the full order.
struct ColArgMaxState {
  float v;
  int i;
};
struct ColArgMax {
  using State = ColArgMaxState;
  int64_t* out;
  __device__ __forceinline__ State init(int64_t) const { return {-INFINITY, -1}; }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t idx) const {
    static_assert(N == 1, "one row at a time");
    if (v[0] > st.v || (is_nan(v[0]) && !is_nan(st.v)) || st.i < 0) st = {v[0], int(idx)};
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    return argmax_better(a.v, a.i, b.v, b.i) ? a : b;
  }
  __device__ void write(int64_t c, const State& st) const { out[c] = st.i; }
};

struct ColReducers {  // for with_reducer (kind_dispatch.cuh); logsumexp is a last-dim reduction only
  template <class T>
  using Sum = ColSum<T>;
  template <class T, bool IS_MIN>
  using Ext = ColExt<T, IS_MIN>;
  using ArgMax = ColArgMax;
  static constexpr bool kHasLse = false;
};

constexpr int kRows = 4;  // rows in flight per thread (predicated)

// The block's columns [c0, c0 + VEC) over rows [r0, r1) of its split, combined over the block's row
// threads; the row-0 threads (ty == 0) hand each column's state to store(column, state).
template <class T, int VEC, class R, class Store>
__device__ __forceinline__ void col_block_reduce(const T* __restrict__ x, int64_t rows, int64_t cols,
                                                 int64_t rows_per_split, int bx, const R& red, Store store) {
  using State = typename R::State;
  __shared__ State sm[256][VEC];
  State st[VEC];
  const int tx = threadIdx.x % bx, ty = threadIdx.x / bx, by = blockDim.x / bx;
  const int64_t c0 = (int64_t(blockIdx.x) * bx + tx) * VEC;
  const int64_t r0 = int64_t(blockIdx.y) * rows_per_split;
  const int64_t r1 = (rows - r0 < rows_per_split) ? rows : r0 + rows_per_split;
#pragma unroll
  for (int j = 0; j < VEC; ++j) st[j] = red.init(0);
  if (c0 < cols) {
    const int64_t stride = int64_t(by) * cols;  // elements between a thread's consecutive rows
    const T* p = x + c0 + (r0 + ty) * cols;
    for (int64_t r = r0 + ty; r < r1; r += int64_t(kRows) * by, p += kRows * stride) {
      Packet<T, VEC> raw[kRows];
#pragma unroll
      for (int u = 0; u < kRows; ++u)
        if (r + u * by < r1) raw[u] = load_raw<T, VEC>(p + u * stride);
#pragma unroll
      for (int u = 0; u < kRows; ++u) {
        if (r + u * by < r1) {
          float a[VEC];
          unpack<T, VEC>(raw[u], a);
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            const float va[1] = {a[j]};
            red.add(st[j], va, r + u * by);
          }
        }
      }
    }
  }
#pragma unroll
  for (int j = 0; j < VEC; ++j) sm[threadIdx.x][j] = st[j];
  __syncthreads();
  for (int s = by / 2; s > 0; s >>= 1) {
    if (ty < s) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) sm[threadIdx.x][j] = red.combine(sm[threadIdx.x][j], sm[threadIdx.x + s * bx][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < VEC; ++j) st[j] = sm[tx][j];
  if (int(threadIdx.x) < bx && c0 < cols) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) store(c0 + j, st[j]);
  }
}

// Blocks a SM the one-split kernel is bounded for. Four: the 16-bit vector instances of sum, mean, max and
// min fit 64 registers without spilling (bf16 70 -> 64) and a [16, 1M] bf16 grid of 512 blocks runs in
// one wave (H100, event-timed: 19.2 us at three blocks a SM, 17.3 us at four). argmax keeps three: held to
// 64 registers (from 78) its bf16 instance ran 8% slower (256 x 256 x 256: 18.9 -> 20.5 us).
template <class R>
constexpr int kColMinBlocks = 4;
template <>
constexpr int kColMinBlocks<ColArgMax> = 3;

// One split (gridDim.y == 1): writes y.
template <class T, int VEC, class R>
__global__ void __launch_bounds__(256, kColMinBlocks<R>)
    col_reduce_kernel(const T* __restrict__ x, int64_t rows, int64_t cols, int64_t rows_per_split, int bx, R red) {
  col_block_reduce<T, VEC>(x, rows, cols, rows_per_split, bx, red,
                           [&](int64_t c, const typename R::State& st) { red.write(c, st); });
}

// Column tile `tile` (32 columns) of partials [splits, cols] -> y: 8 threads along the splits a column,
// combined in shared memory (every thread of the block calls it).
template <class R>
__device__ __forceinline__ void finalize_col_tile(const typename R::State* partials, int64_t splits, int64_t cols,
                                                  const R& red, int64_t tile) {
  using State = typename R::State;
  __shared__ State fin[8][32];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const int64_t c = tile * 32 + tx;
  State st = red.init(0);
  if (c < cols)
    for (int64_t k = ty; k < splits; k += 8) st = red.combine(st, partials[k * cols + c]);
  __syncthreads();  // the previous tile's row 0 has read fin
  fin[ty][tx] = st;
  __syncthreads();
  if (ty == 0 && c < cols) {
    for (int k = 1; k < 8; ++k) st = red.combine(st, fin[k][tx]);
    red.write(c, st);
  }
}

// Row splits over blockIdx.y, in one cooperative launch (the plan keeps the grid within one wave): each
// block leaves its partial states in partials[split, cols], the grid waits, then the blocks finalize
// tiles of 32 columns. Saves the second launch and the gap before it (H100, ncu at 9e052cd: the separate
// finalize kernel took 3.9 us of 20.7 on sum_first bf16 4096^2).
template <class T, int VEC, class R>
__global__ void __launch_bounds__(256, 3) col_split_reduce_kernel(const T* __restrict__ x, int64_t rows, int64_t cols,
                                                               int64_t rows_per_split, int bx, R red,
                                                               typename R::State* partials) {
  typename R::State* mine = partials + int64_t(blockIdx.y) * cols;
  col_block_reduce<T, VEC>(x, rows, cols, rows_per_split, bx, red,
                           [&](int64_t c, const typename R::State& st) { mine[c] = st; });
  cooperative_groups::this_grid().sync();
  const int64_t tiles = ceil_div(cols, 32), blocks = int64_t(gridDim.x) * gridDim.y;
  for (int64_t t = int64_t(blockIdx.y) * gridDim.x + blockIdx.x; t < tiles; t += blocks)
    finalize_col_tile(partials, int64_t(gridDim.y), cols, red, t);
}

template <class T, int VEC, class R>
void launch_cols(const T* x, int64_t rows, int64_t cols, const R& red, void* ws, std::size_t ws_bytes,
                 cudaStream_t stream) {
  using State = typename R::State;
  constexpr auto kPlain = col_reduce_kernel<T, VEC, R>;
  constexpr auto kSplit = col_split_reduce_kernel<T, VEC, R>;
  const ColPlan plan = plan_cols(rows, cols, VEC, resident_blocks_of_both<kPlain, kSplit>());
  FW_REQUIRE(plan.gx < (int64_t(1) << 31) && plan.splits < 65536, "shape too large");
  const dim3 grid(unsigned(plan.gx), unsigned(plan.splits));
  if (plan.splits == 1) {
    col_reduce_kernel<T, VEC, R><<<grid, 256, 0, stream>>>(x, rows, cols, plan.rows_per_split, plan.bx, red);
    FW_CHECK_LAUNCH();
    return;
  }
  State* partials = split_workspace<State>(ws, ws_bytes, plan.splits * cols, "the split column reduction");
  launch_cooperative(col_split_reduce_kernel<T, VEC, R>, grid, stream, x, rows, cols, plan.rows_per_split, plan.bx,
                     red, partials);
}

template <class T, class R>
void launch_cols_any(const T* x, int64_t rows, int64_t cols, const R& red, void* ws, std::size_t ws_bytes,
                     cudaStream_t stream) {
  constexpr int VEC = vec_of<T>();
  if (aligned16(x) && cols % VEC == 0)
    launch_cols<T, VEC>(x, rows, cols, red, ws, ws_bytes, stream);
  else
    launch_cols<T, 1>(x, rows, cols, red, ws, ws_bytes, stream);
}

}  // namespace

std::size_t reduce_first_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt) {
  // The larger of the vector and the scalar plans (the launcher picks by alignment), 16 B per state.
  int64_t s = max_col_splits(rows, cols, vec_for(dt));
  const int64_t s1 = max_col_splits(rows, cols, 1);
  if (s1 > s) s = s1;
  return s > 1 ? std::size_t(s * cols) * 16 : 0;
}

void reduce_first(ReduceKind kind, opbench::DType dt, const void* xv, void* yv, int64_t rows, int64_t cols,
                  void* ws, std::size_t ws_bytes, cudaStream_t stream) {
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  FW_REQUIRE(xv != nullptr && yv != nullptr, "null pointer");
  FW_REQUIRE(kind != ReduceKind::logsumexp, "logsumexp is a last-dim reduction here");
  if (kind == ReduceKind::argmax) FW_REQUIRE(rows < (int64_t(1) << 31), "argmax_first: more than 2^31 rows");
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(xv);
    with_reducer<T, ColReducers>(kind, yv, float(1.0 / double(rows)),
                                 [&](auto& r) { launch_cols_any(x, rows, cols, r, ws, ws_bytes, stream); });
  });
}

}  // namespace fw
