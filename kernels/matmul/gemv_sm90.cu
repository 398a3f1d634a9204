// Decode GEMV with B as [K, N] (matmul, M = 1, batch 1) on Hopper, fp16/bf16 and fp32: y = x @ B (+ bias)
// is a stream over B (K x N elements) with one multiply-add per element, so the floor is reading B once:
// {1, 4096, 4096} moves 32 MiB (64 MiB in fp32) -> ~11 us (~22 us) at ~3.0 TB/s. The wgmma kernel spends
// 64-row tiles on one row and gives 64 CTAs for 132 SMs there (20.4 us, cuBLAS 13.7 us: report
// 20261124-130315); the fp32 skinny kernel (gemm_skinny.cu) zeroes C and adds its K chunks atomically, a
// second launch and one chunk of rows a thread with no loads in flight between them (28.3 us, cuBLAS
// 24.4 us: report 20261125-192853).
//
// Where N gives about one wave of 32-column strips (N = 4096 on H100) and K is short, one CTA a strip over the
// whole of K, one kernel (k_gemv_kn_strip). Elsewhere:
// One CTA per 32 x E columns (E = 16 / sizeof(T): 256 columns in 16 bits, 128 in fp32) and slice of K: up to
// 16 plain CTAs along K whose fp32 column sums a dependent kernel adds, or a cluster of CL = 8 (4, 2) CTAs
// along K (plan_of says which). Each lane owns E adjacent columns (16-byte chunks of B) and its warp a slice
// of the CTA's K range; B's rows reach shared memory through cp.async,
// 8 rows a group and three groups in flight a lane (up to 384 bytes a lane, 96 KiB a CTA, two CTAs an
// SM), with x's 8 values a group read as 16-byte broadcast loads. The 8 warps' sums meet in shared memory,
// a cluster's CL CTAs' in distributed shared memory (each CTA adds one slice of its columns over the cluster
// and writes it): no atomics, no zeroed buffer, no second pass. Grid: ceil(N / (32 E)) x CL CTAs, CL the most
// whose clusters all fit at once by the occupancy API (H100 with the 96 KiB ring: 30 clusters of 8, 62 of
// 4, 132 of 2). bench_ops on H100, fp32 {1, 4096, 4096}: 26.8 us with CL = 4 (32 clusters), 30.4 us with
// CL = 8 (two of its 32 clusters in a second wave), skinny kernel 28.3, cuBLAS 24.4; 16-bit N = 4096 keeps 8.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
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

// The streaming loop of every kernel below. Rows of B stream through shared memory with cp.async: register loads
// were interleaved with their multiply-adds by the compiler (two rows in flight a lane; ncu 58% of DRAM
// bandwidth). The thread copies one 16-byte chunk (columns col .. col + E - 1) of rows row_of(j, u), u < kBatch,
// for each of its `batches` batches into its own ring (slot (stage, u) at ring + (stage * kBatch + u) * stride),
// STAGES - 1 batches ahead, and reads back only what it copied itself, so the group wait is the only
// synchronisation. weights(j, a) gives batch j's kBatch values of x (0 for rows past the thread's range, which
// row_of maps to a row in range); after_prologue() runs once the first batches are on their way. batches = 0
// issues nothing and still runs after_prologue (which may hold a barrier).
template <class T, int STAGES, class RowOf, class Weights, class AfterPrologue>
__device__ __forceinline__ void stream_rows(uint4* ring, int stride, int batches, const T* __restrict__ B, int N,
                                            int col, RowOf row_of, Weights weights, AfterPrologue after_prologue,
                                            float (&acc)[kVec<T>]) {
  constexpr int E = kVec<T>;
  auto issue = [&](int j) {
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      gemm_dev::cp_async<16>(ring + ((j % STAGES) * kBatch + u) * stride, B + int64_t(row_of(j, u)) * N + col);
  };
#pragma unroll
  for (int e = 0; e < E; ++e) acc[e] = 0.0f;
#pragma unroll
  for (int j = 0; j < STAGES - 1; ++j) {
    if (j < batches) issue(j);
    gemm_dev::cp_async_commit();
  }
  after_prologue();
  for (int j = 0; j < batches; ++j) {
    if (j + STAGES - 1 < batches) issue(j + STAGES - 1);
    gemm_dev::cp_async_commit();
    float a[kBatch];
    weights(j, a);  // while the batch lands
    gemm_dev::cp_async_wait<STAGES - 1>();
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      float f[E];
      unpack<T>(ring[((j % STAGES) * kBatch + u) * stride], f);  // one 16-byte shared load
#pragma unroll
      for (int e = 0; e < E; ++e) acc[e] = fmaf(a[u], f[e], acc[e]);
    }
  }
}

