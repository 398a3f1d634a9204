// The reduction plans' invariants (kernels/reduction/plans.hpp), over shapes and GPU sizes: a split plan
// fits one wave of the residency it was planned for (the split kernels wait on the whole grid, so a
// cooperative launch of a larger grid fails), it covers every element exactly once, and its partial
// states fit the workspace that the *_workspace_bytes functions size from the shape alone. Pure host
// code: runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/reduction/plans.hpp"

namespace {

using namespace fw::rowwise;

// Resident 256-thread blocks of GPUs from 1 SM to an H100 / B200 class part, 1..8 blocks an SM.
std::vector<int64_t> residencies() {
  std::vector<int64_t> v;
  for (int64_t sms : {1, 2, 7, 46, 108, 132, 148})
    for (int64_t per_sm : {1, 2, 3, 5, 8}) v.push_back(sms * per_sm);
  return v;
}

std::vector<int64_t> extents() {
  return {1, 2, 3, 7, 8, 16, 31, 64, 100, 128, 255, 256, 512, 1000, 1023, 1024, 2048, 4095, 4096, 4097,
          8192, 16384, 65537, 262144, 1000003, int64_t(1) << 24};
}

std::string where(int64_t rows, int64_t cols, int vec, int64_t resident) {
  return "rows " + std::to_string(rows) + ", cols " + std::to_string(cols) + ", vec " + std::to_string(vec) +
         ", resident " + std::to_string(resident);
}

// f(rows, cols, vec, resident, where) over every shape, vector width and GPU size above.
template <class F>
void for_each_case(F f) {
  for (int64_t rows : extents())
    for (int64_t cols : extents())
      for (int vec : {1, 4, 8})
        for (int64_t resident : residencies()) f(rows, cols, vec, resident, where(rows, cols, vec, resident));
}

TEST(RowPlans, SplitGridFitsOneWaveCoversTheRowAndFitsTheWorkspace) {
  int splits_seen = 0;
  for_each_case([&](int64_t rows, int64_t cols, int vec, int64_t resident, const std::string& at) {
    const RowPlan p = plan_rows(rows, cols, vec, resident);
    ASSERT_GE(p.splits, 1) << at;
    ASSERT_TRUE(p.group >= 8 && p.group <= kBlock && (p.group & (p.group - 1)) == 0) << at;
    if (p.splits == 1) {
      EXPECT_GE(p.chunk, cols) << at;
      return;
    }
    ++splits_seen;
    EXPECT_LE(rows * p.splits, resident) << at << ": the cooperative grid exceeds one wave";
    EXPECT_EQ(p.group, kBlock) << at;
    EXPECT_EQ(p.chunk % kChunkAlign, 0) << at;
    EXPECT_GE(p.chunk * p.splits, cols) << at << ": elements left out";
    EXPECT_LT(p.chunk * (p.splits - 1), cols) << at << ": an empty job";
    EXPECT_LE(std::size_t(rows * p.splits) * 16, row_reduce_workspace_bytes(rows, cols))
        << at << ": partial states past the workspace";
  });
  EXPECT_GT(splits_seen, 1000);  // the grid above does reach the split plans
}

TEST(RowPlans, ShortRowsGetAGroupWideEnoughForTheirVectors) {
  for (int64_t rows : {int64_t(4096), int64_t(1) << 20})
    for (int64_t cols : {1, 3, 8, 64, 100, 256})
      for (int vec : {1, 4, 8}) {
        const RowPlan p = plan_rows(rows, cols, vec, 396);
        const int64_t nvec = fw::ceil_div(cols, vec) + (cols % vec != 0 ? 1 : 0);
        EXPECT_EQ(p.splits, 1);
        if (nvec <= 32) {
          EXPECT_GE(p.group, nvec) << where(rows, cols, vec, 396);
        }
      }
}

// The short-row kernel's layout covers every vector of a row once, with the fewest vectors a lane that its
// lanes (8, or 16 past 32 vectors) allow: lane t takes vectors t, t + lanes, ... below lanes * vectors.
TEST(RowPlans, ShortRowShapeCoversEveryVectorOnce) {
  for (int64_t nvec = 1; nvec <= kShortRowMaxVectors; ++nvec) {
    const ShortRowShape s = short_row_shape(nvec);
    const std::string at = "nvec " + std::to_string(nvec);
    EXPECT_EQ(s.lanes, nvec <= 32 ? 8 : 16) << at;
    EXPECT_TRUE(s.vectors == 1 || s.vectors == 2 || s.vectors == 4 || s.vectors == 8) << at;
    EXPECT_GE(int64_t(s.lanes) * s.vectors, nvec) << at << ": vectors left out";
    if (s.vectors > 1) {
      EXPECT_LT(int64_t(s.lanes) * (s.vectors / 2), nvec) << at << ": fewer vectors a lane would do";
    }
    std::vector<int> seen(size_t(nvec), 0);
    for (int t = 0; t < s.lanes; ++t)
      for (int v = 0; v < s.vectors; ++v)
        if (t + v * s.lanes < nvec) ++seen[size_t(t + v * s.lanes)];
    for (int64_t k = 0; k < nvec; ++k) EXPECT_EQ(seen[size_t(k)], 1) << at << ", vector " << k;
  }
}

// How long a row the short-row kernel takes: 128 vectors, but 112 for fp32 rows (four elements a vector) of a
// reducer whose state is one float (plans.hpp says why).
TEST(RowPlans, ShortRowLengthBoundIsLowerForOneFloatFp32Reducers) {
  EXPECT_EQ(short_row_max_vectors(8, false), 128);
  EXPECT_EQ(short_row_max_vectors(8, true), 128);
  EXPECT_EQ(short_row_max_vectors(4, false), 128);
  EXPECT_EQ(short_row_max_vectors(4, true), 112);
  EXPECT_EQ(short_row_shape(kShortRowMaxVectors).lanes * short_row_shape(kShortRowMaxVectors).vectors,
            kShortRowMaxVectors);  // the longest row fills the widest layout
}

// Which rows the short-row kernel takes (takes_short_rows): aligned rows of up to `max_vectors` vectors whose plan
// takes more than one wave of its kernel; never a split plan, a misaligned row, a row not whole in vectors, a row of
// max_vectors + 1 vectors, or rows that one wave holds.
TEST(RowPlans, ShortRowKernelTakesAlignedShortRowsPastOneWave) {
  constexpr int64_t kResident = 396;  // 256-thread blocks of the plan's kernel at once (an H100's 132 SMs x 3)
  for (int vec : {4, 8})
    for (bool one_float : {false, true}) {
      const int64_t max_vectors = short_row_max_vectors(vec, one_float);
      for (int64_t nvec = 1; nvec <= kShortRowMaxVectors + 8; ++nvec) {
        const int64_t cols = nvec * vec, rows = int64_t(1) << 20;
        const std::string at = "nvec " + std::to_string(nvec) + ", vec " + std::to_string(vec) +
                               (one_float ? ", one float" : "");
        const RowPlan p = plan_rows(rows, cols, vec, kResident);
        const bool past_a_wave = fw::ceil_div(rows, int64_t(kBlock / p.group)) > kResident;
        ASSERT_TRUE(past_a_wave) << at;
        const bool short_rows = takes_short_rows(p, rows, cols, vec, true, kResident, max_vectors);
        EXPECT_EQ(short_rows, nvec <= max_vectors) << at;
        EXPECT_FALSE(takes_short_rows(p, rows, cols, vec, false, kResident, max_vectors)) << at << ", misaligned";
        EXPECT_FALSE(takes_short_rows(p, rows, cols + 1, vec, true, kResident, max_vectors)) << at << ", cols + 1";
        // As many rows as one wave of the plan's groups holds: the plan's own kernel.
        const int64_t wave_rows = kResident * (kBlock / p.group);
        EXPECT_FALSE(takes_short_rows(p, wave_rows, cols, vec, true, kResident, max_vectors)) << at << ", one wave";
        EXPECT_EQ(takes_short_rows(p, wave_rows + 1, cols, vec, true, kResident, max_vectors), nvec <= max_vectors)
            << at << ", one wave and a row";
      }
    }
  // A split plan is the split kernels' (plan_rows splits only rows of 4096 elements or more, past the short-row
  // kernel's length; a plan split over short rows is built here).
  const RowPlan split{2, 64, kBlock, kUnroll};
  EXPECT_FALSE(takes_short_rows(split, int64_t(1) << 20, 128, 8, true, kResident, kShortRowMaxVectors));
}

// The GPU tests' shapes for the 16-lane, eight-vector layout (bench's eight_vector_row_shapes, run by test_kernels and
// test_special_vs_torch) reach it in every dtype, up to 112 vectors and past it: for each vector width, some shape of
// whole 16-byte vectors, 65..112 of them and 113..kShortRowMaxVectors, in more rows than one wave of the 4-deep kernel
// holds on a 132-SM GPU (its reducers use 40-68 registers, ptxas for sm_90a: at most six 256-thread blocks an SM),
// and (fp32) the 4-deep kernel for a one-float reducer past 112.
TEST(RowPlans, EightVectorTestShapesReachTheEightVectorLayout) {
  constexpr int64_t kResident = 132 * 6;
  for (int vec : {4, 8}) {  // fp32; bf16 and fp16
    bool reached = false, reached_past_112 = false, one_float_past_112_kept_out = false;
    for (const opbench::Shape& s : opbench::bench::eight_vector_row_shapes()) {
      const int64_t rows = s.at(0), cols = s.at(1);
      if (cols % vec != 0) continue;
      const int64_t nvec = cols / vec;
      const ShortRowShape shape = short_row_shape(nvec);
      const RowPlan p = plan_rows(rows, cols, vec, kResident);
      const bool eight = shape.lanes == 16 && shape.vectors == 8 &&
                         takes_short_rows(p, rows, cols, vec, true, kResident, short_row_max_vectors(vec, false));
      const bool past_112 = nvec > kShortRowMaxVectorsOneFloat;
      reached = reached || (eight && !past_112);
      reached_past_112 = reached_past_112 || (eight && past_112);
      if (vec == 4 && past_112 && nvec <= kShortRowMaxVectors)
        one_float_past_112_kept_out =
            one_float_past_112_kept_out ||
            !takes_short_rows(p, rows, cols, vec, true, kResident, short_row_max_vectors(vec, true));
    }
    EXPECT_TRUE(reached) << "no shape of 65..112 vectors reaches the eight-vector layout at " << vec
                         << " elements a vector";
    EXPECT_TRUE(reached_past_112) << "no shape of 113..128 vectors reaches it at " << vec << " elements a vector";
    if (vec == 4) EXPECT_TRUE(one_float_past_112_kept_out) << "no fp32 shape past 112 vectors for one-float reducers";
  }
}

TEST(ColPlans, SplitGridFitsOneWaveCoversTheRowsAndFitsTheWorkspace) {
  int splits_seen = 0;
  for_each_case([&](int64_t rows, int64_t cols, int vec, int64_t resident, const std::string& at) {
    const ColPlan p = plan_cols(rows, cols, vec, resident);
    ASSERT_EQ(p.bx * p.by, 256) << at;
    ASSERT_GE(p.bx, 1) << at;
    EXPECT_GE(p.gx * p.bx * vec, cols) << at << ": columns left out";
    EXPECT_LT((p.gx - 1) * p.bx * vec, cols) << at << ": an empty column block";
    ASSERT_GE(p.splits, 1) << at;
    EXPECT_LE(p.splits, 64) << at;
    EXPECT_GE(p.splits * p.rows_per_split, rows) << at << ": rows left out";
    EXPECT_LT((p.splits - 1) * p.rows_per_split, rows) << at << ": an empty split";
    if (p.splits == 1) return;
    ++splits_seen;
    EXPECT_LE(p.gx * p.splits, resident) << at << ": the cooperative grid exceeds one wave";
    EXPECT_LE(p.splits, max_col_splits(rows, cols, vec)) << at << ": partial states past the workspace";
  });
  EXPECT_GT(splits_seen, 1000);
}

// No partial second wave of column blocks where wider blocks (fewer threads along the rows, each
// running further down them) still make half a wave; no idle half-wave where narrower blocks fill it.
TEST(ColPlans, ColumnBlocksExceedOneWaveOnlyWhenEachThreadRunsDownAllRows) {
  for_each_case([&](int64_t rows, int64_t cols, int vec, int64_t resident, const std::string& at) {
    const ColPlan p = plan_cols(rows, cols, vec, resident);
    if (p.by > 1) EXPECT_LE(p.gx, resident) << at << ": " << p.by << " row threads, " << p.gx << " blocks";
    if (p.by < 8) EXPECT_GE(2 * p.gx, resident) << at << ": " << p.by << " row threads, " << p.gx << " blocks";
  });
  // bf16 [64, 512 x 512] on the H100 (396 resident blocks of the two column kernels): 2 threads along the
  // rows, 256 blocks of 128 vectors, one launch without splits.
  const ColPlan h100 = plan_cols(64, 262144, 8, 396);
  EXPECT_EQ(h100.by, 2);
  EXPECT_EQ(h100.gx, 256);
  EXPECT_EQ(h100.splits, 1);
}

}  // namespace
