// An fp32 value as the sum of two TF32 values, the operands of the 3xTF32 product (gemm_tf32x3.cu): x = big
// + small + r, where big is x rounded to TF32 (10 explicit mantissa bits, ties away from zero) and small is
// the remainder x - big (exact in fp32) rounded to TF32. |small| <= 2^-11 |x| and |r| <= 2^-11 |small|, so
// |r| <= 2^-22 |x|: the pair carries 22 of fp32's 24 significand bits (for |x| >= 2^-115; below, small is
// subnormal and TF32's spacing there, 2^-136, bounds r). The products big·big + big·small + small·big miss
// small·small and the residuals' terms, at most about 3·2^-22 of |a·b| per product (an fp32 product's
// rounding: 2^-24), before the fp32 accumulation, whose error grows with K (NVIDIA's CUTLASS ships the
// same method as "3xTF32"; the error measured against fp64 is in notes/performance.md).
// Both parts are fp32 bit patterns with the 13 low mantissa bits zero, so the tensor cores' TF32 read
// (which ignores those bits) sees them exactly. Pure bit arithmetic: the same on host and device.
//   ±inf  -> (±inf, 0);  NaN -> (quiet NaN with x's sign, 0): a NaN whose payload sits in the low bits
//   only would otherwise read as inf.  A finite x that rounds past the largest TF32 value keeps its
//   truncation as big (finite), the rest in small.
// Products with an infinite operand differ from fp32: inf·small(0) is NaN, so a row or column that meets
// an inf gives NaN where an fp32 product gives ±inf.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/common/ceil_div.hpp"  // FW_HOST_DEVICE

namespace fw::detail {

struct Tf32Pair {
  float big, small;
};

FW_HOST_DEVICE inline uint32_t f32_to_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

FW_HOST_DEVICE inline float bits_to_f32(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

constexpr uint32_t kTf32LowBits = 0x1FFFu;  // the 13 mantissa bits TF32 drops
constexpr uint32_t kF32ExpMask = 0x7F800000u;

// x's bits rounded to the nearest TF32 magnitude, ties away from zero (a carry into the exponent is the
// correct next binade); a finite x that would round to inf is truncated instead.
FW_HOST_DEVICE inline uint32_t tf32_round_bits(uint32_t u) {
  const uint32_t r = (u + 0x1000u) & ~kTf32LowBits;
  return (r & kF32ExpMask) == kF32ExpMask ? (u & ~kTf32LowBits) : r;
}

FW_HOST_DEVICE inline Tf32Pair tf32_split(float x) {
  const uint32_t u = f32_to_bits(x);
  if ((u & kF32ExpMask) == kF32ExpMask) {
    const bool nan = (u & 0x007FFFFFu) != 0;
    return {nan ? bits_to_f32((u & 0x80000000u) | 0x7FC00000u) : x, 0.0f};
  }
  const float big = bits_to_f32(tf32_round_bits(u));
  const float rest = x - big;  // exact: at most 13 significant bits
  return {big, bits_to_f32(tf32_round_bits(f32_to_bits(rest)))};
}

// The GEMM kernel's split of its register fragments (gemm_sm90.cu, SPLIT_B): big as tf32_split's, small the
// exact remainder x - big (at most 13 significant bits) left for the tensor cores' TF32 read to truncate, so
// |x - big - small as read| < 2^-21 |x| (tf32_split's, rounded to nearest: 2^-22). 6 PTX operations a value
// against tf32_split's 14 and a branch (nvcc 13, sm_90a, the finite path). ±inf and NaN make small NaN, so their
// rows of C are NaN, as tf32_split's inf · 0 makes them.
FW_HOST_DEVICE inline Tf32Pair tf32_split_truncated_small(float x) {
  const float big = bits_to_f32(tf32_round_bits(f32_to_bits(x)));
  return {big, x - big};
}

}  // namespace fw::detail
