// Element-wise op functors: each computes in fp32 on values converted from the storage type, so fp16
// and bf16 results are rounded once. Full-precision math (no fast-math intrinsics), as LibTorch does,
// except where a functor's template argument says that its result is stored in 16 bits (Pow, PowScalar,
// Softplus, Gelu, Log, Sigmoid, Silu, GeluTanh, Sin, Cos): those use the shorter evaluations of `short16` below,
// whose error is derived there.
#pragma once
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>

#include "kernels/common/types.cuh"
#include "kernels/elementwise/pow_f32.hpp"

namespace fw::ops {

// Evaluations for results stored in fp16 or bf16. Such a result keeps 11 or 8 significant bits: its
// rounding error, half an ulp, is at least 2^-12 (fp16) or 2^-9 (bf16) of the value. powf and log1pf
// carry fp32's 24 bits at 60-120 instructions an element, which made pow / pow_scalar / softplus in bf16
// compute-bound at 42-79% of the copy roof on H100 (full report at 00c9cf3). These carry about 19 bits.
//
// log2_pos(x), x positive, normal and finite: x = 2^e m with m in [sqrt(1/2), sqrt(2)), so f = m - 1 is
// exact (Sterbenz) and log2(m) = f P(f), P of degree 6 fitted to the relative error of log2(1 + f) / f.
// Relative error of the result, every fp32 m in the range with e in {0, +-1, 5, -20, +-127} (all the
// mantissas, exhaustively, evaluated as the FMA chain below): at most 1.23e-6 (e = 0, +-1; the
// relative error of f P(f) is kept near f = 0, where a lg2.approx-based log has only an absolute bound).
//
// pow(x, y) = exp2(t), t = y log2(x): with |dL| <= 1.25e-6 (log2_pos), 2^-24 for the product and
// exp2f's 2 ulp (2^-22), the value before rounding is off by at most ln2 |t| (1.25e-6 + 2^-24) + 2^-22
// <= 9.1e-7 |t| + 2.4e-7 relatively. A finite, non-zero 16-bit result has |t| < 25 in fp16 (2^-24 ..
// 65504) and |t| <= 133 in bf16 (2^-133 .. 2^128): at most 2.3e-5 (fp16) and 1.2e-4 (bf16), under a tenth
// of the half-ulp. So the stored result is the correctly rounded one, or its neighbour when the exact
// value lies that close to a midpoint between two 16-bit numbers: within one ulp (tests/gpu/
// test_short_math.cpp checks every 16-bit x against the correctly rounded value). Other x (zero,
// negative, subnormal in fp32, inf, NaN) and non-finite y take powf, so the special cases are powf's.
//
// softplus(x) = max(x, 0) + log1p(t), t = e^-|x| in (0, 1] (the same function, with nothing to cancel): t = ex2(32 -
// |x| log2(e)) 2^-32, the exponent shifted by 32 as in gelu so that MUFU.EX2 (which flushes results below 2^-126) keeps
// the subnormal t that a bf16 result holds down to x = -92; relative error ln2 (2^-18 for the FMA's rounding of an
// exponent under 128 in magnitude, plus |x| 2^-25 for log2(e)'s, at most 3.3e-6) + 2^-22: under 6e-6. log1p(t) = ln2
// lg2(1 + t) for t >= 2^-4: 1 + t rounds by 2^-24, lg2 is within 2^-22 absolutely on [1, 2], so within 2.4e-7
// absolutely, 3.8e-6 relatively at t = 2^-4 (log1p(t) >= 0.06) and less above; for t < 2^-4 the series t (1 - t/2 +
// t^2/3 - t^3/4), whose truncation is under t^4 / 5 <= 3.1e-6 relatively. With the final sum (2^-24) the result is
// within 1e-5 relatively: under a twentieth of fp16's half-ulp (2^-12), so within one ulp of the correctly rounded
// value. For x > 20 the sum is x + log1p(t) with t < 2.1e-9 below half an ulp of x, so it is x exactly, as torch's
// threshold gives. NaN stays NaN (t is NaN, and max(NaN, 0) + NaN), inf -> inf, -inf -> 0. 1 + t is in [1, 2], so
// lg2_normal (no subnormal scaling) serves. scripts/gen/short16_emulate.cpp emulates this with ex2 and lg2 replaced by
// exact values moved by their bounds both ways, over every 16-bit input: none more than one ulp off; the fp32 value
// before rounding at most 0.008 ulp of fp16 and 0.001 of bf16 away. The bf16 map kernel (8 elements a thread) has 488
// instructions (sm_90a SASS) where log2_pos (an I2FP among them), exp2f and the 1 + u correction made 792; sigmoid's
// has 376, gelu_tanh's 472. On the H200 it took bf16 and fp16 softplus from 71-80% of the copy roof to 99-102%
// (notes/performance.md, fortieth round).
//
// gelu(x) = x Phi(x). erff picks one of two coefficient sets per element (seven selects), runs the
// polynomial, and for |x| > 1.42 an ex2 and a fix-up: in bf16, gelu was compute-bound at 91.7% of the copy
// roof on H100, both sides (full report at 9596e40: 4096^2 23.8 us against neg's 18.9). Here, with t = |x| and
// Q(t) = erfc(t / sqrt 2) / 2 the normal upper tail, Phi(x) = Q(t) for x < 0 and 1 - Q(t) for x >= 0 (no
// cancellation: 1 - Q >= 1/2), and Q(t) = s P(s) 2^(-t^2 log2(e) / 2) with s = 1 / (1 + 0.36 t):
// Q(t) e^(t^2 / 2) / s is smooth in s on (0, 1] (0.36 / sqrt(2 pi) as t -> inf, 1/2 at t = 0), and P, of
// degree 6, is fitted (reweighted least squares towards minimax) to its relative error: under 1e-6 for t in
// [0, 14.5] (beyond, Q(t) < 2^-150 and the 16-bit result is 0 either way). Rounding: s is off by ~2 ulp
// (the fma, rcp.approx), P's Horner chain by a few ulp of its value, and the exponent 32 - 0.7213 t^2 by
// 2^-24 of 0.7213 t^2 (at most 152) and half an ulp of itself: 1.2e-5 at t = 14, 1.6e-6 at t = 4, which
// exp2 (2^-22) turns into a relative error ln 2 times that. So Q is off by ~1e-5 at most relatively (a dense
// scan of t, this chain in fp32 on the host: 7.2e-6, at t = 12.9), Phi by no more, and the result, two
// roundings on, by ~1.2e-5: under a twentieth of fp16's half-ulp (2^-12) and of bf16's (2^-9), so within one
// ulp of the correctly rounded 16-bit value (test_short_math checks every input; the host scan of every
// 16-bit input: 0 further, one ulp at 119 bf16 and 28 fp16 inputs). NaN propagates, inf -> inf, -inf -> NaN
// (-inf * 0), as torch's x * 0.5 * (1 + erf(x / sqrt 2)); where that formula rounds 1 + erf to 0 (x < -5.9),
// this one keeps the tail's tiny values, nearer x Phi(x). 17 instructions, two of them MUFU (rcp, ex2), no
// branch, against erff's 31 (sm_90a SASS).
namespace short16 {
__device__ __forceinline__ float log2_pos(float x) {
  const int ix = __float_as_int(x);
  const int e = (ix - 0x3f3504f3) >> 23;  // exponent of x / sqrt(1/2), rounded down
  const float f = __int_as_float(ix - (e << 23)) - 1.f;
  float p = 0.17161760f;
  p = fmaf(p, f, -0.26931041f);
  p = fmaf(p, f, 0.29569805f);
  p = fmaf(p, f, -0.35937256f);
  p = fmaf(p, f, 0.48062691f);
  p = fmaf(p, f, -0.72136354f);
  p = fmaf(p, f, 1.44269645f);
  return fmaf(f, p, float(e));
}
__device__ __forceinline__ float pow(float x, float y) {
  if (x >= FLT_MIN && x <= FLT_MAX && fabsf(y) <= FLT_MAX) return exp2f(y * log2_pos(x));
  return powf(x, y);
}
// 2^32 e^-|z|: MUFU.EX2 of an exponent shifted by 32 (e^-|z| is this times 2^-32, with its bits down to the subnormals
// a 16-bit result holds; EX2 flushes results below 2^-126). Its error is derived at softplus above and at Logistic.
__device__ __forceinline__ float exp_neg_abs_2p32(float z) { return ex2(fmaf(fabsf(z), -1.44269504f, 32.f)); }
__device__ __forceinline__ float softplus(float x) {  // threshold 20 (torch's), as derived above
  const float t = exp_neg_abs_2p32(x) * 0x1p-32f;
  const float series = t * fmaf(fmaf(fmaf(-0.25f, t, 0.333333343f), t, -0.5f), t, 1.f);
  const float l = t < 0x1p-4f ? series : 0.693147181f * lg2_normal(1.f + t);
  return fmaxf(x, 0.f) + l;
}
__device__ __forceinline__ float gelu(float x) {
  const float t = fabsf(x);
  const float s = rcp(fmaf(0.36f, t, 1.f));  // the divisor is >= 1 (or inf, NaN)
  float p = 0x1p-32f * 4.678239673e-02f;  // P / 2^32: see the exponent below
  p = fmaf(p, s, 0x1p-32f * -1.788263172e-01f);
  p = fmaf(p, s, 0x1p-32f * 1.796773076e-01f);
  p = fmaf(p, s, 0x1p-32f * 2.742684074e-02f);
  p = fmaf(p, s, 0x1p-32f * 1.393999904e-01f);
  p = fmaf(p, s, 0x1p-32f * 1.418303996e-01f);
  p = fmaf(p, s, 0x1p-32f * 1.437089741e-01f);
  // Q(t) = s P 2^(32 - t^2 log2(e) / 2) / 2^32: the exponent shifted by 32 keeps MUFU.EX2 (flushes results
  // below 2^-126) off the subnormal range down to t = 14.5, and the scaled P gives subnormal Q exactly.
  const float q = s * p * ex2(fmaf(t, t * -0.72134752f, 32.f));
  return x * (x < 0.f ? q : 1.f - q);
}
// log(x) = ln2 lg2(x), x = 1 exactly 0: lg2's error (types.cuh) is at most 2^-22 absolute on [0.5, 2] and 2 ulp
// (2^-22 relatively) elsewhere, the product adds 2^-24 and ln2's rounding 2^-25. Away from [0.5, 2] that is under
// 3e-7 relatively; near 1, where log x -> 0, the absolute 2^-22 ln2 = 1.7e-7 against the nearest 16-bit inputs'
// logs (|log x| >= 2^-9 in bf16, >= 2^-11 in fp16, whose half-ulps there are >= 2^-18 and 2^-22 = 2.4e-7) keeps
// the value within half an ulp of the exact log, so the stored result is within one ulp of the correctly
// rounded one (a host emulation with lg2's bound both ways over every 16-bit input: 0 further; at x = 1 the
// bound alone allows +-1.7e-7, hence the exact 0). Subnormal bf16 inputs are scaled by lg2 (not .ftz); 0, negative,
// inf and NaN give lg2's -inf, NaN, inf, NaN. 7 instructions against logf's ~27: in bf16 log was
// instruction-bound at 69% of the copy roof on the H200, both sides (ncu, notes/performance.md, thirty-eighth
// round).
__device__ __forceinline__ float log(float x) { return x == 1.f ? 0.f : 0.693147181f * lg2(x); }
// The logistic function's parts at z: t = 2^32 e^-|z| (MUFU.EX2 of an exponent shifted by 32, as gelu's, so
// that e^-|z| = t 2^-32 keeps its bits down to the subnormals a 16-bit result can hold: bf16's reach 2^-133)
// and q = 1 / (1 + e^-|z|). Then sigma(z) = q for z >= 0 and e^-|z| q for z < 0: no 1 - q, so no cancellation.
// Error of e^-|z| while t is normal (|z| < 109): the exponent 32 - |z| log2(e), under 128 in magnitude, is rounded
// once by the fma (2^-18 absolute) and log2(e)'s own rounding adds |z| 2^-25 (at most 3.3e-6), so with ex2's 2^-22
// the relative error is at most ln2 (2^-18 + 3.3e-6) + 2^-22 < 6e-6; 1 + e^-|z| rounds once and rcp adds an ulp: q
// within 2^-22 relatively, sigma within ~6.5e-6. For |z| > 109 t is flushed to 0 and sigma(z < 0) is 0, which its
// exact value (< 2^-157) rounds to in 16 bits. Under a tenth of fp16's half-ulp (2^-12) and bf16's (2^-9): within
// one ulp of the correctly rounded value (test_short_math checks every 16-bit input; a host emulation with ex2
// and rcp perturbed by 2^-22 both ways: 0 further).
struct Logistic {
  float t, q;
  __device__ __forceinline__ explicit Logistic(float z) {
    t = exp_neg_abs_2p32(z);
    q = rcp(fmaf(t, 0x1p-32f, 1.f));
  }
  // y sigma(z): the product's roundings add 2^-24 each; y t stays normal (|y| >= 2^-133 for a non-zero 16-bit y)
  // and the final scaling by 2^-32 rounds once into the subnormals.
  __device__ __forceinline__ float times(float y, float z) const { return z >= 0.f ? y * q : ((y * t) * q) * 0x1p-32f; }
};
__device__ __forceinline__ float sigmoid(float x) { return Logistic(x).times(1.f, x); }  // NaN: both parts NaN
__device__ __forceinline__ float silu(float x) { return Logistic(x).times(x, x); }  // x sigma(x)
// gelu_tanh(x) = x (1 + tanh(y)) / 2 = x sigma(2y), y = sqrt(2 / pi) (x + 0.044715 x^3): z = 2y as
// x (1.5957691 + 0.0713548 x^2) is off by ~3 2^-24 relatively (three roundings and the constants'), and sigma's
// relative sensitivity to z is at most |dz| (z < 0) or (1 - sigma) |dz| (z >= 0): for the z where the result is not
// 0 in 16 bits (|z| < 93 in bf16, < 17 in fp16) at most 93 * 1.8e-7 = 1.7e-5 (bf16) and 3e-6 (fp16), with
// sigma's ~6.5e-6 and the product: within one ulp, as above (host emulation: 0 further). torch's form in fp32,
// 1 + tanhf(y), cancels for x < -5 (x = -5: 30% off); this one does not.
__device__ __forceinline__ float gelu_tanh(float x) {
  const float z = x * fmaf(0.0713548162726f, x * x, 1.5957691216f);
  return Logistic(z).times(x, z);
}
// sin and cos (Cos = true) of 16-bit x with |x| < 2^17 (sincos_in_range): every finite fp16 value, bf16's up to there;
// fp16's inf and NaN give NaN as they should. Sin and Cos below take sinf / cosf for the other bf16 inputs. x = j pi/2
// + r with j the integer nearest x c, c = fl(2/pi), read from the low bits of x c + 1.5 2^23 (one FMA, exact before its
// rounding to an integer while |x c| < 2^22; no F2I and I2F, which sinf spends on every element at a quarter of the FMA
// rate; cos adds 1.5 2^23 + 1, so that the same FMA gives the quadrant of x + pi/2 and the same j: x c is never a
// half-integer before rounding in this range, which short16_emulate.cpp checks), and r in two FMAs (Cody-Waite):
// x - j P1 with P1 = fl(pi/2) is exact (x >= pi/4 has at most 11 significant bits, so both are multiples of 2^-23,
// and |x - j P1| < 2), then + j P2 with P2 = fl(pi/2 - P1), rounded once and off by |j| |pi/2 - P1 - P2| <= 83443 *
// 1.7e-15 = 1.4e-10. The smallest |r| with j != 0 over the 16-bit inputs is 1.5e-5
// (fp16) and 4.8e-4 (bf16), so r is within 1e-5 relatively. |x c - x 2/pi| <= 2^17 * 2.6e-8 keeps |r| <= pi/4 + 5.4e-3,
// on which the polynomials were fitted (scripts/gen/short16_emulate.cpp, relative error towards minimax): sin r = r (1
// + u (S1 + u S2)) within 2.1e-6 and cos r = 1 + u (C1 + u C2) within 1.9e-5, u = r^2, each evaluation adding a few
// 2^-24. j mod 4 gives the sign and which of the two is taken. In all under 3.5e-5 relatively: below a seventh of the
// half-ulp of fp16 (2^-12) and bf16 (2^-9), so the stored result is within one ulp of the correctly rounded value. The
// same tool emulates this code exactly over every finite 16-bit input: the fp32 value before its rounding is at most
// 0.027 ulp of fp16 and 0.0033 ulp of bf16 from the exact one. sin(-0) = -0; tiny x (j = 0, r = x) give x and 1. sm_90a
// SASS of the map kernels (8 elements a thread): fp16 504 instructions, against 1472 with sinf, whose fast path takes
// ~27 an element (two of them F2I and I2F). On the H200 they took bf16 sin and cos from 70-75% of the copy roof
// (sinf / cosf, LibTorch's too) to 83-88%, fp16 from 72-78% to 94-96% (notes/performance.md, fortieth round). cos's
// shifted constant and the quadrant's test as one predicate (below) took an instruction an element each from the bf16
// kernels (~22 an element): H200 x112, x113, bench_ops A/B, bf16 4096^2 cos 17.1 -> 16.5 us, sin 16.7 -> 16.5; fp16
// cos -1.6% (cos's constant, cos only; the predicate, both; notes/performance.md, forty-fourth round).
__device__ __forceinline__ bool sincos_in_range(float x) { return fabsf(x) < 131072.f; }
template <bool Cos>
__device__ __forceinline__ float sincos(float x) {
  constexpr float kShift = Cos ? 12582913.f : 12582912.f;
  const float jj = fmaf(x, 0.636619772f, kShift);
  const float j = jj - kShift;
  const float r = fmaf(j, 4.37113883e-08f, fmaf(j, -1.57079637f, x));
  const float u = r * r;
  const float s = r * fmaf(fmaf(8.161269128e-03f, u, -1.666332930e-01f), u, 1.f);
  const float c = fmaf(fmaf(4.046569392e-02f, u, -4.997673631e-01f), u, 1.f);
  const uint32_t q = __float_as_uint(jj);  // the quadrant in the low bits (cos x = sin(x + pi/2))
  float v;  // (q & 1) ? c : s, the test as a compare with 0 (one LOP3 with a predicate; LLVM's `== 1` took two)
  asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\tand.b32 t, %1, 1;\n\tsetp.ne.b32 p, t, 0;\n\tselp.f32 %0, %2, %3, p;\n\t}"
      : "=f"(v)
      : "r"(q), "f"(c), "f"(s));
  return __uint_as_float(__float_as_uint(v) ^ ((q & 2u) << 30));
}
}  // namespace short16

