// gather_rows's walk (kernels/layout/layout.hpp, gather_slab_bytes): row by row until the gathered rows fill
// 3/4 of L2, then slab-major with the largest power-of-two slab of at least 256 bytes whose pass over all rows
// (read and written) fills at most half of L2. Pure host code: runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/layout/layout.hpp"

namespace {

using fw::layout::gather_slab_bytes;

constexpr std::size_t kH100L2 = std::size_t(50) << 20;  // cudaDevAttrL2CacheSize on the H100 (and H200)

TEST(GatherSlab, TheSuiteShapesOnAnH100) {
  // rows x row bytes -> slab: the very large gathers measured in notes/performance.md, twenty-first round.
  EXPECT_EQ(gather_slab_bytes(8192, 8192 * 4, kH100L2), 1024);     // 8192^2 fp32
  EXPECT_EQ(gather_slab_bytes(16384, 4096 * 4, kH100L2), 512);     // 16384x4096 fp32
  EXPECT_EQ(gather_slab_bytes(4096, 4096 * 4, kH100L2), 2048);     // 4096^2 fp32 (67 MB)
  EXPECT_EQ(gather_slab_bytes(262144, 512 * 4, kH100L2), 256);     // 512^3 fp32: the 256-byte floor
  EXPECT_EQ(gather_slab_bytes(262144, 512 * 2, kH100L2), 256);     // 512^3 bf16
  EXPECT_EQ(gather_slab_bytes(16384, 1544 * 2, kH100L2), 512);     // the GPU test's shape, bf16 (50.6 MB)
  // Row by row: rows that fill at most 3/4 of L2 (34 MB and 25 MB), and the small ones.
  EXPECT_EQ(gather_slab_bytes(4096, 4096 * 2, kH100L2), 0);
  EXPECT_EQ(gather_slab_bytes(16384, 768 * 2, kH100L2), 0);
  EXPECT_EQ(gather_slab_bytes(1024, 1024 * 4, kH100L2), 0);
  EXPECT_EQ(gather_slab_bytes(0, 4096, kH100L2), 0);
}

TEST(GatherSlab, InvariantsOverShapesAndL2Sizes) {
  for (std::size_t l2 : {std::size_t(4) << 20, std::size_t(40) << 20, kH100L2, std::size_t(126) << 20}) {
    for (int64_t rows : {1, 7, 100, 1000, 4096, 8191, 65536, 262144, 1000003}) {
      for (int64_t row_bytes : {16, 48, 256, 1000, 1024, 3088, 4096, 6176, 32768, 100000}) {
        const std::string where = "rows " + std::to_string(rows) + ", row bytes " + std::to_string(row_bytes) +
                                  ", L2 " + std::to_string(l2);
        const int64_t slab = gather_slab_bytes(rows, row_bytes, l2);
        const bool fills = 4 * rows * row_bytes > 3 * int64_t(l2);
        if (row_bytes % 16 != 0 || !fills) {
          EXPECT_EQ(slab, 0) << where;
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

}  // namespace
