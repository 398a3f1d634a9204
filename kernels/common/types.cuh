// Device-side vocabulary shared by the framework's kernels: storage types per DType, conversion to and
// from the fp32 compute type, and 16-byte vector packets.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "opbench/dtype.hpp"

namespace fw {

using opbench::DType;

// fp16/bf16 compute in fp32; fp32 in fp32.
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// N elements of T in one aligned packet, loaded and stored with one instruction when N*sizeof(T) == 16.
template <class T, int N>
struct alignas(sizeof(T) * N) Packet {
  T v[N];
};

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the storage type for dt (float, __half, __nv_bfloat16):
//   dispatch_float(dt, [&](auto tag) { using T = typename decltype(tag)::type; ... });
template <class F>
inline void dispatch_float(DType dt, F&& f) {
  switch (dt) {
    case DType::f32: f(TypeTag<float>{}); return;
    case DType::f16: f(TypeTag<__half>{}); return;
    case DType::bf16: f(TypeTag<__nv_bfloat16>{}); return;
    default: break;
  }
  throw std::invalid_argument(std::string("unsupported dtype ") + opbench::dtype_name(dt));
}

__host__ __device__ constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// SM count of the current device, cached (launchers size persistent grids with it).
int sm_count();

}  // namespace fw
