#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "src/core/cuda_check.hpp"
#include "src/core/device_buffer.hpp"
#include "src/verify/device_ops.hpp"

namespace opbench {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return int(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

__device__ __forceinline__ uint64_t mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ double load_as_double(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::f32: return static_cast<const float*>(p)[i];
    case DType::f16: return __half2float(static_cast<const __half*>(p)[i]);
    case DType::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::f64: return static_cast<const double*>(p)[i];
    case DType::i64: return double(static_cast<const int64_t*>(p)[i]);
  }
  return 0;
}

__device__ __forceinline__ void store_from_double(void* p, DType t, int64_t i, double v) {
  switch (t) {
    case DType::f32: static_cast<float*>(p)[i] = float(v); break;
    case DType::f16: static_cast<__half*>(p)[i] = __float2half_rn(float(v)); break;
    case DType::bf16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(float(v)); break;
    case DType::f64: static_cast<double*>(p)[i] = v; break;
    case DType::i64: static_cast<int64_t*>(p)[i] = int64_t(v); break;
  }
}

__global__ void fill_kernel(void* p, DType t, int64_t n, Init init, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const double u = double(mix(seed ^ mix(uint64_t(i))) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    double v = init.lo + (init.hi - init.lo) * u;
    if (init.kind == Init::Kind::integers) v = floor(v);
    store_from_double(p, t, i, v);
  }
}

__global__ void poison_kernel(void* p, DType t, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if (t == DType::i64)
      static_cast<int64_t*>(p)[i] = INT64_MIN;
    else
      store_from_double(p, t, i, nan(""));
  }
}

__global__ void convert_kernel(const void* src, DType ts, void* dst, DType td, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if (ts == DType::i64 && td == DType::i64)
      static_cast<int64_t*>(dst)[i] = static_cast<const int64_t*>(src)[i];
    else
      store_from_double(dst, td, i, load_as_double(src, ts, i));
  }
}

struct CompareAcc {
  unsigned long long max_abs_bits;  // non-negative doubles order like their bit patterns
  unsigned long long max_rel_bits;
  unsigned long long violations;
  unsigned long long first;         // first violating index (atomicMin)
  double sq_err, sq_ref;
  unsigned long long nonfinite;     // NaN on either side, or unequal infinities (not in the sums)
};

__global__ void compare_kernel(const void* a, DType ta, const void* b, DType tb, int64_t n, double atol,
                               double rtol, CompareAcc* acc) {
  double local_abs = 0, local_rel = 0, sq_err = 0, sq_ref = 0;
  unsigned long long viol = 0, first = ~0ull, nonfinite = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    double x, y;
    if (ta == DType::i64 && tb == DType::i64) {
      const int64_t xi = static_cast<const int64_t*>(a)[i], yi = static_cast<const int64_t*>(b)[i];
      x = double(xi);
      y = double(yi);
      if (xi != yi) {
        ++viol;
        first = min(first, (unsigned long long)i);
      }
    } else {
      x = load_as_double(a, ta, i);
      y = load_as_double(b, tb, i);
      // NaN never passes: not in the result (an unwritten, poisoned element is NaN), and not in the
      // expectation either (inputs are chosen so that every op is finite; a NaN there is a broken reference).
      if (isnan(x) || isnan(y)) {
        ++viol;
        ++nonfinite;
        first = min(first, (unsigned long long)i);
        continue;
      }
      if (isinf(x) || isinf(y)) {
        if (x != y) {
          ++viol;
          ++nonfinite;
          first = min(first, (unsigned long long)i);
        }
        continue;
      }
    }
    const double err = fabs(x - y);
    local_abs = fmax(local_abs, err);
    if (y != 0) local_rel = fmax(local_rel, err / fabs(y));
    sq_err += err * err;
    sq_ref += y * y;
    if (err > atol + rtol * fabs(y)) {
      ++viol;
      first = min(first, (unsigned long long)i);
    }
  }
  atomicMax(&acc->max_abs_bits, (unsigned long long)__double_as_longlong(local_abs));
  atomicMax(&acc->max_rel_bits, (unsigned long long)__double_as_longlong(local_rel));
  if (viol) atomicAdd(&acc->violations, viol);
  if (nonfinite) atomicAdd(&acc->nonfinite, nonfinite);
  if (first != ~0ull) atomicMin(&acc->first, first);
  atomicAdd(&acc->sq_err, sq_err);
  atomicAdd(&acc->sq_ref, sq_ref);
}

__global__ void read_pair_kernel(const void* a, DType ta, const void* b, DType tb, int64_t i, double* out) {
  out[0] = load_as_double(a, ta, i);
  out[1] = load_as_double(b, tb, i);
}

}  // namespace

void fill_random(const TensorView& t, const Init& init, uint64_t seed, cudaStream_t s) {
  const int64_t n = t.numel();
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(t.data, t.dtype, n, init, seed);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void poison(const TensorView& t, cudaStream_t s) {
  const int64_t n = t.numel();
  if (n == 0) return;
  poison_kernel<<<blocks_for(n), kThreads, 0, s>>>(t.data, t.dtype, n);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void convert(const TensorView& src, const TensorView& dst, cudaStream_t s) {
  const int64_t n = src.numel();
  if (n != dst.numel()) throw std::logic_error("convert: element counts differ");
  if (n == 0) return;
  convert_kernel<<<blocks_for(n), kThreads, 0, s>>>(src.data, src.dtype, dst.data, dst.dtype, n);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

Comparison compare(const TensorView& got, const TensorView& expected, Tolerance tol, cudaStream_t s) {
  const int64_t n = got.numel();
  if (n != expected.numel())
    throw std::logic_error("compare: " + std::to_string(n) + " elements against " +
                           std::to_string(expected.numel()));
  DeviceBuffer acc_buf(sizeof(CompareAcc));
  CompareAcc init{0, 0, 0, ~0ull, 0, 0, 0};
  auto* acc = static_cast<CompareAcc*>(acc_buf.get());
  OPBENCH_CUDA_CHECK(cudaMemcpyAsync(acc, &init, sizeof init, cudaMemcpyHostToDevice, s));
  if (n > 0) {
    compare_kernel<<<blocks_for(n), kThreads, 0, s>>>(got.data, got.dtype, expected.data, expected.dtype, n,
                                                      tol.atol, tol.rtol, acc);
    OPBENCH_CUDA_CHECK(cudaGetLastError());
  }
  CompareAcc h{};
  OPBENCH_CUDA_CHECK(cudaMemcpyAsync(&h, acc, sizeof h, cudaMemcpyDeviceToHost, s));
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));

  Comparison c;
  std::memcpy(&c.max_abs_err, &h.max_abs_bits, sizeof(double));
  std::memcpy(&c.max_rel_err, &h.max_rel_bits, sizeof(double));
  c.rel_l2_err = h.sq_ref > 0 ? std::sqrt(h.sq_err / h.sq_ref) : std::sqrt(h.sq_err);
  c.violations = int64_t(h.violations);
  c.nonfinite = int64_t(h.nonfinite);
  if (h.violations) {
    c.first_violation = int64_t(h.first);
    DeviceBuffer pair(2 * sizeof(double));
    read_pair_kernel<<<1, 1, 0, s>>>(got.data, got.dtype, expected.data, expected.dtype, c.first_violation,
                                     static_cast<double*>(pair.get()));
    OPBENCH_CUDA_CHECK(cudaGetLastError());
    double hv[2];
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(hv, pair.get(), sizeof hv, cudaMemcpyDeviceToHost, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    c.got = hv[0];
    c.expected = hv[1];
  }
  return c;
}

}  // namespace opbench