// --- binary -------------------------------------------------------------------------------------
struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
struct Sub { __device__ float operator()(float a, float b) const { return a - b; } };
struct Mul { __device__ float operator()(float a, float b) const { return a * b; } };
struct Div { __device__ float operator()(float a, float b) const { return a / b; } };
struct Maximum {  // propagates NaN, like torch.maximum
  __device__ float operator()(float a, float b) const { return (a != a || b != b) ? NAN : fmaxf(a, b); }
};
// Short16: the result is stored in fp16 / bf16 (short16 above); else fp32 through powf (CUDA's, as LibTorch's).
template <bool Short16>
struct Pow {
  // 2 packets a thread in fp16/bf16 on deep grids, as SinCos below: H200 GPU e8558ec3, bench_ops A/B twice, bf16
  // 4096^2 25.1 -> 23.9 us (91% -> 96% of the copy roof), 8192^2 98.4 -> 92.4; fp16 8192^2 95.5 -> 92.1 (GPU
  // 4a37f5c6).
  static constexpr int kPackets16 = 2;
  __device__ float operator()(float a, float b) const { return Short16 ? short16::pow(a, b) : powf(a, b); }
};
// fp32 pow on deep grids (binary.cu says where): pow32 (pow_f32.hpp: within 0.51 ulp, double arithmetic) on positive
// normal bases and finite exponents, powf on the rest (zeros, negative and subnormal bases, infinities, NaN), so that
// the special cases are powf's. The map kernel evaluates a packet with `fast` and tests its elements together
// (engine.cuh, guarded_of), with the tables copied to shared memory and bound before any element (tables_of).
struct PowTables32 {
  static constexpr bool kGuarded = true;
  __device__ bool in_fast(float a, float b) const { return pow32::in_fast(a, b); }
  __device__ float fast(float a, float b) const { return pow32::fast(a, b, pow32::SharedTables{tables}); }
  __device__ float operator()(float a, float b) const { return in_fast(a, b) ? fast(a, b) : powf(a, b); }
  static constexpr int kTableBytes = int(sizeof(pow32::Tables));
  const pow32::Tables* tables = nullptr;
  __device__ static const void* table_source() { return &pow32::kDeviceTables; }
  __device__ void bind(const void* t) { tables = static_cast<const pow32::Tables*>(t); }
};

