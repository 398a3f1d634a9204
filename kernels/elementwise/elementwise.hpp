// The framework's element-wise and activation ops: host API. One vectorized engine (engine.cuh) runs
// them all; each op is a small functor (ops.cuh).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

using opbench::DType;

enum class UnaryOp {
  neg, abs, exp, log, sqrt, rsqrt, sin, cos,          // math
  add_scalar, mul_scalar, pow_scalar,                  // with a scalar operand
  relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh, silu, softplus,  // activations
};

enum class BinaryOp { add, sub, mul, div, maximum, pow };

// How the second operand of a binary op is indexed for an output viewed as [rows, cols].
enum class Broadcast {
  none,  // b has rows * cols elements
  row,   // b has cols elements: b[j] (a [N] vector added to every row)
  col,   // b has rows elements: b[i] (a [M, 1] column added to every column)
};

// y = op(x), n elements, any alignment. `scalar` is the op's parameter (add_scalar's addend,
// mul_scalar's factor, pow_scalar's exponent, leaky_relu's slope; softplus uses beta = 1, threshold 20).
void unary(UnaryOp op, DType dt, const void* x, void* y, int64_t n, float scalar, cudaStream_t s);

// y[i, j] = op(a[i, j], b[...]) for an output of rows x cols elements, any alignment.
void binary(BinaryOp op, DType dt, const void* a, const void* b, void* y, int64_t rows, int64_t cols,
            Broadcast bcast, cudaStream_t s);
// Whether binary()'s fp32 pow over n output elements, on the current device, evaluates in double arithmetic
// (pow_f32.hpp: within 0.51 ulp on positive normal bases and finite exponents, powf on the rest); otherwise it is
// powf throughout (CUDA's, as LibTorch's). Deep grids only (binary.cu says why); the GPU tests ask it which to expect.
bool pow_fp32_in_double(int64_t n);

}  // namespace fw
