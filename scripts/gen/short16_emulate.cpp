// Developer tool for ops.cuh's short16 evaluations, each checked on the host over every fp16 and bf16 input against
// the function in double, rounded once (the device: tests/gpu/test_short_math.cpp):
// - sincos: fits its polynomials, then emulates the evaluation exactly (inf and NaN: NaN);
// - softplus: emulated with MUFU.EX2 and MUFU.LG2 replaced by exact values moved by their documented bounds, both ways.
//   g++ -O2 -std=c++17 -ffp-contract=off -o /tmp/short16_emulate scripts/gen/short16_emulate.cpp && /tmp/short16_emulate
// -ffp-contract=off keeps each float operation rounded as written: the device code's fmaf, products and sums are
// IEEE operations rounded to nearest, so what is not a MUFU instruction gives the device's bits. Exit 1 if any result
// is more than one ulp from the correctly rounded value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
using ld = long double;

// g(u) ~ sum_k c[k] u^k on [0, U], minimizing max |(p - g) w| (Lawson's iteratively reweighted least squares).
std::vector<double> fit(int terms, ld U, ld (*g)(ld), ld (*w)(ld)) {
  const int n = 2000;
  std::vector<ld> u(n), wt(n, 1.0L / n), c(terms);
  for (int i = 0; i < n; ++i) u[i] = U * (0.5L - 0.5L * cosl(3.14159265358979323846L * (i + 0.5L) / n));
  for (int it = 0; it < 200; ++it) {
    std::vector<std::vector<ld>> A(terms, std::vector<ld>(terms + 1, 0));
    for (int i = 0; i < n; ++i) {
      std::vector<ld> p(terms, 1);
      for (int k = 1; k < terms; ++k) p[k] = p[k - 1] * u[i];
      const ld wi = wt[i] * w(u[i]) * w(u[i]);
      for (int a = 0; a < terms; ++a) {
        for (int b = 0; b < terms; ++b) A[a][b] += wi * p[a] * p[b];
        A[a][terms] += wi * p[a] * g(u[i]);
      }
    }
    for (int a = 0; a < terms; ++a)
      for (int b = a + 1; b < terms; ++b) {
        const ld f = A[b][a] / A[a][a];
        for (int k = a; k <= terms; ++k) A[b][k] -= f * A[a][k];
      }
    for (int a = terms - 1; a >= 0; --a) {
      ld s = A[a][terms];
      for (int k = a + 1; k < terms; ++k) s -= A[a][k] * c[k];
      c[a] = s / A[a][a];
    }
    ld total = 0;
    for (int i = 0; i < n; ++i) {
      ld p = 0;
      for (int k = terms - 1; k >= 0; --k) p = p * u[i] + c[k];
      wt[i] *= fabsl((p - g(u[i])) * w(u[i]));
      total += wt[i];
    }
    for (ld& x : wt) x /= total;
  }
  return std::vector<double>(c.begin(), c.end());
}
// sin r = r (1 + u S(u)) and cos r = 1 + u C(u), u = r^2: an error e in S or C moves the result by about u e
// relatively (cos r >= 0.7 on the interval), hence the weight u.
ld sin_part(ld u) { const ld r = sqrtl(u); return u < 1e-12L ? -1.0L / 6 + u / 120 : (sinl(r) / r - 1) / u; }
ld cos_part(ld u) { const ld r = sqrtl(u); return u < 1e-12L ? -0.5L + u / 24 : (cosl(r) - 1) / u; }
ld weight(ld u) { return u; }

float S1, S2, C1, C2;  // rounded to float, as the device code holds them
const float kRange = 131072.f;  // 2^17: the fast path's range
const float kTwoOverPi = 0.636619772f;  // c = fl(2/pi)
// x c plus these rounds to the nearest integer j in its low bits (1.5 2^23); cos's adds one: the quadrant of x + pi/2.
const float kShiftSin = 12582912.f, kShiftCos = 12582913.f;

