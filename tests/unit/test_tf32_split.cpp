// The 3xTF32 operand split (kernels/matmul/tf32_split.hpp), on the host (the device runs the same bit
// arithmetic): both parts are TF32 (13 low mantissa bits zero), the pair holds x to 2^-22 |x|, exact TF32
// values split into (x, 0), and the special values (inf, NaN, the largest finite) come out as documented. The
// GEMM kernel's split (tf32_split_truncated_small): the same big part, the exact remainder as small, which the
// tensor cores' TF32 read (truncation) leaves within 2^-21 |x|.
// Pure host code: runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>

#include "kernels/matmul/tf32_split.hpp"

namespace {

using fw::detail::bits_to_f32;
using fw::detail::f32_to_bits;
using fw::detail::tf32_split;
using fw::detail::tf32_split_truncated_small;

bool is_tf32(float v) { return (f32_to_bits(v) & 0x1FFFu) == 0; }

void expect_split_ok(float x) {
  const auto p = tf32_split(x);
  EXPECT_TRUE(is_tf32(p.big)) << x;
  EXPECT_TRUE(is_tf32(p.small)) << x;
  // Relative bounds in the normal range; below, TF32's spacing in the subnormals (2^-136) bounds both.
  const double ax = std::fabs(double(x)), floor = std::ldexp(1.0, -137);
  const double rest = double(x) - double(p.big);
  EXPECT_LE(std::fabs(rest), std::max(std::ldexp(ax, -11), floor)) << x;                  // big is x to TF32
  EXPECT_LE(std::fabs(rest - double(p.small)), std::max(std::ldexp(ax, -22), floor)) << x;  // the pair
}

TEST(Tf32Split, RandomValuesOfEveryMagnitude) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  int checked = 0;
  while (checked < 200000) {
    const float x = bits_to_f32(bits(rng));
    if (!std::isfinite(x)) continue;
    expect_split_ok(x);
    if (HasFailure()) return;
    ++checked;
  }
}

TEST(Tf32Split, NormalOperandsLikeTheBenchmarks) {
  std::mt19937 rng(11);
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (int i = 0; i < 100000 && !HasFailure(); ++i) expect_split_ok(n(rng));
}

TEST(Tf32Split, TieRoundsAwayFromZero) {
  const float x = bits_to_f32(0x3F801000u);  // 1 + 2^-11: halfway between two TF32 values
  EXPECT_EQ(f32_to_bits(tf32_split(x).big), 0x3F802000u);
  EXPECT_EQ(tf32_split(x).small, -std::ldexp(1.0f, -11));
  EXPECT_EQ(f32_to_bits(tf32_split(-x).big), 0xBF802000u);
}

TEST(Tf32Split, ExactTf32ValuesHaveNoSmallPart) {
  for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 0.75f, 1024.0f, std::ldexp(1.0f, -126), std::ldexp(1.0f, -136)}) {
    const auto p = tf32_split(x);
    EXPECT_EQ(f32_to_bits(p.big), f32_to_bits(x)) << x;
    EXPECT_EQ(p.small, 0.0f) << x;
  }
}

TEST(Tf32Split, SpecialValues) {
  const auto inf = tf32_split(INFINITY);
  EXPECT_TRUE(std::isinf(inf.big) && inf.big > 0);
  EXPECT_EQ(inf.small, 0.0f);
  EXPECT_TRUE(std::isinf(tf32_split(-INFINITY).big) && tf32_split(-INFINITY).big < 0);
  // A NaN whose payload is only in the bits TF32 drops must stay a NaN.
  const auto nan = tf32_split(bits_to_f32(0xFF800001u));
  EXPECT_TRUE(std::isnan(nan.big));
  EXPECT_TRUE(is_tf32(nan.big));
  EXPECT_TRUE(std::signbit(nan.big));
  EXPECT_EQ(nan.small, 0.0f);
  // The largest finite fp32 would round to inf: big is its truncation, finite, and the pair still holds it.
  const auto mx = tf32_split(FLT_MAX);
  EXPECT_TRUE(std::isfinite(mx.big));
  EXPECT_TRUE(std::isfinite(mx.small));
  EXPECT_LE(std::fabs(double(FLT_MAX) - double(mx.big) - double(mx.small)), std::ldexp(double(FLT_MAX), -22));
}

// What the tensor cores read of a fp32 operand: its 13 low mantissa bits dropped.
float tf32_read(float v) { return bits_to_f32(f32_to_bits(v) & ~0x1FFFu); }

TEST(Tf32SplitTruncatedSmall, HoldsXTo2ToTheMinus21AsTheTensorCoresReadIt) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<uint32_t> bits;
  std::normal_distribution<float> n(0.0f, 1.0f);
  const double floor = std::ldexp(1.0, -136);  // TF32's spacing in the subnormals
  for (int i = 0; i < 300000 && !HasFailure(); ++i) {
    const float x = i % 2 ? n(rng) : bits_to_f32(bits(rng));
    if (!std::isfinite(x)) continue;
    const auto p = tf32_split_truncated_small(x);
    EXPECT_EQ(f32_to_bits(p.big), f32_to_bits(tf32_split(x).big)) << x;  // the same big part
    EXPECT_EQ(double(p.big) + double(p.small), double(x)) << x;            // small: the exact remainder
    const double ax = std::fabs(double(x));
    EXPECT_LE(std::fabs(double(x) - double(p.big) - double(tf32_read(p.small))), std::max(std::ldexp(ax, -21), floor))
        << x;
  }
}

TEST(Tf32SplitTruncatedSmall, SpecialValues) {
  // inf and NaN: small is NaN, so every product with it (and the row of C) is NaN, as tf32_split's inf · 0.
  const auto inf = tf32_split_truncated_small(INFINITY);
  EXPECT_TRUE(std::isinf(inf.big));
  EXPECT_TRUE(std::isnan(inf.small));
  EXPECT_TRUE(std::isnan(tf32_split_truncated_small(bits_to_f32(0x7FC00000u)).small));
  EXPECT_TRUE(std::isnan(tf32_split_truncated_small(bits_to_f32(0xFF800001u)).small));
  // The largest finite fp32: big is its truncation (finite) and small the exact rest.
  const auto mx = tf32_split_truncated_small(FLT_MAX);
  EXPECT_TRUE(std::isfinite(mx.big) && std::isfinite(mx.small));
  EXPECT_EQ(double(mx.big) + double(mx.small), double(FLT_MAX));
}

}  // namespace
