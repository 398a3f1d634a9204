// pow(x, y) for fp32 results, x positive, normal and finite, y finite: within 0.51 ulp of the exact value (the
// correctly rounded fp32 result, or its neighbour where the exact value lies within 2^-31 relatively of a midpoint).
// Plain C++ for host and device alike, so that the host evaluates it bit for bit as the GPU does: every operation is
// an IEEE double operation rounded to nearest (products and sums that would fuse are written as fma), a conversion, or
// an integer operation. tests/unit/test_pow_f32.cpp checks it on the host against powl; tests/gpu/test_short_math.cpp
// checks that the GPU gives the host's bits.
//
// Why: powf (CUDA's, which LibTorch's pow calls too) spends 60-120 instructions an element in float-float arithmetic;
// pow fp32 ran at 82-87% of the copy roof on the H200 with it, both sides (report at c7de0dc: 4096^2 56.0 us). This
// path is ~56 instructions an element (sm_90a SASS, the map kernel's packet of four, tested per packet: engine.cuh,
// guarded_of), 24 of them double operations and conversions (half the fp32 rate on the H100 / H200), and two table
// reads (shared memory). H200, bench_ops A/B (x117-x119; notes/performance.md, forty-sixth round): 4096^2 55.3 ->
// 48.1 us (82% -> 95% of the copy roof) with the tables read through the read-only cache, 46.5 (the copy roof) with
// them in shared memory; 8192^2 215 -> 188 -> 183. With the tables read from global memory, grids of one packet a
// thread up to 1M elements lost 0.4-0.7 us to powf (256^2 2.08 -> 2.66, 1024^2 5.8 -> 6.4): about half was the
// tables' first touch after the inputs, twice (an L2 flushed before every timed run serves it from DRAM), which the
// copy to shared memory overlaps with the inputs' loads (256^2 2.43-2.53, 1024^2 5.8-6.0); the rest is each element's
// longer chain (with the L2 warm, 256^2 1.98 against powf's 1.62), so that those grids take powf (binary.cu,
// pow_fp32_in_double). A prefetch of the tables by every thread before its loads (CCTL.E.PF1) made them 1.3-3x slower
// and was dropped.
//
// log2(x): x = 2^k z with z in [a, 2a), a = 0.69921875 (kLogOffset; k and z from the bits), in 16 subintervals i of
// z. r = z invc_i - 1 (one fma, rounded once), log2(x) = k + logc_i + P(r) with logc_i = -log2(invc_i) and P the
// Taylor polynomial of log2(1 + r) of degree 7 (pow_f32_tables.hpp, values rounded once to double). |r| <= 2^-5 (a
// subinterval's half-width over its centre: 2^-6 / 0.7 below 1, 2^-5 / 1 above), so P's truncation is at most
// |r|^7 / 8 <= 2^-38 of log2(1 + r) relatively, and |r|^8 / (8 ln2) <= 2^-42.5 absolutely. The subinterval that holds
// 1 has invc = 1 and logc = 0, so near x = 1 log2(x) = P(r) keeps the relative bound (no table value to cancel);
// elsewhere |log2(x)| >= log2(1.0234) > 2^-4.9, so the absolute bound is 2^-37.6 of it. The roundings (r, the fma
// chain, logc, the sum with k, the product with y) add a few 2^-53. So t = y log2(x) is within 2^-37.5 |t|.
//
// exp2(t): t clamped to [-151, 151] (2^-151 rounds to +0 in fp32 and 2^151 to inf, as powf's results beyond them do
// for positive x and finite y). t = ki / 32 + r', ki the integer nearest 32 t (in the low bits of t + 1.5 2^47, one
// DADD), |r'| <= 1/64 and exact. 2^t = 2^(ki/32) Q(r'): 2^(ki/32) is the table's 2^(j/32), j = ki mod 32, with ki >> 5
// added to its exponent (one integer add of ki << 47), and Q the Taylor polynomial of 2^r' of degree 4, truncation
// (ln2 / 64)^5 / 5! <= 2^-39.5.
//
// In all, for a normal result (|t| < 128) the value before the final rounding is within ln2 2^-37.5 128 + 2^-39.5 <
// 2^-31 of x^y relatively: 2^-7 ulp at most, so the stored result is within 0.508 ulp (subnormal results, t down to
// -151, within 2^-8 of their ulp more than half of it). Measured on the host over 1.75 million inputs (every binade of
// x, y log2(x) across the range, the subinterval edges near its ends): at most 0.5039 ulp; the same check with P of
// degree 6 reaches 0.67 ulp and fails.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/elementwise/pow_f32_tables.hpp"