// The CTA's column sums over its K range into total[kCols<T>]: thread c writes total[c] (c < kCols), so on return
// thread c may read its own; other threads (the cluster's) read them after a barrier.
template <class T>
__device__ __forceinline__ void cta_column_sums(const T* __restrict__ x, const T* __restrict__ B, int N, int K,
                                                int k_per_cta, uint4* ring, float (*part)[kCols<T>], float* total) {
  constexpr int E = kVec<T>, kC = kCols<T>;
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int col = int(blockIdx.x) * kC + lane * E;
  const int per_warp = k_per_cta / kWarps;
  const int k_begin = int(blockIdx.y) * k_per_cta + warp * per_warp;
  const int k_end = min(K, k_begin + per_warp);
  const int batches = k_end > k_begin ? (k_end - k_begin + kBatch - 1) / kBatch : 0;
  // Each lane's ring: [warp][stage][row][lane]. Rows past the warp's range re-read its last row, weight 0.
  float acc[E];
  stream_rows<T, kStages>(
      ring + warp * kStages * kBatch * 32 + lane, 32, col < N ? batches : 0, B, N, col,
      [&](int j, int u) { return min(k_begin + j * kBatch + u, k_end - 1); },
      [&](int j, float(&a)[kBatch]) {
        // x[k0 .. k0 + 7]: k0 is a multiple of 8 (K % 8 == 0 here); past K reads 0.
        const int k0 = k_begin + j * kBatch;
#pragma unroll
        for (int h = 0; h < kBatch / E; ++h) {
          const uint4 raw =
              k0 + E * h < K ? __ldg(reinterpret_cast<const uint4*>(x + k0 + E * h)) : make_uint4(0u, 0u, 0u, 0u);
          float f[E];
          unpack<T>(raw, f);
#pragma unroll
          for (int e = 0; e < E; ++e) a[E * h + e] = k0 + E * h + e < k_end ? f[e] : 0.0f;
        }
      },
      [] {}, acc);

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
}

// S CTAs along K (blockIdx.y), no cluster: each writes its column sums to partial[blockIdx.y][N]; k_gemv_sum,
// its programmatic dependent, adds them.
template <class T>
__global__ void __launch_bounds__(kThreads) k_gemv_kn_split(const T* __restrict__ x, const T* __restrict__ B, int N,
                                                            int K, int k_per_cta, float* __restrict__ partial) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  allow_dependents();
  extern __shared__ uint4 ring[];
  constexpr int kC = kCols<T>;
  __shared__ __align__(16) float part[kWarps][kC];
  __shared__ float total[kC];
  cta_column_sums<T>(x, B, N, K, k_per_cta, ring, part, total);
  const int n = int(blockIdx.x) * kC + int(threadIdx.x);
  if (threadIdx.x < kC && n < N) partial[int64_t(blockIdx.y) * N + n] = total[threadIdx.x];
#endif
}

template <class T>
__global__ void __launch_bounds__(256) k_gemv_sum(const float* partial, const T* __restrict__ bias, T* __restrict__ y,
                                                  int N, int splits) {
  wait_for_prerequisite();
  const int n = int(blockIdx.x) * 256 + int(threadIdx.x);
  if (n >= N) return;
  float s = 0.0f;
  for (int q = 0; q < splits; ++q) s += __ldcg(partial + int64_t(q) * N + n);
  y[n] = from_float<T>(bias ? s + to_float(bias[n]) : s);
}