float u2f(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint32_t f2u(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

// ops.cuh's short16::sincos, line for line; with wide, sinf / cosf beyond the range (emulated as sin and cos in
// double, rounded to float: within sinf's and cosf's ulp, far below a 16-bit half-ulp).
float short_sincos(float x, bool cos_, bool wide) {
  const float shift = cos_ ? kShiftCos : kShiftSin;
  const float jj = std::fmaf(x, kTwoOverPi, shift);
  const float j = jj - shift;
  const float r = std::fmaf(j, 4.37113883e-08f, std::fmaf(j, -1.57079637f, x));
  const float u = r * r;
  const float s = r * std::fmaf(std::fmaf(S2, u, S1), u, 1.f);
  const float c = std::fmaf(std::fmaf(C2, u, C1), u, 1.f);
  const uint32_t q = f2u(jj);
  const float v = u2f(f2u((q & 1u) ? c : s) ^ ((q & 2u) << 30));
  if (wide && !(std::fabs(x) < kRange)) return float(cos_ ? std::cos(double(x)) : std::sin(double(x)));
  return v;
}

struct Format {
  const char* name;
  int mant;     // stored fraction bits
  int min_exp;  // exponent of the smallest normal
  bool wide;    // finite values past the fast range (bf16): ops::Sin / Cos take sinf / cosf there
  double value(uint16_t b) const {
    const int ebits = 15 - mant, bias = (1 << (ebits - 1)) - 1;
    const int s = b >> 15, e = (b >> mant) & ((1 << ebits) - 1), m = b & ((1 << mant) - 1);
    if (e == (1 << ebits) - 1) return m ? NAN : (s ? -INFINITY : INFINITY);
    const double v = e ? std::ldexp(double((1 << mant) + m), e - bias - mant) : std::ldexp(double(m), 1 - bias - mant);
    return s ? -v : v;
  }
  double ulp(double a) const {  // the spacing of the format at |a|
    int e;
    std::frexp(std::fabs(a), &e);
    return std::ldexp(1.0, std::max(e - 1, min_exp) - mant);
  }
  // round to nearest even, on the ordered line of the format's values
  uint16_t round(double d) const {
    if (std::isnan(d)) return 0x7fff;
    int lo = -(((1 << (15 - mant)) - 1) << mant), hi = -lo;  // -inf .. +inf
    auto at = [&](int o) { return o < 0 ? uint16_t(0x8000 | -o) : uint16_t(o); };
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      (value(at(mid)) <= d ? lo : hi) = mid;
    }
    const double a = value(at(lo)), b = value(at(hi));
    if (std::isinf(b) && d - a < (a - value(at(lo - 1))) / 2) return at(lo);
    if (d - a < b - d || (d - a == b - d && !(at(lo) & 1))) return at(lo);
    return at(hi);
  }
};
// ops.cuh's short16::softplus, line for line, with ex2 and lg2 moved by their bounds: ex2 relatively by e2 2^-22
// (results below 2^-126 flushed), lg2 absolutely by l2 2^-22 (types.cuh).
float short_softplus(float x, int e2, int l2) {
  const double e = std::exp2(double(std::fmaf(std::fabs(x), -1.44269504f, 32.f)));
  const float t = float(e < 0x1p-126 ? 0.0 : e * (1 + e2 * 0x1p-22)) * 0x1p-32f;
  const float series = t * std::fmaf(std::fmaf(std::fmaf(-0.25f, t, 0.333333343f), t, -0.5f), t, 1.f);
  const float lg = float(std::log2(double(1.f + t)) + l2 * 0x1p-22);
  const float l = t < 0x1p-4f ? series : 0.693147181f * lg;
  return std::fmax(x, 0.f) + l;
}
int ordered(uint16_t b) { return (b & 0x8000) ? -int(b & 0x7fff) : int(b & 0x7fff); }
}  // namespace

