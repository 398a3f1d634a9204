// The fp32 pow's evaluation (kernels/elementwise/pow_f32.hpp), run on the host exactly as the GPU runs it (IEEE double
// operations; tests/gpu/test_short_math.cpp checks that the GPU gives these bits), against powl (x87 long double, 64
// significant bits): over bases from every binade of positive normal fp32 numbers, paired with exponents that spread
// y log2(x) over the whole range of fp32 results and past it, with integer and half-integer exponents and with bases
// near 1 raised to large exponents. Every result is within the derived 0.51 ulp of the exact value (the fp32 ulp at the
// exact value; subnormal results within half an ulp plus 2^-20 of one), results past the range are +0 and inf as powf
// gives them, and in_fast takes exactly the positive normal finite bases and the finite exponents.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/elementwise/pow_f32.hpp"

namespace {

namespace pow32 = fw::ops::pow32;
using ld = long double;

float from_bits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

// |got - exact| in units of the fp32 ulp at the exact value (2^-149 below 2^-126).
double ulp_error(float got, ld exact) {
  int e = 0;
  std::frexp(double(exact), &e);  // exact = m 2^e, m in [0.5, 1)
  const ld ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return double(std::fabs(ld(got) - exact) / ulp);
}

struct Case {
  float x, y;
};

std::vector<Case> cases() {
  std::mt19937_64 rng(20261129);
  std::uniform_int_distribution<uint32_t> mant(0, (1u << 23) - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Case> out;
  // Every binade of positive normal x, 64 mantissas each, each with exponents that put y log2(x) uniformly in
  // [-160, 160] (past both ends of fp32's range), and exponents drawn from [-4, 4].
  for (uint32_t e = 1; e < 255; ++e)
    for (int m = 0; m < 64; ++m) {
      const float x = from_bits((e << 23) | mant(rng));
      const double l2 = std::log2(double(x));
      for (int j = 0; j < 48; ++j) {
        const double t = -160.0 + 320.0 * unit(rng);
        if (l2 != 0) out.push_back({x, float(t / l2)});
        out.push_back({x, float(-4.0 + 8.0 * unit(rng))});
      }
    }
  // Integer and half-integer exponents on [2^-8, 2^8]: results that are often exactly representable.
  for (int j = 0; j < 20000; ++j) {
    const float x = std::ldexp(float(1 + (mant(rng) >> 12)) / 2048.f, int(mant(rng) % 17) - 8);
    out.push_back({x, float(int(mant(rng) % 33) - 16) * (j % 2 ? 1.f : 0.5f)});
  }
  // Bases within a few thousand ulp of 1 with exponents up to 2^30 (where log2(x) is tiny and y large: the subinterval
  // with invc = 1), and the subinterval edges of z (kLogOffset + i 2^19) in several binades.
  for (int j = 0; j < 20000; ++j) {
    const int d = int(mant(rng) % 4096) - 2048;
    const float x = from_bits(uint32_t(int32_t(0x3f800000) + d));
    const double l2 = std::log2(double(x));
    if (l2 != 0) out.push_back({x, float((-140.0 + 280.0 * unit(rng)) / l2)});
  }
  // The subinterval edges of z (kLogOffset + i 2^19), where |r| is largest, in several binades, with small exponents
  // and with exponents that put y log2(x) near the ends of the normal range (where the error of log2(x) is magnified
  // most: the polynomial's degree is checked there, next to 1 above all).
  for (uint32_t i = 0; i <= 16; ++i)
    for (int e : {-100, -1, 0, 1, 60})
      for (int d = -64; d <= 64; ++d) {
        const float x = std::ldexp(from_bits(pow32::kLogOffset + (i << 19) + uint32_t(d)), e);
        for (float y : {1.f, -1.f, 0.5f, 3.f, 7.25f, -13.f}) out.push_back({x, y});
        const double l2 = std::log2(double(x));
        if (l2 != 0)
          for (int j = 0; j < 8; ++j) out.push_back({x, float((j % 2 ? 127.9 : -125.9) * (1 - 0.01 * unit(rng)) / l2)});
      }
  return out;
}

TEST(PowF32, WithinItsBoundOfTheExactValue) {
  const std::vector<Case> cs = cases();
  double worst = 0, worst_sub = 0;
  long not_nearest = 0, normal = 0, failures = 0;
  for (const Case& c : cs) {
    ASSERT_TRUE(pow32::in_fast(c.x, c.y)) << c.x << " ** " << c.y;
    const float got = pow32::fast(c.x, c.y, pow32::HostTables{});
    const ld exact = powl(ld(c.x), ld(c.y));
    bool ok;
    if (exact > ld(FLT_MAX) * (1 + 0x1p-25L)) {  // past fp32's largest value by more than half an ulp
      ok = std::isinf(got) && got > 0;
    } else if (exact < 0x1p-150L) {  // under half the smallest subnormal
      ok = got == 0.f && !std::signbit(got);
    } else {
      const double err = ulp_error(got, exact);
      if (exact >= ld(FLT_MIN)) {
        ++normal;
        worst = std::max(worst, err);
        ok = err <= 0.51;
      } else {
        worst_sub = std::max(worst_sub, err);
        ok = err <= 0.5 + 0x1p-20;
      }
      if (got != float(exact)) ++not_nearest;
    }
    if (!ok && ++failures <= 8)
      ADD_FAILURE() << std::hexfloat << "pow(" << c.x << ", " << c.y << ") = " << got << ", powl " << double(exact);
  }
  EXPECT_EQ(failures, 0);
  std::printf("pow fp32: %zu inputs (%ld with normal results): largest error %.6f ulp (subnormal results %.6f); %ld not "
              "the correctly rounded value\n",
              cs.size(), normal, worst, worst_sub, not_nearest);
  EXPECT_GT(normal, 1000000);  // the range the bound is about is covered
}

TEST(PowF32, ExactPowersStayExact) {
  for (int b = 1; b <= 64; ++b)
    for (int n = -8; n <= 8; ++n) {
      const ld exact = powl(ld(b), ld(n));
      if (float(exact) != exact) continue;  // only results fp32 holds exactly
      EXPECT_EQ(pow32::fast(float(b), float(n), pow32::HostTables{}), float(exact)) << b << " ** " << n;
    }
  EXPECT_EQ(pow32::fast(4.f, 0.5f, pow32::HostTables{}), 2.f);
  EXPECT_EQ(pow32::fast(123.f, 0.f, pow32::HostTables{}), 1.f);
  EXPECT_EQ(pow32::fast(1.f, 1e30f, pow32::HostTables{}), 1.f);
}

TEST(PowF32, InFastTakesPositiveNormalFiniteBasesAndFiniteExponents) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (float x : {FLT_MIN, 1.f, 0.7f, 3e38f, FLT_MAX}) {
    EXPECT_TRUE(pow32::in_fast(x, 2.f)) << x;
    EXPECT_TRUE(pow32::in_fast(x, -FLT_MAX)) << x;
    for (float y : {inf, -inf, nan}) EXPECT_FALSE(pow32::in_fast(x, y)) << x << " ** " << y;
  }
  for (float x : {0.f, -0.f, FLT_MIN / 2, FLT_TRUE_MIN, -1.f, -FLT_MIN, inf, -inf, nan})
    EXPECT_FALSE(pow32::in_fast(x, 2.f)) << x;
}

}  // namespace
