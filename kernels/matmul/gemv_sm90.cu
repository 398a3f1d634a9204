// Decode GEMV with B as [K, N] (matmul, M = 1, batch 1) on Hopper, fp16/bf16 and fp32: y = x @ B (+ bias)
// is a stream over B (K x N elements) with one multiply-add per element, so the floor is reading B once:
// {1, 4096, 4096} moves 32 MiB (64 MiB in fp32) -> ~11 us (~22 us) at ~3.0 TB/s. The wgmma kernel spends
// 64-row tiles on one row and gives 64 CTAs for 132 SMs there (20.4 us, cuBLAS 13.7 us: report
// 20261124-130315); the fp32 skinny kernel (gemm_skinny.cu) zeroes C and adds its K chunks atomically, a
// second launch and one chunk of rows a thread with no loads in flight between them (28.3 us, cuBLAS
// 24.4 us: report 20261125-192853).
//
// One CTA per 32 x E columns (E = 16 / sizeof(T): 256 columns in 16 bits, 128 in fp32) and eighth
// (quarter, half) of K: a cluster of CL = 8 (4, 2) CTAs along K. Each lane owns E adjacent columns (16-byte
// chunks of B) and its warp a slice of the CTA's K range; B's rows reach shared memory through cp.async,
// 8 rows a group and three groups in flight a lane (up to 384 bytes a lane, 96 KiB a CTA, two CTAs an
// SM), with x's 8 values a group read as 16-byte broadcast loads. The 8 warps' sums meet in shared memory,
// the CL CTAs' in distributed shared memory (each CTA adds one slice of its columns over the cluster and
// writes it): no atomics, no zeroed buffer, no second pass. Grid: ceil(N / (32 E)) x CL CTAs, CL the most
// whose clusters all fit at once by the occupancy API (H100 with the 96 KiB ring: 30 clusters of 8, 62 of
// 4, 132 of 2). bench_ops on H100, fp32 {1, 4096, 4096}: 26.8 us with CL = 4 (32 clusters), 30.4 us with
// CL = 8 (two of its 32 clusters in a second wave), skinny kernel 28.3, cuBLAS 24.4; 16-bit N = 4096 keeps 8.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_common.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::gemv {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
template <class T>
constexpr int kVec = 16 / int(sizeof(T));  // columns of a lane: one 16-byte chunk of a row of B
template <class T>
constexpr int kCols = 32 * kVec<T>;        // columns per CTA: a warp's 32 lanes
constexpr int kBatch = 8;                  // rows of B per cp.async group of a lane
constexpr int kStages = 3;                 // groups in flight: the next two load while one is used
constexpr int kKStep = kWarps * kBatch;    // a CTA's K range is a multiple of this
// Dynamic shared memory: each lane's ring of 16-byte chunks, [warp][stage][row][lane] (96 KiB: two CTAs
// an SM, so that the 16 clusters of N = 4096 fit the GPCs in one wave).
constexpr int kRingBytes = kWarps * kStages * kBatch * 32 * 16;

namespace cg = cooperative_groups;

// The kVec<T> values of a 16-byte chunk held in registers to fp32 (16-bit: a 32-bit word at a time).
template <class T>
__device__ __forceinline__ void unpack(const uint4 u, float (&f)[kVec<T>]) {
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (std::is_same<T, float>::value) {
      f[i] = __uint_as_float(w[i]);
    } else if constexpr (std::is_same<T, __half>::value) {
      const float2 p = __half22float2(*reinterpret_cast<const __half2*>(&w[i]));
      f[2 * i] = p.x, f[2 * i + 1] = p.y;
    } else {
      f[2 * i] = __uint_as_float(w[i] << 16);  // bf16 is the top half of an fp32
      f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
  }
}

