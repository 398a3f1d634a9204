// Device-side vocabulary shared by the framework's kernels: storage types per DType, conversion to and
// from the fp32 compute type, and 16-byte vector packets.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/common/ceil_div.hpp"
#include "kernels/common/device.hpp"
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

// The raw bits of one element.
__device__ __forceinline__ unsigned raw_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned short raw_bits(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ unsigned short raw_bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }

// Stores a packet to global memory with one instruction of its full width. A plain assignment of a Packet
// of __half or __nv_bfloat16 is copied element by element (their assignment operators are user-provided),
// and unless nvcc can prove the address 16-byte aligned it keeps the pieces apart: the element-wise engine
// (whose body starts at a run-time offset) stored each 16-byte bf16 packet as 8 st.global.u16, and even a
// uint4 assembled from the bits was split into 4 st.global.u32. So the bits go out through one PTX
// st.global.v{1,2,4}.b32, a weak store like a plain assignment's. Not __stwb: its st.global.wb becomes
// STG.E.128.STRONG.SM in SASS, and ptxas keeps every later load behind a strong store (layer_norm fp32
// 1024x1024 then loaded each vector's weight and bias only after the previous vector's store: 4.3 -> 6.2 us
// on the H100). notes/performance.md has both effects.
template <class T, int N>
__device__ __forceinline__ void store_packet(T* dst, const Packet<T, N>& p) {
  constexpr int kBytes = int(sizeof(T)) * N;
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "a packet is one access");
  if constexpr (kBytes == 2) {
    *reinterpret_cast<unsigned short*>(dst) = raw_bits(p.v[0]);
  } else {
    constexpr int kWords = kBytes / 4;
    unsigned w[kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      if constexpr (sizeof(T) == 4) {
        w[i] = raw_bits(p.v[i]);
      } else {
        w[i] = unsigned(raw_bits(p.v[2 * i])) | (unsigned(raw_bits(p.v[2 * i + 1])) << 16);
      }
    }
    // "memory": the compiler must not move this thread's own later reads of dst above the store.
    if constexpr (kWords == 1) asm volatile("st.global.b32 [%0], %1;" ::"l"(dst), "r"(w[0]) : "memory");
    if constexpr (kWords == 2)
      asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(dst), "r"(w[0]), "r"(w[1]) : "memory");
    if constexpr (kWords == 4)
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                   "r"(w[3])
                   : "memory");
  }
}

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

constexpr float kLog2e = 1.4426950408889634f;
// One MUFU instruction on an fp32 value: FW_MUFU(name, "ptx") defines float name(float) as that instruction.
#define FW_MUFU(name, ptx)                          \
  __device__ __forceinline__ float name(float x) {  \
    float r;                                        \
    asm(ptx " %0, %1;" : "=f"(r) : "f"(x));         \
    return r;                                       \
  }
// 2^x, MUFU.EX2 (rel. error ~2^-22; -inf -> 0; results below 2^-126 flush to 0).
FW_MUFU(ex2, "ex2.approx.ftz.f32")
// log2(x), MUFU.LG2 with subnormal inputs scaled first (not .ftz): absolute error at most 2^-22 for x in [0.5, 2],
// 2 ulp elsewhere (the CUDA Math API's bound for __log2f); 0 -> -inf, negative -> NaN, inf -> inf.
FW_MUFU(lg2, "lg2.approx.f32")
// log2(x) for normal x: MUFU.LG2 as it is (.ftz: none of lg2()'s scaling of subnormal inputs, 3 instructions), with
// lg2()'s error bound.
FW_MUFU(lg2_normal, "lg2.approx.ftz.f32")
// 1 / sqrt(x), MUFU.RSQ (rel. error 2^-22.9, as rsqrtf; subnormal x flushed to 0: for normal x).
FW_MUFU(rsq, "rsqrt.approx.ftz.f32")
// 1 / x, MUFU.RCP (rel. error ~2^-23; inf -> 0; |x| >= 2^126 or subnormal flush: for x away from both).
FW_MUFU(rcp, "rcp.approx.ftz.f32")
#undef FW_MUFU

}  // namespace fw