// --- unary math -----------------------------------------------------------------------------------
struct Neg { __device__ float operator()(float x) const { return -x; } };
struct Abs { __device__ float operator()(float x) const { return fabsf(x); } };
struct Exp { __device__ float operator()(float x) const { return expf(x); } };
template <bool Short16>  // true: the result is stored in fp16 / bf16 (short16 above)
struct Log {
  __device__ float operator()(float x) const { return Short16 ? short16::log(x) : logf(x); }
};
// sqrt as x * rsqrt(x) refined by one Newton step (error under one ulp, equal to the IEEE sqrt on
// nearly every input): the IEEE sqrtf's out-of-line slow path cost 11-14% of bandwidth at large fp32
// sizes on H100 (0.86-0.89x LibTorch with the best unroll).
__device__ __forceinline__ float sqrt_step(float x, float r) {  // r ~ 1 / sqrt(x), within rsqrt's 2^-22.9
  const float y = x * r;
  return fmaf(fmaf(-y, y, x), 0.5f * r, y);
}
__device__ __forceinline__ float sqrt_newton(float x) { return sqrt_step(x, rsqrtf(x)); }  // x finite, non-zero
struct Sqrt {
  __device__ float operator()(float x) const {
    // ±0 -> ±0, inf -> inf; negatives and NaN stay NaN
    return (x == 0.f || isinf(x)) ? x : sqrt_newton(x);
  }
};
struct Rsqrt { __device__ float operator()(float x) const { return rsqrtf(x); } };
// Short16: the result is stored in fp16 / bf16; Bf16: so is the input, whose finite values reach past
// short16::sincos's range, tested per element. The map engine's per-packet test (kGuarded) was measured here and not
// kept: bf16 sin and cos ran 1-2% slower with it on the H200 (notes/performance.md, fortieth round), and with two
// packets a thread as slow or slower again (x112, ncu: 15% fewer instructions executed, but 48 registers against 39,
// warps active 50% against 62%; bench_ops: large rows -0.3..+0.8%, very large +1.1..+2.5% against the per-element
// test).
template <bool Short16, bool Bf16, bool IsCos>
struct SinCos {
  // 2 packets a thread in fp16/bf16 on deep grids (engine.cuh, pick_unroll), as gelu and softplus: with one, a
  // thread's 16 bytes in flight waited behind ~20 instructions an element. H200 GPU e8558ec3, bench_ops A/B twice
  // (notes/performance.md, forty-third round), bf16 4096^2: sin 18.4 -> 16.8 us (84% -> 92% of the copy roof), cos
  // 18.9 -> 17.2 (82% -> 90%), 8192^2 sin 71.8 -> 65.4; fp16 4096^2 sin 16.4 -> 15.9 (GPU 4a37f5c6); grids under
  // 64 waves keep one packet (medium sizes unchanged).
  static constexpr int kPackets16 = 2;
  __device__ float operator()(float x) const {
    if (!Short16) return IsCos ? cosf(x) : sinf(x);
    const float v = short16::sincos<IsCos>(x);
    if (Bf16 && __builtin_expect(!short16::sincos_in_range(x), 0)) return IsCos ? cosf(x) : sinf(x);
    return v;
  }
};
template <bool Short16, bool Bf16>
using Sin = SinCos<Short16, Bf16, false>;
template <bool Short16, bool Bf16>
using Cos = SinCos<Short16, Bf16, true>;

