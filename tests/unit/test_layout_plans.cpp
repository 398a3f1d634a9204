// gather_rows's walk (kernels/layout/layout.hpp, gather_walk): row by row until the gathered rows fill 3/4 of L2;
// then window-major where even a 256-byte slab's pass over all rows (read and written) overfills all of L2 and
// rows are 1-4 KB, in windows of a quarter of L2's worth of table rows; else slab-major with the largest
// power-of-two slab of at least 256 bytes whose pass fills at most half of L2. Pure host code: runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/layout/layout.hpp"

namespace {

using fw::layout::gather_walk;

int64_t slab_of(int64_t rows, int64_t row_bytes, std::size_t l2) {
  return gather_walk(rows, rows, row_bytes, l2).slab_bytes();
}
int64_t window_of(int64_t rows, int64_t row_bytes, std::size_t l2) {
  return gather_walk(rows, rows, row_bytes, l2).window_rows;
}

constexpr std::size_t kH100L2 = std::size_t(50) << 20;  // cudaDevAttrL2CacheSize on the H100 (and H200)

TEST(GatherSlab, TheSuiteShapesOnAnH100) {
  // rows x row bytes -> slab: the very large gathers measured in notes/performance.md, twenty-first round.
  EXPECT_EQ(slab_of(8192, 8192 * 4, kH100L2), 1024);     // 8192^2 fp32
  EXPECT_EQ(slab_of(16384, 4096 * 4, kH100L2), 512);     // 16384x4096 fp32
  EXPECT_EQ(slab_of(4096, 4096 * 4, kH100L2), 2048);     // 4096^2 fp32 (67 MB)
  // 512^3: a 256-byte slab's pass is 134 MB (fp32) and 67 MB (bf16): window-major, a quarter of L2 a window.
  EXPECT_EQ(window_of(262144, 512 * 4, kH100L2), 6400);
  EXPECT_EQ(slab_of(262144, 512 * 4, kH100L2), 0);
  EXPECT_EQ(window_of(262144, 512 * 2, kH100L2), 12800);
  // The GPU test's shape {131075, 256} (bench/layout.cpp): window-major in fp32 (ragged windows and groups);
  // bf16's 512-byte rows stay slab-major (131072x256 bf16 was 3% slower window-major: row_copy.cu).
  EXPECT_EQ(window_of(131075, 256 * 4, kH100L2), 12800);
  EXPECT_EQ(window_of(131075, 256 * 2, kH100L2), 0);
  EXPECT_EQ(slab_of(131075, 256 * 2, kH100L2), 256);
  // 98304 rows: a 256-byte slab's pass (50.3 MB) still fits the 52.4 MB L2, slab-major; 102401 rows do not.
  EXPECT_EQ(window_of(98304, 512 * 4, kH100L2), 0);
  EXPECT_EQ(slab_of(98304, 512 * 4, kH100L2), 256);
  EXPECT_EQ(window_of(102401, 512 * 4, kH100L2), 6400);
  // 65536 rows (256^3 fp32, 128x512x512): a 256-byte slab's pass (34 MB) fits L2, slab-major.
  EXPECT_EQ(slab_of(65536, 256 * 4, kH100L2), 256);
  EXPECT_EQ(window_of(65536, 512 * 4, kH100L2), 0);
  EXPECT_EQ(slab_of(16384, 1544 * 2, kH100L2), 512);     // the GPU test's shape, bf16 (50.6 MB)
  // Row by row: rows that fill at most 3/4 of L2 (34 MB and 25 MB), and the small ones.
  EXPECT_EQ(slab_of(4096, 4096 * 2, kH100L2), 0);
  EXPECT_EQ(slab_of(16384, 768 * 2, kH100L2), 0);
  EXPECT_EQ(slab_of(1024, 1024 * 4, kH100L2), 0);
  EXPECT_EQ(slab_of(0, 4096, kH100L2), 0);
}

TEST(GatherSlab, InvariantsOverShapesAndL2Sizes) {
  for (std::size_t l2 : {std::size_t(4) << 20, std::size_t(40) << 20, kH100L2, std::size_t(126) << 20}) {
    for (int64_t rows : {1, 7, 100, 1000, 4096, 8191, 65536, 262144, 1000003}) {
      for (int64_t row_bytes : {16, 48, 256, 496, 512, 1000, 1024, 3088, 4096, 4112, 6176, 32768, 100000}) {
        for (int64_t vocab : {int64_t(1), rows, 4 * rows + 1}) {
          const std::string where = "rows " + std::to_string(rows) + ", row bytes " + std::to_string(row_bytes) +
                                    ", vocab " + std::to_string(vocab) + ", L2 " + std::to_string(l2);
          const fw::layout::GatherWalk w = gather_walk(rows, vocab, row_bytes, l2);
          const int64_t slab = w.slab_bytes();
          const bool fills = 4 * rows * row_bytes > 3 * int64_t(l2);
          if (row_bytes % 16 != 0 || !fills) {
            EXPECT_EQ(slab, 0) << where;
            EXPECT_EQ(w.window_rows, 0) << where;
            continue;
          }
          // Window-major exactly where a 256-byte slab's pass overfills all of L2, for rows of 1-4 KB: windows of a
          // quarter of L2's worth of table rows, never more than the table.
          const bool windowed = 2 * rows * 256 > int64_t(l2) && row_bytes >= 1024 && row_bytes <= 4096;
          EXPECT_EQ(w.window_rows > 0, windowed) << where;
          if (windowed) {
            EXPECT_EQ(slab, 0) << where;
            EXPECT_EQ(w.window_rows, std::min(vocab, int64_t(l2) / 4 / row_bytes)) << where;
            continue;
          }
          // Row by row only when no allowed slab is shorter than a row: the 256-byte floor is not, and neither is
          // the power of two at or just above a row, whose pass fits half of L2 (so the chosen slab is at least it).
          int64_t row_p2 = 1;
          while (row_p2 < row_bytes) row_p2 *= 2;
          const bool no_shorter_slab = row_bytes <= 256 || 4 * rows * row_p2 <= int64_t(l2);
          EXPECT_EQ(slab == 0, no_shorter_slab) << where;
          if (slab == 0) continue;
          EXPECT_EQ(slab & (slab - 1), 0) << where;  // a power of two
          EXPECT_GE(slab, 256) << where;
          EXPECT_LT(slab, row_bytes) << where;
          if (slab > 256) EXPECT_LE(4 * rows * slab, int64_t(l2)) << where;  // its pass fits half of L2
          EXPECT_GT(4 * rows * (2 * slab), int64_t(l2)) << where;           // the largest that does
        }
      }
    }
  }
}

}  // namespace
