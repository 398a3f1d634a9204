// Host-side plans of the row-wise families (reduction, norm, loss): how x[rows, cols] is cut over
// 256-thread blocks. Pure C++ (no CUDA), so that the CPU tests check the plans' invariants
// (tests/unit/test_reduce_plans.cpp): a split plan's grid fits the one wave it was planned for (the
// split kernels wait on the whole grid, a cooperative launch), and its partial states fit the workspace
// that the *_workspace_bytes functions size from the shape alone.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/common/ceil_div.hpp"

namespace fw {
namespace rowwise {

constexpr int64_t kMaxJobs = 4096;    // bound on split jobs (>= resident 256-thread blocks of any GPU)
constexpr int64_t kMinChunk = 2048;   // elements per split job: enough loads to hide latency
constexpr int64_t kChunkAlign = 64;   // chunk starts keep the row's 16-byte phase for any dtype
constexpr int kBlock = 256;           // threads of a streaming block
constexpr int kUnroll = 4;            // 16-byte loads in flight a thread on rows of more than 64 vectors

// How x[rows, cols] is cut into jobs: each row into `splits` pieces of `chunk` elements (the last
// shorter), each job reduced by `group` threads (8..256, a power of two; 256/group jobs per block).
// `unroll`: the 16-byte loads a thread keeps in flight, and the kernel compiled for it: 1 when every thread
// holds at most one vector of its row (registers for full occupancy), 2 for rows of 33..64 vectors (a warp
// a row, two vectors a lane: 6 blocks an SM instead of 3), else kUnroll.
struct RowPlan {
  int64_t splits;
  int64_t chunk;
  int group;
  int unroll;
};

// The most splits any plan uses (sizes the workspace from the shape alone).
inline int64_t max_splits(int64_t rows, int64_t cols) {
  if (cols < 2 * kMinChunk || rows * 2 > kMaxJobs) return 1;
  const int64_t a = ceil_div(kMaxJobs, rows), b = ceil_div(cols, kMinChunk);
  return a < b ? a : b;
}

// `resident` = 256-thread blocks of the reduce kernel that fit on the GPU at once. Few long rows are
// split so that ~one wave of blocks is busy; otherwise each row gets the fewest threads (a warp, up to
// a block) that still keep the GPU full, so that no block-level barrier is needed when rows abound.
// Rows of at most 32 vectors (+1 for a misaligned start) get one thread per vector: a group of 8..32
// threads, several rows a warp, the short-row kernel. H100, sum_last bf16 128x128x128 (16 vectors a
// row): a warp a row left half its lanes idle and the 4-deep kernel's 60 registers halved the
// occupancy (ncu: 8.9 us, 42% occupancy, against LibTorch's 5.9 us at 82%).
inline RowPlan plan_rows(int64_t rows, int64_t cols, int vec, int64_t resident) {
  const int64_t bound = max_splits(rows, cols);
  if (bound > 1 && rows * 2 <= resident) {
    int64_t s = resident / rows;  // >= 2; floor: no partial second wave
    if (s > bound) s = bound;
    const int64_t chunk = round_up(ceil_div(cols, s), kChunkAlign);
    return {ceil_div(cols, chunk), chunk, kBlock, kUnroll};
  }
  const int64_t nvec = ceil_div(cols, vec) + (cols % vec != 0 ? 1 : 0);  // a misaligned row spans one more
  if (nvec <= 32) {
    int g = 8;  // >= the scalar head and tail of a row (range_accumulate gives each one thread)
    while (g < nvec) g *= 2;
    return {1, cols, g, 1};
  }
  // 33..64 vectors: the 4-deep kernel held 3 blocks an SM and 2 loads a lane, 24 KiB in flight an SM
  // (H100, sum_last bf16 512x512x512: 78% of the read roof, 0.89x LibTorch).
  if (nvec <= 64) return {1, cols, 32, 2};
  const int64_t warps = resident * (kBlock / 32);
  int g = 32;
  while (g < kBlock && rows * (2 * g / 32) <= warps && nvec >= int64_t(2 * g) * 8) g *= 2;
  return {1, cols, g, kUnroll};
}

// How row_short_kernel (row_engine.cuh) lays out a short aligned row of `nvec` 16-byte vectors (at most
// kShortRowMaxVectors below): `lanes` threads a row (8 or 16), `vectors` each (1, 2, 4 or 8; lane t takes vectors
// t, t + lanes, ...). Few lanes a row with several vectors each: the merge of the lanes' states (shuffles, and
// an exp a lane for log-sum-exp) is paid per row, the loads and exps of the elements are not. H100 (bench_ops
// A/B/A, notes/performance.md, twenty-sixth round), from a warp a row at one vector a lane (two for 33..64) to
// 8 lanes of four vectors (16 of four for 33..64): cross_entropy bf16 256x256x256 23.9 -> 17.0 us, 64x512x512
// 19.3 -> 16.3, logsumexp bf16 256x256x256 17.6 -> 13.9, argmax_last bf16 256x256x256 25.2 -> 17.1, sum_last
// bf16 256x256x256 13.0 -> 12.8.
struct ShortRowShape {
  int lanes;
  int vectors;
};
inline ShortRowShape short_row_shape(int64_t nvec) {
  if (nvec <= 8) return {8, 1};
  if (nvec <= 16) return {8, 2};
  if (nvec <= 32) return {8, 4};
  if (nvec <= 64) return {16, 4};
  return {16, 8};
}
// The longest rows (in 16-byte vectors) the short-row kernel takes past one wave of the 4-deep kernel: 128, 16 lanes
// of up to eight vectors a row (past them, a warp a row with four loads a lane); but 112 for fp32 rows (four elements
// a vector) of a reducer whose state is one float (sum, mean, max, min): short_row_max_vectors.
// H100 (bench_ops A/B, notes/performance.md, thirty-second round): 96 and 112 vectors gained (logsumexp bf16
// 16384x768 12.7 -> 11.3 us, cross_entropy 14.8 -> 13.0, 16384x896 16.0 -> 14.5, argmax_last 17.9 -> 15.2); 128 lost
// then (logsumexp fp32 128x512x512 44.6 -> 46.7 us, sum_last fp32 512x512x512 172.1 -> 175.8). Measured again at
// 083604e, where eight vectors a lane widen their bf16 from whole words (H200 GPU 15b05878, x124, A/E/A/E/A/E,
// medians, us; notes/performance.md, forty-eighth round): 128 gains in 16 bits (bf16 rows of 1024: logsumexp
// 16384x1024 13.49 -> 11.39, 65536x1024 46.21 -> 35.17, cross_entropy 15.39 -> 12.99, argmax_last 20.13 -> 18.05,
// sum_last 10.29 -> 9.54) and in fp32 where the state is more than one float (rows of 512: argmax_last 512x512x512
// 182.6 -> 131.1, cross_entropy 149.5 -> 126.6, logsumexp 135.2 -> 125.8), while fp32 sum_last lost again
// (512x512x512 120.7 -> 122.9, 128x512x512 31.78 -> 31.89): a one-float state merges in five shuffles and adds, and
// the 4-deep kernel's four loads a lane take such a row in one round.
constexpr int64_t kShortRowMaxVectors = 128;
constexpr int64_t kShortRowMaxVectorsOneFloat = 112;  // fp32 rows of a one-float reducer
inline int64_t short_row_max_vectors(int vec, bool one_float_state) {
  return vec == 4 && one_float_state ? kShortRowMaxVectorsOneFloat : kShortRowMaxVectors;
}

// The blocks of a plan's row_reduce_kernel: kBlock / group lanes' groups, a (row, split) job each.
inline int64_t row_plan_blocks(const RowPlan& plan, int64_t rows) {
  return ceil_div(rows * plan.splits, int64_t(kBlock / plan.group));
}

// Whether a plan's rows run in row_short_kernel (launch_row_plan, row_engine.cuh) rather than the plan's
// row_reduce_kernel: unsplit, aligned rows (x 16-byte aligned, `cols` a multiple of the vector) of at most
// `max_vectors` vectors (short_row_max_vectors), when the plan's blocks (row_plan_blocks) take more than one wave of
// its kernel (`plan_resident` blocks). Within one wave each row has its group from the start; past it,
// row_reduce_kernel's blocks retire after their rows where the short-row kernel's resident groups stream on
// (row_short_kernel says what that gained). The short-row kernel lays a row out by short_row_shape; the plan's group
// counts only here.
inline bool takes_short_rows(const RowPlan& plan, int64_t rows, int64_t cols, int vec, bool aligned,
                             int64_t plan_resident, int64_t max_vectors) {
  if (plan.splits != 1 || !aligned || cols % vec != 0 || cols / vec > max_vectors) return false;
  return row_plan_blocks(plan, rows) > plan_resident;
}

// Workspace a split plan may need (16 bytes per partial state: the largest one).
inline std::size_t row_reduce_workspace_bytes(int64_t rows, int64_t cols) {
  const int64_t s = max_splits(rows, cols);
  return s > 1 ? std::size_t(rows * s) * 16 : 0;
}

// Column reductions (x[rows, cols] -> y[cols], reduce_first.cu): 256-thread blocks of bx lanes along the
// columns (one vector of `vec` columns each) x by threads along the rows; gx column blocks x `splits`
// row splits of rows_per_split rows.
struct ColPlan {
  int bx, by;
  int64_t gx, splits, rows_per_split;
};

// Column blocks x row splits. Threads along the rows: the fewest (1, 2, 4) whose column blocks still
// make half a wave of `resident` blocks, else 8 with the rows split over blocks to fill one wave (never
// more: a second, partial wave would idle most of the GPU), each thread keeping >= 8 rows, at most 64
// splits. Few threads along the rows give each thread a long loop and no partial second wave of column
// blocks (H100, bf16 [64, 262144], event-timed: 4 row threads, 512 blocks = 1.3 waves of 396, 19.7 us;
// 2 row threads, 256 blocks, 16.5 us; [512, 262144] 8 row threads 97.0 us, 2 row threads 93.4 us).
inline ColPlan plan_cols(int64_t rows, int64_t cols, int vec, int64_t resident) {
  const int64_t cv = ceil_div(cols, vec);
  int by = 1;
  while (by < 8 && 2 * ceil_div(cv, 256 / by) < resident) by *= 2;
  int bx = 256 / by;
  while (bx > 1 && bx / 2 >= cv) bx /= 2;  // narrow problems: fewer lanes along the columns
  by = 256 / bx;
  const int64_t gx = ceil_div(cv, bx);
  int64_t splits = 1;
  if (2 * gx < resident) {  // the column blocks leave more than half the wave idle: split the rows
    int64_t bound = rows / (int64_t(by) * 8);
    if (bound > 64) bound = 64;
    splits = resident / gx;
    if (splits > bound) splits = bound;
    if (splits < 1) splits = 1;
  }
  const int64_t rps = ceil_div(rows, splits);
  return {bx, by, gx, ceil_div(rows, rps), rps};
}

// The most splits any column plan uses (sizes the workspace from the shape alone).
constexpr int64_t kAnyResident = int64_t(1) << 40;
inline int64_t max_col_splits(int64_t rows, int64_t cols, int vec) {
  return plan_cols(rows, cols, vec, kAnyResident).splits;
}

}  // namespace rowwise
}  // namespace fw
