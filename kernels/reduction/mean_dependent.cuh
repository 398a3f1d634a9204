// The last pass of a loss: out[0] = scale * sum(v[0, n)) over fp32 values that the kernel before it on the
// stream wrote (cross_entropy's row losses, mse_loss's block sums), launched as programmatic dependents of
// that kernel (dependent_launch.cuh), so that their launch overlaps it. Deterministic: fixed slices, fixed
// order of the additions.
//
// Up to kOneBlockValues values: one block of 1024 threads (16-byte loads, four in flight a thread). More:
// blocks of kSliceValues values each write their slice's sum to `scratch`, and one block adds those sums (two
// dependent launches). H100, cross_entropy (A/B/A, one lease): 262144 row losses (512x512x512) two passes
// 123.7 us against one block's 127.6 / 128.8 (fp32 194.7 against 198.9 / 199.1); but 65536 (256x256x256 bf16)
// 27.5 against 26.2 / 26.0, and 32768 (64x512x512) 22.4 against 21.2 / 21.1: the second pass's launch costs
// more than one block's extra loads up to about 128K values.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/common/ceil_div.hpp"
#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/types.cuh"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace rowwise {

constexpr int kMeanThreads = 1024;
constexpr int64_t kOneBlockValues = 131072;  // the most values one block adds (see above)
constexpr int64_t kSliceValues = 4096;      // one 16-byte load a thread a slice

// The sum of v[0, len) over the block (every thread gets it), v 16-byte aligned: 16-byte loads, four in flight
// a thread, a fixed order of the additions.
__device__ __forceinline__ float block_sum(const float* __restrict__ v, int64_t len) {
  const float4* v4 = reinterpret_cast<const float4*>(v);
  const int64_t n4 = len / 4, nt = blockDim.x;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int64_t i = threadIdx.x;
  for (; i + 3 * nt < n4; i += 4 * nt) {
    float4 q[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) q[u] = v4[i + u * nt];
#pragma unroll
    for (int u = 0; u < 4; ++u) acc[u] += (q[u].x + q[u].y) + (q[u].z + q[u].w);
  }
  for (; i < n4; i += nt) {
    const float4 q = v4[i];
    acc[0] += (q.x + q.y) + (q.z + q.w);
  }
  for (int64_t k = n4 * 4 + threadIdx.x; k < len; k += nt) acc[1] += v[k];
  const float mine = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  return block_sum_all(mine);
}

// Block b writes out[b] = scale * sum(v[b * per, min(n, (b + 1) * per))). per is a multiple of 4 and v is
// 16-byte aligned, so each slice is. A dependent of the kernel before it, and allows its own dependent.
template <class OutT>
__global__ void __launch_bounds__(kMeanThreads) sum_slices_kernel(const float* __restrict__ v, int64_t n,
                                                                  int64_t per, float scale, OutT* __restrict__ out) {
  allow_dependents();
  wait_for_prerequisite();
  const int64_t b0 = int64_t(blockIdx.x) * per;
  const float s = block_sum(v + b0, (n - b0 < per) ? n - b0 : per);
  if (threadIdx.x == 0) out[blockIdx.x] = from_float<OutT>(s * scale);
}

// Scratch (bytes) that mean_dependent needs for n values: the slice sums when it takes two passes.
inline std::size_t mean_scratch_bytes(int64_t n) {
  return n > kOneBlockValues ? std::size_t(round_up(ceil_div(n, kSliceValues) * 4, int64_t(256))) : 0;
}

// out[0] = scale * sum(v[0, n)), v 16-byte aligned; scratch: mean_scratch_bytes(n) bytes, 16-byte aligned.
template <class T>
void mean_dependent(const float* v, int64_t n, float scale, T* out, float* scratch, cudaStream_t stream) {
  if (n <= kOneBlockValues) {
    launch_dependent(sum_slices_kernel<T>, dim3(1), dim3(kMeanThreads), stream, v, n, n, scale, out);
    return;
  }
  FW_REQUIRE(scratch != nullptr, "mean_dependent: no scratch for the slice sums");
  const int64_t slices = ceil_div(n, kSliceValues);
  launch_dependent(sum_slices_kernel<float>, dim3(unsigned(slices)), dim3(kMeanThreads), stream, v, n, kSliceValues,
                   1.f, scratch);
  launch_dependent(sum_slices_kernel<T>, dim3(1), dim3(kMeanThreads), stream, static_cast<const float*>(scratch),
                   slices, slices, scale, out);
}

}  // namespace rowwise
}  // namespace fw