int main() {
  const ld pi = 3.14159265358979323846264338327950288L;
  // |r| <= pi/4 + (2^17 |fl(2/pi) - 2/pi|) pi/2; fitted to pi/4 + 2^-7.
  const ld bound = pi / 4 + kRange * fabsl(ld(kTwoOverPi) - 2 / pi) * pi / 2;
  const ld U = powl(pi / 4 + 0x1p-7L, 2);
  const auto s = fit(2, U, sin_part, weight), c = fit(2, U, cos_part, weight);
  S1 = float(s[0]), S2 = float(s[1]), C1 = float(c[0]), C2 = float(c[1]);
  std::printf("S1 %.9e S2 %.9e C1 %.9e C2 %.9e\n", S1, S2, C1, C2);
  ld es = 0, ec = 0;
  for (int i = 1; i <= 100000; ++i) {
    const ld r = (pi / 4 + 0x1p-7L) * i / 100000, u = r * r;
    es = std::max(es, fabsl(r * (1 + u * (S1 + u * ld(S2))) / sinl(r) - 1));
    ec = std::max(ec, fabsl((1 + u * (C1 + u * ld(C2))) / cosl(r) - 1));
  }
  std::printf("|r| bound %.6Lf (fit to %.6Lf); polynomials' relative error: sin %.3Le, cos %.3Le\n", bound,
              pi / 4 + 0x1p-7L, es, ec);
  std::printf("|fl(2/pi) - 2/pi| = %.3Le, |pi/2 - P1 - P2| = %.3Le\n", fabsl(ld(kTwoOverPi) - 2 / pi),
              fabsl(pi / 2 - ld(1.57079637f) + ld(4.37113883e-08f)));
  int bad_total = 0;
  const Format formats[] = {{"bf16", 7, -126, true}, {"fp16", 10, -14, false}};
  for (const Format& f : formats)
    for (bool cos_ : {false, true}) {
      int bad = 0, one = 0;
      double worst = 0, worst_x = 0, rmin = 1e9;
      for (int i = 0; i < 65536; ++i) {
        const double xd = f.value(uint16_t(i));
        const float x = float(xd);
        if (!std::isfinite(xd)) {  // inf and NaN: NaN, on fp16's fast path too
          const float y = short_sincos(x, cos_, f.wide);
          if (!std::isnan(y) && ++bad <= 3) std::printf("  %s x = %g: %g, not NaN\n", f.name, x, y);
          continue;
        }
        const double ref = cos_ ? std::cos(xd) : std::sin(xd);
        const float y = short_sincos(x, cos_, f.wide);
        if (std::fabs(x) < kRange) {
          const float js = std::fmaf(x, kTwoOverPi, kShiftSin);  // sin's shifted product
          const float j = js - kShiftSin;
          // cos shifts by 1.5 2^23 + 1 (one FMA for j + 1): the same j, and the quadrant one on, as long as x c is
          // never a half-integer before rounding (x c = k + 1/2 needs |x| >= 2^23 for an 11-bit x and a 24-bit c).
          const float jc = std::fmaf(x, kTwoOverPi, kShiftCos);
          if (cos_ && (jc - kShiftCos != j || f2u(jc) != f2u(js) + 1u) && ++bad <= 3)
            std::printf("  %s x = %.9g: cos's shifted reduction differs\n", f.name, x);
          if (j != 0) rmin = std::min(rmin, std::fabs(double(std::fmaf(j, 4.37113883e-08f, std::fmaf(j, -1.57079637f, x)))));
          const double e = std::fabs(double(y) - ref) / f.ulp(ref);
          if (e > worst) worst = e, worst_x = x;
        }
        const int d = std::abs(ordered(f.round(ref)) - ordered(f.round(y)));
        if (d > 1 && ++bad <= 3) std::printf("  %s %s x = %.9g: %.9g, exact %.9g\n", f.name, cos_ ? "cos" : "sin", x, y, ref);
        one += d == 1;
      }
      bad_total += bad;
      std::printf("%s %s: %d off by more than one ulp, %d by one; fp32 result at most %.4f ulp of %s from the exact "
                  "value (x = %.9g); smallest |r| with j != 0: %.3g\n",
                  f.name, cos_ ? "cos" : "sin", bad, one, worst, f.name, worst_x, rmin);
    }
  for (const Format& f : formats) {
    int bad = 0, one = 0;
    double worst = 0, worst_x = 0;
    for (int i = 0; i < 65536; ++i) {
      const double xd = f.value(uint16_t(i));
      const float x = float(xd);
      const double ref = std::isnan(xd) ? NAN : xd > 20 ? xd : std::log1p(std::exp(xd));  // torch: x > 20 -> x
      for (int e2 : {-1, 1})
        for (int l2 : {-1, 1}) {
          const float y = short_softplus(x, e2, l2);
          bool ok;
          if (std::isnan(ref) || std::isinf(ref)) {
            ok = std::isnan(ref) ? std::isnan(y) : y == ref;
          } else {
            const int d = std::abs(ordered(f.round(ref)) - ordered(f.round(y)));
            ok = d <= 1;
            one += d == 1;
            const double e = std::fabs(double(y) - ref) / f.ulp(ref);
            if (e > worst) worst = e, worst_x = x;
          }
          if (!ok && ++bad <= 3) std::printf("  %s softplus x = %.9g: %.9g, exact %.9g\n", f.name, x, y, ref);
        }
    }
    bad_total += bad;
    std::printf("%s softplus (each input with ex2 and lg2 off by their bounds both ways): %d off by more than one "
                "ulp, %d by one; fp32 result at most %.4f ulp of %s from the exact value (x = %.9g)\n",
                f.name, bad, one, worst, f.name, worst_x);
  }
  return bad_total ? 1 : 0;
}