// --- with a scalar ------------------------------------------------------------------------------------
struct AddScalar { float s; __device__ float operator()(float x) const { return x + s; } };
struct MulScalar { float s; __device__ float operator()(float x) const { return x * s; } };
// pow_scalar with an exponent s = K / 2, 1 <= |K| <= 4 (+-0.5, +-1, +-1.5, +-2), in every dtype: products and a
// square root (LibTorch's CPU pow kernel, PowKernel.cpp, specializes 2, 3, -2, 0.5, -0.5 and -1; 3 stays on the
// general path here, 1.5 and -1.5 are added). Error, for |x| in [2^-30, 2^30] (every intermediate and result a
// normal fp32 number), with u = 2^-24 the unit roundoff: sqrt_step is under one ulp, a relative error under 2u;
// x * x rounds once (u), x * sqrt(x) under 3u, 1 / p adds u. So the result is within 4u = 2^-22 of x^s relatively
// (at most 4 ulp of fp32, nearer 2 in most binades; far inside one ulp of a 16-bit result), which
// tests/gpu/test_short_math.cpp checks against pow in double on every K, in fp32 on a sample of every binade and in
// fp16 and bf16 on every input. Every other x (zero, subnormal, huge, inf, NaN, and negative x with an odd K)
// takes powf, so the special cases are powf's. K is a template argument (unary.cu dispatches on the exponent) and
// the range test is the packet's (kGuarded, engine.cuh): with K a runtime value every element tested it and
// branched on it, ~35 instructions an element in the bf16 kernel against ~27 for short16::pow (sm_90a SASS).
// powf costs 60-120 instructions an element, which held x ** 1.5 in fp32 at 81-85% of the copy roof on H100,
// both sides (full report at 8701c5e: 4096^2 53.2 us against a 43.6 us roof); short16::pow held bf16 at 68-73% on
// the H200 (thirty-ninth round). With these kernels (H200, fortieth round): bf16 at 99-100% of the roof, fp16 93-97%,
// fp32 100-104%.
template <int K>
struct PowHalfSteps {
  static_assert(K != 0 && K >= -4 && K <= 4, "an exponent K / 2 with 1 <= |K| <= 4");
  static constexpr bool kGuarded = true;
  float s;  // K / 2, for powf
  // |x| in [2^-30, 2^30] (and x > 0 for odd K) as one unsigned compare of the bits: a negative x (sign bit kept for
  // odd K), NaN and inf fall outside. 2^-30 and 2^30 are 0x30800000 and 0x4e800000.
  __device__ bool in_fast(float x) const {
    const uint32_t b = __float_as_uint(x) & ((K & 1) ? 0xffffffffu : 0x7fffffffu);
    return b - 0x30800000u <= 0x4e800000u - 0x30800000u;
  }
  __device__ float fast(float x) const {
    constexpr int m = K < 0 ? -K : K;
    // x is normal here, so MUFU.RSQ needs none of rsqrtf's scaling of subnormal inputs (4 instructions an element)
    const float p = m == 1 ? sqrt_step(x, rsq(x)) : m == 2 ? x : m == 3 ? x * sqrt_step(x, rsq(x)) : x * x;
    return K < 0 ? 1.f / p : p;
  }
  __device__ float operator()(float x) const { return in_fast(x) ? fast(x) : powf(x, s); }
};
// K when s = K / 2 with 1 <= |K| <= 4 (PowHalfSteps), else 0.
inline int half_steps_of(float s) {
  const float k = 2.f * s;
  return k == std::nearbyint(k) && std::fabs(k) >= 1.f && std::fabs(k) <= 4.f ? int(k) : 0;
}
template <bool Short16>
struct PowScalar {  // every other exponent
  float s;
  __device__ float operator()(float x) const { return Short16 ? short16::pow(x, s) : powf(x, s); }
};