// One CTA a strip of kStripCols columns over the whole of K: no split of K, so no partial sums and no second
// kernel (cuBLAS's 16-bit GEMV, `nvjet_sm90_tst_64x8_64x16_4x1`, is one kernel of 64 CTAs over 64-column strips).
// A row's strip is L = kStripCols / E 16-byte chunks (64 bytes in 16 bits, 128 in fp32); thread t copies chunk
// t % L of rows t / L + kStripRows i (stream_rows: kBatch rows a group, kStripStages groups in its own ring, up to
// 128 KiB in flight a CTA) and multiplies them by x, which the CTA holds in shared memory as fp32. Lanes of one
// chunk meet by shuffles, the warps in shared memory.
constexpr int kStripCols = 32;
constexpr int kStripStages = 5;  // 3 stages: bf16 {1, 4096, 4096} 14.11 / 14.14 us, 5: 13.79 / 13.73 (H100)
constexpr int kStripRingBytes = kStripStages * kBatch * kThreads * 16;
// The strips stream more slowly than the split kernel's 512-byte rows (64-byte pieces of each row in 16 bits) and
// win by the second kernel they save, so only where K is short: H100, us, strips against split + sum: bf16
// {1, 4096, 4096} 13.82 / 13.79 against 14.62 / 14.59, {1, 4000, 4104} 14.05 / 14.06 against 15.42 / 15.38, but
// {1, 4096, 8192} 25.63 / 25.65 against 24.96 / 24.96 and {1, 4096, 11008} 35.97 / 36.19 against 32.96 / 33.02
// (fp16 alike); fp32 {1, 4096, 4096} 23.87 / 23.76 against 25.22 / 25.25, {1, 4096, 8192} 46.02 / 46.03 against
// 46.75 / 46.94, {1, 4096, 11008} 62.99 / 62.88 against 62.37 / 62.43. Up to K = 4608 (4096 and a tail), in every
// dtype; x's fp32 copy is then at most 18 KB.
constexpr int kStripMaxK = 4608;

template <class T>
__global__ void __launch_bounds__(kThreads) k_gemv_kn_strip(const T* __restrict__ x, const T* __restrict__ B,
                                                            const T* __restrict__ bias, T* __restrict__ y, int N,
                                                            int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int E = kVec<T>, L = kStripCols / E, kStripRows = kThreads / L;
  extern __shared__ uint4 smem[];
  float* xs = reinterpret_cast<float*>(smem + kStripStages * kBatch * kThreads);
  __shared__ float part[kWarps][kStripCols];
  const int t = int(threadIdx.x), warp = t >> 5, lane = t & 31, r = t / L;
  const int col = int(blockIdx.x) * kStripCols + (t % L) * E;
  const bool live = col < N;
  const int batches = (ceil_div(K - r, kStripRows) + kBatch - 1) / kBatch;  // r < kStripRows <= K
  auto row = [&](int j, int u) { return r + kStripRows * (j * kBatch + u); };
  float acc[E];
  stream_rows<T, kStripStages>(
      smem + t, kThreads, live ? batches : 0, B, N, col,
      [&](int j, int u) { return min(row(j, u), K - 1); },  // past K: K - 1 again, weight 0
      [&](int j, float(&a)[kBatch]) {
#pragma unroll
        for (int u = 0; u < kBatch; ++u) a[u] = row(j, u) < K ? xs[row(j, u)] : 0.0f;
      },
      [&] {
        for (int k = t; k < K; k += kThreads) xs[k] = to_float(x[k]);  // while B's first groups load
        __syncthreads();
      },
      acc);
#pragma unroll
  for (int off = L; off < 32; off <<= 1)
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], off);
  if (lane < L) {
#pragma unroll
    for (int e = 0; e < E; ++e) part[warp][lane * E + e] = acc[e];
  }
  __syncthreads();
  if (t < kStripCols) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += part[w][t];
    const int n = int(blockIdx.x) * kStripCols + t;
    if (n < N) y[n] = from_float<T>(bias ? s + to_float(bias[n]) : s);
  }
