#include "kernels/model/model_kernels.hpp"

#include <algorithm>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"

namespace fw::model {
namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__global__ void fill_uniform_kernel(T* p, int64_t n, float lo, float span, uint64_t seed) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float u = float(splitmix64(seed ^ splitmix64(uint64_t(i))) >> 40) * 0x1p-24f;
    p[i] = from_float<T>(lo + span * u);
  }
}

template <class T>
__device__ __forceinline__ void atomic_add(T* p, float v);
template <>
__device__ __forceinline__ void atomic_add<float>(float* p, float v) { atomicAdd(p, v); }
template <>
__device__ __forceinline__ void atomic_add<__half>(__half* p, float v) { atomicAdd(p, __float2half_rn(v)); }
template <>
__device__ __forceinline__ void atomic_add<__nv_bfloat16>(__nv_bfloat16* p, float v) {
  atomicAdd(p, __float2bfloat16_rn(v));
}

template <class T>
__global__ void embedding_backward_kernel(const T* dx, const int64_t* tokens, T* d_embed, int64_t T_, int64_t hidden) {
  for (int64_t t = blockIdx.x; t < T_; t += gridDim.x) {
    const int64_t row = tokens[t];
    for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x)
      atomic_add<T>(d_embed + row * hidden + j, to_float(dx[t * hidden + j]));
  }
}

}  // namespace

void fill_uniform(opbench::DType dt, void* p, int64_t n, float lo, float hi, uint64_t seed, cudaStream_t stream) {
  FW_REQUIRE(n >= 0 && hi >= lo, "fill_uniform: n >= 0 and lo <= hi");
  if (n == 0) return;
  const int64_t blocks = std::min<int64_t>(ceil_div(n, 256), int64_t(sm_count()) * 16);
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_uniform_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(static_cast<T*>(p), n, lo, hi - lo, seed);
  });
  FW_CHECK_LAUNCH();
}

void embedding_backward(opbench::DType dt, const void* dx, const int64_t* tokens, void* d_embed, int64_t T,
                        int64_t hidden, int64_t vocab, cudaStream_t stream) {
  FW_REQUIRE(T >= 0 && hidden > 0 && vocab > 0, "embedding_backward: T >= 0, hidden and vocab positive");
  if (T == 0) return;
  const int64_t blocks = std::min<int64_t>(T, 65535);
  dispatch_float(dt, [&](auto tag) {
    using E = typename decltype(tag)::type;
    embedding_backward_kernel<E><<<unsigned(blocks), 256, 0, stream>>>(static_cast<const E*>(dx), tokens,
                                                                       static_cast<E*>(d_embed), T, hidden);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw::model