#if defined(__CUDACC__)
#define FW_POW32_HD __host__ __device__ __forceinline__
#else
#define FW_POW32_HD inline
#endif

namespace fw::ops::pow32 {

// x positive, normal and finite, and y finite (as bits): the inputs `fast` evaluates.
FW_POW32_HD bool in_fast(float x, float y) {
  uint32_t ix, iy;
  std::memcpy(&ix, &x, 4);
  std::memcpy(&iy, &y, 4);
  return ix - 0x00800000u < 0x7f800000u - 0x00800000u && (iy & 0x7fffffffu) < 0x7f800000u;
}

enum Poly { kLogPoly, kExpPoly };
template <Poly P>
constexpr int kDegree = P == kLogPoly ? int(sizeof(Polys::log_poly) / 8) : int(sizeof(Polys::exp_poly) / 8);

// Reads the tables and coefficients: the host's constexpr copies, or the device's (below).
struct HostTables {
  void log_entry(int i, double& invc, double& logc) const {
    invc = kTables.log[i][0];
    logc = kTables.log[i][1];
  }
  uint64_t exp2(int j) const { return kTables.exp2[j]; }
  template <Poly P, int D>
  double coef() const {
    return P == kLogPoly ? kPolys.log_poly[D] : kPolys.exp_poly[D];
  }
};
#if defined(__CUDACC__)
// The lookups' source in global memory (the map kernel copies them to shared memory: SharedTables), and the
// coefficients in constant memory, so that each is an operand of its DFMA (as literals they took two UMOVs each: 74
// instructions an element on the one-element path against 63, sm_90a SASS).
__device__ const Tables kDeviceTables = kTables;
__constant__ Polys kDevicePolys = kPolys;
// The tables as the map kernel copies them to shared memory, each block while its inputs load (engine.cuh,
// tables_of): LDS with 32-bit addresses, and no first touch of global memory after the inputs.
struct SharedTables {
  const Tables* t;
  __device__ void log_entry(int i, double& invc, double& logc) const {
    const double2 e = *reinterpret_cast<const double2*>(t->log[i]);
    invc = e.x;
    logc = e.y;
  }
  __device__ uint64_t exp2(int j) const { return t->exp2[j]; }
  template <Poly P, int D>
  __device__ double coef() const {
    return P == kLogPoly ? kDevicePolys.log_poly[D] : kDevicePolys.exp_poly[D];
  }
};
#endif

// sum_{d >= D} c_d r^(d - D) by Horner's rule, c_d the polynomial's coefficient d.
template <Poly P, int D, class Read>
FW_POW32_HD double horner(double r, const Read& read) {
  const double c = read.template coef<P, D>();
  if constexpr (D + 1 == kDegree<P>) {
    return c;
  } else {
    return ::fma(horner<P, D + 1>(r, read), r, c);
  }
}

template <class Read>
FW_POW32_HD float fast(float x, float y, const Read& read) {
  // log2(x)
  uint32_t ix;
  std::memcpy(&ix, &x, 4);
  const uint32_t tmp = ix - kLogOffset;
  const int i = int((tmp >> (23 - kLogBits)) & ((1u << kLogBits) - 1));
  const uint32_t top = tmp & 0xff800000u;
  const uint32_t iz = ix - top;
  float zf;
  std::memcpy(&zf, &iz, 4);
  const int k = int32_t(top) >> 23;
  double invc, logc;
  read.log_entry(i, invc, logc);
  const double r = ::fma(double(zf), invc, -1.0);
  const double l = ::fma(horner<kLogPoly, 0>(r, read), r, logc + double(k));
  // exp2(t), t = y log2(x)
  double t = double(y) * l;
  t = t < -151.0 ? -151.0 : t;  // t is finite: no NaN to keep (fmin / fmax took four more instructions)
  t = t > 151.0 ? 151.0 : t;
  constexpr double kShift = 0x1.8p52 / (1 << kExpBits);
  const double kd = t + kShift;
  uint64_t ik;
  std::memcpy(&ik, &kd, 8);
  const double rr = t - (kd - kShift);
  const uint64_t sbits = read.exp2(int(ik & ((1u << kExpBits) - 1))) + (ik << (52 - kExpBits));
  double s;
  std::memcpy(&s, &sbits, 8);
  return float(s * ::fma(horner<kExpPoly, 0>(rr, read), rr, 1.0));
}

}  // namespace fw::ops::pow32

#undef FW_POW32_HD