#endif
}

// CL: CTAs along K in a cluster (2, 4 or 8), summed through distributed shared memory.
template <class T, int CL>
__global__ void __cluster_dims__(1, CL, 1) __launch_bounds__(kThreads)
    k_gemv_kn(const T* __restrict__ x, const T* __restrict__ B, const T* __restrict__ bias, T* __restrict__ y, int N,
              int K, int k_per_cta) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ uint4 ring[];
  constexpr int kC = kCols<T>;
  __shared__ __align__(16) float part[kWarps][kC];
  __shared__ float total[kC];
  cta_column_sums<T>(x, B, N, K, k_per_cta, ring, part, total);
  // The cluster's CTAs' sums per column.
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
  static fw::PerDevice<int> count;
  return count.get([] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(k_gemv_kn<T, CL>, cudaFuncAttributeMaxDynamicSharedMemorySize, kRingBytes));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, CL);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kRingBytes;
    int n = 0;
    FW_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, reinterpret_cast<const void*>(k_gemv_kn<T, CL>), &cfg));
    return n;
  });
}

template <class T, int CL>
void launch(dim3 grid, const T* x, const T* B, const T* bias, T* y, int N, int K, int k_per_cta, cudaStream_t s) {
  (void)active_clusters<T, CL>();  // the shared-memory limit
  k_gemv_kn<T, CL><<<grid, kThreads, kRingBytes, s>>>(x, B, bias, y, N, K, k_per_cta);
  FW_CHECK_LAUNCH();
}

// CTAs of k_gemv_kn_split<T> the GPU holds at once, by the occupancy API, once per device (this also sets the
// kernel's shared-memory limit).
template <class T>
int resident_split_ctas() {
  static fw::PerDevice<int> count;
  return count.get([] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(k_gemv_kn_split<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, kRingBytes));
    int per_sm = 0;
    FW_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_gemv_kn_split<T>, kThreads, kRingBytes));
    return per_sm * fw::device_props().sms;
  });
}

// How a call covers B: strips of kStripCols columns over the whole of K, one CTA each; or `splits` CTAs a column
// tile, in clusters (summed in distributed shared memory) or as plain CTAs (fp32 partial sums, added by a
// dependent kernel).
enum class Kind { strip, split, cluster };
struct Plan {
  Kind kind;
  int splits;  // 1 for strips
};

constexpr int kMaxSplits = 16;

