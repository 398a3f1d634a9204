// Element-wise op functors: each computes in fp32 on values converted from the storage type, so fp16
// and bf16 results are rounded once. Full-precision math (no fast-math intrinsics), as LibTorch does.
#pragma once
#include <cuda_runtime.h>

#include <cmath>

namespace fw::ops {

// --- binary -------------------------------------------------------------------------------------
struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
struct Sub { __device__ float operator()(float a, float b) const { return a - b; } };
struct Mul { __device__ float operator()(float a, float b) const { return a * b; } };
struct Div { __device__ float operator()(float a, float b) const { return a / b; } };
struct Maximum {  // propagates NaN, like torch.maximum
  __device__ float operator()(float a, float b) const { return (a != a || b != b) ? NAN : fmaxf(a, b); }
};
struct Pow { __device__ float operator()(float a, float b) const { return powf(a, b); } };

// --- unary math -----------------------------------------------------------------------------------
struct Neg { __device__ float operator()(float x) const { return -x; } };
struct Abs { __device__ float operator()(float x) const { return fabsf(x); } };
struct Exp { __device__ float operator()(float x) const { return expf(x); } };
struct Log { __device__ float operator()(float x) const { return logf(x); } };
// sqrt as x * rsqrt(x) refined by one Newton step (error under one ulp, equal to the IEEE sqrt on
// nearly every input): the IEEE sqrtf's out-of-line slow path cost 11-14% of bandwidth at large fp32
// sizes on H100 (0.86-0.89x LibTorch with the best unroll).
struct Sqrt {
  __device__ float operator()(float x) const {
    const float r = rsqrtf(x);
    float y = x * r;
    y = fmaf(fmaf(-y, y, x), 0.5f * r, y);
    return (x == 0.f || isinf(x)) ? x : y;  // ±0 -> ±0, inf -> inf; negatives and NaN stay NaN
  }
};
struct Rsqrt { __device__ float operator()(float x) const { return rsqrtf(x); } };
struct Sin { __device__ float operator()(float x) const { return sinf(x); } };
struct Cos { __device__ float operator()(float x) const { return cosf(x); } };

// --- with a scalar ------------------------------------------------------------------------------------
struct AddScalar { float s; __device__ float operator()(float x) const { return x + s; } };
struct MulScalar { float s; __device__ float operator()(float x) const { return x * s; } };
struct PowScalar { float s; __device__ float operator()(float x) const { return powf(x, s); } };

// --- activations ------------------------------------------------------------------------------------
struct Relu { __device__ float operator()(float x) const { return x > 0.f || x != x ? x : 0.f; } };
struct LeakyRelu { float slope; __device__ float operator()(float x) const { return x > 0.f ? x : x * slope; } };
struct Sigmoid { __device__ float operator()(float x) const { return 1.f / (1.f + expf(-x)); } };
struct Tanh { __device__ float operator()(float x) const { return tanhf(x); } };
struct Gelu {  // exact: x Φ(x)
  // 2 packets per thread in fp16/bf16 on deep grids (engine.cuh, pick_unroll): erff's work per element needs
  // the independent packets; H100 A/B against 1 and 4: bf16 large 0.86x -> 1.02x of LibTorch, very_large
  // 0.90x -> 1.03x (4 packets: 1.07x at large but 0.87x at batch shapes); at 3-4 Mi elements 1 packet.
  static constexpr int kPackets16 = 2;
  __device__ float operator()(float x) const { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
};
struct GeluTanh {  // tanh approximation
  __device__ float operator()(float x) const {
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
  }
};
struct Silu { __device__ float operator()(float x) const { return x / (1.f + expf(-x)); } };
struct Softplus {  // beta = 1, threshold = 20, as torch.nn.functional.softplus
  __device__ float operator()(float x) const { return x > 20.f ? x : log1pf(expf(x)); }
};

}  // namespace fw::ops
