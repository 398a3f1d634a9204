// The rotary angle shared by rope's forward and backward kernels (transformer.hpp): both must rotate by
// bit-identical angles, so the formula lives here once.
#pragma once
#include <cstdint>

namespace fw {

// inv_freq_i = theta^(-2i/head_dim), computed in double and rounded once to fp32 (the correctly rounded
// value, as HF computes it in fp32 from an fp64-exact exponent); half = head_dim / 2.
__device__ __forceinline__ float rope_inv_freq(int64_t i, int64_t half, double log2_theta) {
  return float(exp2(-double(2 * i) / double(2 * half) * log2_theta));
}

// sin and cos of the angle fp32(p) * inv_freq in fp32. Positions up to a few thousand radians need the
// precise sincosf (its range reduction), not __sinf/__cosf, whose error grows with the argument.
__device__ __forceinline__ void rope_sincos(int64_t p, float inv_freq, float* s, float* c) {
  sincosf(float(p) * inv_freq, s, c);
}

}  // namespace fw