// CL: CTAs along K in a cluster (2, 4 or 8), summed through distributed shared memory.
template <class T, int CL>
__global__ void __cluster_dims__(1, CL, 1) __launch_bounds__(kThreads)
    k_gemv_kn(const T* __restrict__ x, const T* __restrict__ B, const T* __restrict__ bias, T* __restrict__ y, int N,
              int K, int k_per_cta) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ uint4 ring[];
  constexpr int E = kVec<T>, kC = kCols<T>;
  __shared__ __align__(16) float part[kWarps][kC];
  __shared__ float total[kC];
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int col = int(blockIdx.x) * kC + lane * E;
  const int per_warp = k_per_cta / kWarps;
  const int k_begin = int(blockIdx.y) * k_per_cta + warp * per_warp;
  const int k_end = min(K, k_begin + per_warp);
  const int batches = k_end > k_begin ? (k_end - k_begin + kBatch - 1) / kBatch : 0;
  uint4* my = ring + warp * kStages * kBatch * 32 + lane;  // + (stage * kBatch + row) * 32

  // Rows of B stream through shared memory with cp.async: register loads were interleaved with their
  // multiply-adds by the compiler (two rows in flight a lane; ncu 58% of DRAM bandwidth). Each lane reads
  // back only the chunks it copied itself, so the group wait is the only synchronisation. Rows past the
  // warp's range re-read its last row and get a zero weight.
  auto issue = [&](int j) {
    const int k0 = k_begin + j * kBatch;
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      gemm_dev::cp_async<16>(my + ((j % kStages) * kBatch + u) * 32, B + int64_t(min(k0 + u, k_end - 1)) * N + col);
  };
  float acc[E];
#pragma unroll
  for (int e = 0; e < E; ++e) acc[e] = 0.0f;
  if (col < N && batches > 0) {
#pragma unroll
    for (int j = 0; j < kStages - 1; ++j) {
      if (j < batches) issue(j);
      gemm_dev::cp_async_commit();
    }
    for (int j = 0; j < batches; ++j) {
      if (j + kStages - 1 < batches) issue(j + kStages - 1);
      gemm_dev::cp_async_commit();
      // x[k0 .. k0 + 7] while the batch lands: k0 is a multiple of 8 (K % 8 == 0 here); past K reads 0.
      const int k0 = k_begin + j * kBatch;
      float a[kBatch];
#pragma unroll
      for (int h = 0; h < kBatch / E; ++h) {
        const uint4 raw =
            k0 + E * h < K ? __ldg(reinterpret_cast<const uint4*>(x + k0 + E * h)) : make_uint4(0u, 0u, 0u, 0u);
        float f[E];
        unpack<T>(raw, f);
#pragma unroll
        for (int e = 0; e < E; ++e) a[E * h + e] = k0 + E * h + e < k_end ? f[e] : 0.0f;
      }
      gemm_dev::cp_async_wait<kStages - 1>();
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        float f[E];
        const uint4 v = my[((j % kStages) * kBatch + u) * 32];  // one 16-byte shared load
        unpack<T>(v, f);
#pragma unroll
        for (int e = 0; e < E; ++e) acc[e] = fmaf(a[u], f[e], acc[e]);
      }
    }
  }

  // The warps' sums per column, then the cluster's CTAs' sums per column.
  float4* dst = reinterpret_cast<float4*>(&part[warp][lane * E]);
#pragma unroll
  for (int q = 0; q < E / 4; ++q) dst[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  __syncthreads();
  if (threadIdx.x < kC) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += part[w][threadIdx.x];
    total[threadIdx.x] = s;
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  constexpr int kSlice = kC / CL;
  if (threadIdx.x < kSlice) {
    const int c = int(cluster.block_rank()) * kSlice + int(threadIdx.x), n = int(blockIdx.x) * kC + c;
    float s = 0.0f;
#pragma unroll
    for (int q = 0; q < CL; ++q) s += *cluster.map_shared_rank(&total[c], q);
    if (n < N) y[n] = from_float<T>(bias ? s + to_float(bias[n]) : s);
  }
  cluster.sync();  // no CTA leaves while another still reads its shared memory
#endif
}

