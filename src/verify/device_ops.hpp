// Device helpers of the correctness gate: fill inputs with seeded random values, poison outputs,
// convert to fp64, and compare two tensors elementwise within a tolerance.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "opbench/op.hpp"
#include "opbench/tensor.hpp"

namespace opbench {

// Deterministic for (seed, index): the same seed gives the same tensor on every run and GPU.
void fill_random(const TensorView& t, const Init& init, uint64_t seed, cudaStream_t s);
// NaN for floating tensors, INT64_MIN for int64: an element an implementation forgets to write
// can never pass the comparison.
void poison(const TensorView& t, cudaStream_t s);
// dst (fp64, or int64 for int64 src) = src, same number of elements.
void convert(const TensorView& src, const TensorView& dst, cudaStream_t s);

struct Comparison {
  double max_abs_err = 0;
  double max_rel_err = 0;    // |a - b| / |b| over elements with b != 0
  double rel_l2_err = 0;     // ||a - b|| / ||b||
  int64_t violations = 0;    // |a - b| > atol + rtol |b|, a NaN on either side, or unequal infinities
  int64_t nonfinite = 0;     // of those, the NaNs and unequal infinities (the norms leave them out)
  int64_t first_violation = -1;
  double got = 0, expected = 0;  // at first_violation
};

// `got` against `expected` (any dtypes, same number of elements).
Comparison compare(const TensorView& got, const TensorView& expected, Tolerance tol, cudaStream_t s);

}  // namespace opbench