// --- activations ------------------------------------------------------------------------------------
struct Relu { __device__ float operator()(float x) const { return x > 0.f || x != x ? x : 0.f; } };
struct LeakyRelu { float slope; __device__ float operator()(float x) const { return x > 0.f ? x : x * slope; } };
template <bool Short16>
struct Sigmoid {
  __device__ float operator()(float x) const { return Short16 ? short16::sigmoid(x) : 1.f / (1.f + expf(-x)); }
};
struct Tanh { __device__ float operator()(float x) const { return tanhf(x); } };
template <bool Short16>
struct Gelu {  // x Φ(x): erff in fp32, short16::gelu for fp16 / bf16 results
  // 2 packets per thread in fp16/bf16 on deep grids (engine.cuh, pick_unroll). Chosen with erff (H100 A/B against
  // 1 and 4: bf16 large 0.86x -> 1.02x of LibTorch); kept with short16::gelu, now memory-bound: 1 packet was
  // 2.5% slower in bf16 (4096^2 19.30-19.36 against 18.85-18.94 us) and the same in fp16 (notes/performance.md,
  // thirty-fifth round).
  static constexpr int kPackets16 = 2;
  __device__ float operator()(float x) const {
    return Short16 ? short16::gelu(x) : 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
  }
};
template <bool Short16>
struct GeluTanh {  // tanh approximation
  __device__ float operator()(float x) const {
    if (Short16) return short16::gelu_tanh(x);
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
  }
};
template <bool Short16>
struct Silu {
  __device__ float operator()(float x) const { return Short16 ? short16::silu(x) : x / (1.f + expf(-x)); }
};
template <bool Short16>
struct Softplus {  // beta = 1, threshold = 20, as torch.nn.functional.softplus
  // 2 packets a thread in fp16/bf16 on deep grids (engine.cuh, pick_unroll), as gelu: H100, bf16 4096^2
  // 24.1 -> 22.8 us (90% -> 96% of the copy roof), fp16 23.5 -> 22.4, the smaller sizes unchanged.
  static constexpr int kPackets16 = 2;
  __device__ float operator()(float x) const {
    return Short16 ? short16::softplus(x) : x > 20.f ? x : log1pf(expf(x));
  }
};

}  // namespace fw::ops