// Clusters: the most CTAs along K (8, 4 or 2) whose clusters, one per column tile, all fit on the GPU at once
// (16-bit N = 4096 takes 8, N = 11008 4: with 8 its 43 clusters ran in two waves, 0.79x of cuBLAS). Plain CTAs
// where they give at least twice that many splits within one wave (up to 16). H100, A/B/A (clusters / twice the
// splits as plain CTAs, us): fp32 {1, 4096, 4096} 26.64 / 26.42 -> 25.22 / 25.28 (4 -> 8), {1, 4096, 11008} 63.74 /
// 63.31 -> 62.50 / 62.18, {1, 2048, 8192} 25.95 / 26.05 -> 25.06 / 25.18 (8 -> 16); bf16 {1, 4096, 4096} 14.53 /
// 14.62 -> 14.27 / 14.24 (8 -> 16), {1, 2048, 8192} 15.87 / 15.84 -> 14.75 / 14.66; fp16 alike. With as many
// splits as the clusters', plain CTAs gained nothing (fp32 {1, 4096, 4096} 26.69 / 26.67) and lost at N = 11008
// (bf16 34.43 / 34.96 against 33.47 / 33.46), where twice the splits take two waves: clusters there.
// Strips first, where they give one wave of at least 9/10 of the SMs (one CTA an SM: the ring and x take 178 KB;
// N of 3777-4224 on H100) and K is short (kStripMaxK): there they are the one kernel and as fast as cuBLAS's.
// Strips of 128 bytes a row (64 columns in 16 bits) in cluster pairs along K read rows in cuBLAS's width but paid
// the pair: bf16 {1, 4096, 4096} 14.74 / 14.69 us against 13.82 / 13.79.
template <class T>
Plan plan_of(int64_t N, int64_t K) {
  const int64_t strips = ceil_div(N, int64_t(kStripCols)), sms = fw::device_props().sms;
  if (K <= kStripMaxK && strips <= sms && detail::fills_a_wave(strips, sms)) return Plan{Kind::strip, 1};
  const int64_t tiles = ceil_div(N, int64_t(kCols<T>));
  const int cl = tiles <= active_clusters<T, 8>() ? 8 : tiles <= active_clusters<T, 4>() ? 4 : 2;
  const int64_t plain = std::min<int64_t>(kMaxSplits, resident_split_ctas<T>() / tiles);
  return plain >= 2 * cl ? Plan{Kind::split, int(plain)} : Plan{Kind::cluster, cl};
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
    const Plan p = plan_of<T>(N, K);
    const T* A = static_cast<const T*>(a.A);
    const T* B = static_cast<const T*>(a.B);
    const T* bias = static_cast<const T*>(a.bias);
    T* C = static_cast<T*>(a.C);
    if (p.kind == Kind::strip) {
      static fw::PerDevice<bool> configured;  // the shared-memory limit: the ring and x for K up to kStripMaxK
      (void)configured.get([] {
        FW_CUDA_CHECK(cudaFuncSetAttribute(k_gemv_kn_strip<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           kStripRingBytes + kStripMaxK * int(sizeof(float))));
        return true;
      });
      const size_t smem = size_t(kStripRingBytes) + size_t(K) * sizeof(float);
      k_gemv_kn_strip<T><<<unsigned(ceil_div(N, kStripCols)), kThreads, smem, s>>>(A, B, bias, C, N, K);
      FW_CHECK_LAUNCH();
      return;
    }
    const int64_t tiles = ceil_div(N, kCols<T>);
    const int k_per_cta = int(ceil_div(ceil_div(K, p.splits), kKStep) * kKStep);
    const dim3 grid{unsigned(tiles), unsigned(p.splits)};
    if (p.kind == Kind::split) {
      float* partial =
          static_cast<float*>(scratch(Scratch::splitk_partials, size_t(p.splits) * size_t(N) * sizeof(float)));
      k_gemv_kn_split<T><<<grid, kThreads, kRingBytes, s>>>(A, B, N, K, k_per_cta, partial);
      FW_CHECK_LAUNCH();
      launch_dependent(k_gemv_sum<T>, dim3(unsigned(ceil_div(N, 256))), dim3(256), s,
                       static_cast<const float*>(partial), bias, C, N, p.splits);
      return;
    }
    if (p.splits == 8) gemv::launch<T, 8>(grid, A, B, bias, C, N, K, k_per_cta, s);
    if (p.splits == 4) gemv::launch<T, 4>(grid, A, B, bias, C, N, K, k_per_cta, s);
    if (p.splits == 2) gemv::launch<T, 2>(grid, A, B, bias, C, N, K, k_per_cta, s);
  });
}

std::string gemv_name(const GemmArgs& a) {
  using namespace fw::gemv;
  Plan p{};
  dispatch_float(a.dt, [&](auto tag) { p = plan_of<typename decltype(tag)::type>(a.N, a.K); });
  if (p.kind == Kind::strip) return "gemv_kn strips of " + std::to_string(kStripCols) + " columns";
  return std::string(p.kind == Kind::cluster ? "gemv_kn cluster split-K " : "gemv_kn split-K ") +
         std::to_string(p.splits);
}

}  // namespace fw::detail