// Clusters of k_gemv_kn<T, CL> the GPU holds at once, by the occupancy API, once per device (this also
// sets the kernel's shared-memory limit, which every launch needs).
template <class T, int CL>
int active_clusters() {
  static std::once_flag once[64];
  static int count[64];
  const fw::DeviceProps& dev = fw::device_props();
  const int d = dev.device & 63;
  std::call_once(once[d], [&] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(k_gemv_kn<T, CL>, cudaFuncAttributeMaxDynamicSharedMemorySize, kRingBytes));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, CL);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kRingBytes;
    int n = 0;
    FW_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, reinterpret_cast<const void*>(k_gemv_kn<T, CL>), &cfg));
    count[d] = n;
  });
  return count[d];
}

template <class T, int CL>
void launch(dim3 grid, const T* x, const T* B, const T* bias, T* y, int N, int K, int k_per_cta, cudaStream_t s) {
  (void)active_clusters<T, CL>();  // the shared-memory limit
  k_gemv_kn<T, CL><<<grid, kThreads, kRingBytes, s>>>(x, B, bias, y, N, K, k_per_cta);
  FW_CHECK_LAUNCH();
}

}  // namespace fw::gemv

namespace fw::detail {

bool gemv_supported(const GemmArgs& a) {
  if (a.dt != DType::f32 && a.dt != DType::f16 && a.dt != DType::bf16) return false;
  if (a.b_layout != GemmLayout::kn || a.batch != 1 || a.M != 1) return false;
  // Enough columns for 64+ CTAs and enough K for every warp to stream: else the wgmma (16-bit) or skinny
  // (fp32) kernel. Rows of B in whole 16-byte chunks, x in 16-byte groups of its 8-row batches.
  const int64_t vec = 16 / int64_t(opbench::dtype_size(a.dt));
  if (a.N < 2048 || a.K < 1024 || a.N % vec != 0 || a.K % 8 != 0 || a.N > INT32_MAX || a.K > INT32_MAX) return false;
  if ((reinterpret_cast<uintptr_t>(a.A) & 15) || (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  const DeviceProps& dev = device_props();
  return dev.cc_major == 9 && dev.cc_minor == 0;  // the kernels are built for sm_90a only
}

void gemm_gemv(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::gemv;
  FW_REQUIRE(gemv_supported(a), "the gemv path takes fp32/fp16/bf16, B as [K, N], batch 1, M = 1");
  const int N = int(a.N), K = int(a.K);
  dispatch_float(a.dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The most CTAs along K (8, 4 or 2) whose clusters, one per column tile, all fit on the GPU at once
    // (16-bit N = 4096 takes 8, N = 11008 4: with 8 its 43 clusters ran in two waves, 0.79x of cuBLAS).
    const int64_t tiles = ceil_div(N, kCols<T>);
    const int cl = tiles <= active_clusters<T, 8>() ? 8 : tiles <= active_clusters<T, 4>() ? 4 : 2;
    const int k_per_cta = int(ceil_div(ceil_div(K, cl), kKStep) * kKStep);
    const dim3 grid{unsigned(tiles), unsigned(cl)};
    const T* A = static_cast<const T*>(a.A);
    const T* B = static_cast<const T*>(a.B);
    const T* bias = static_cast<const T*>(a.bias);
    T* C = static_cast<T*>(a.C);
    if (cl == 8) gemv::launch<T, 8>(grid, A, B, bias, C, N, K, k_per_cta, s);
    if (cl == 4) gemv::launch<T, 4>(grid, A, B, bias, C, N, K, k_per_cta, s);
    if (cl == 2) gemv::launch<T, 2>(grid, A, B, bias, C, N, K, k_per_cta, s);
  });
}

}  // namespace fw::detail
