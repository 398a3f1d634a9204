// Probe (not product code; notes/performance.md, fifty-fourth round, x145): a decode GEMM
// Y[64, N] = X[64, K] . W[N, K]^T (bf16, fp32 accumulate) that streams W with 16-byte LDGs straight into mma.sync
// fragments (K permuted inside each 32-element step, the same way for W and X), X's K-slice in shared memory or read
// through L1, split-K over a cluster of CTAs reduced through distributed shared memory. Checked against cuBLAS and
// timed beside it (events, cold L2). Build and run on the GPU node:
//   nvcc -std=c++17 -O3 -arch=sm_90a -o decode_ldg decode_ldg_mma_probe.cu -lcublas && ./decode_ldg 4096 4096
// Measured (H200): every variant exact to bf16 rounding, none faster than 26 us where cuBLAS takes 14.2.
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
namespace cg = cooperative_groups;
#define CK(x)                                                          \
  do {                                                                 \
    auto e_ = (x);                                                     \
    if (e_ != 0) {                                                     \
      std::printf("error %d at %s:%d\n", int(e_), __FILE__, __LINE__); \
      std::exit(1);                                                    \
    }                                                                  \
  } while (0)

constexpr int MT = 64;  // tokens

__device__ __forceinline__ uint4 ldw(const uint4* p, int hint) {
  uint4 v;
  if (hint == 1)
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  else
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  return v;
}
__device__ __forceinline__ void mma(float* d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                    uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <int KS, int U, int HINT, int MODE = 0, int CL = 4, int WARPS = 8, bool XG = false>
__global__ void __launch_bounds__(WARPS * 32, 1)
    k_decode(const __nv_bfloat16* __restrict__ X, const __nv_bfloat16* __restrict__ W, __nv_bfloat16* __restrict__ Y,
             int N, int K) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int ROWS = WARPS * 16, THREADS = WARPS * 32;
  constexpr int XS = KS + 8;  // padded row: the 8 rows of a fragment load hit 8 different 16-byte bank groups
  constexpr int STEPS = KS / 32;
  __nv_bfloat16* xs = reinterpret_cast<__nv_bfloat16*>(smem);
  cg::cluster_group cluster = cg::this_cluster();
  const int split = int(cluster.block_rank());
  const int rb = blockIdx.x / CL;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
  const int n0 = rb * ROWS + warp * 16;
  const int k0 = split * KS;
  const uint4* w0 = reinterpret_cast<const uint4*>(W + size_t(n0 + g) * K + k0 + t4 * 8);
  const uint4* w1 = reinterpret_cast<const uint4*>(W + size_t(n0 + g + 8) * K + k0 + t4 * 8);
  uint4 wa[U], wb[U];
#pragma unroll
  for (int u = 0; u < U; ++u) wa[u] = ldw(w0 + u * 4, HINT), wb[u] = ldw(w1 + u * 4, HINT);
  for (int i = threadIdx.x; i < (XG ? 0 : MT * KS / 8); i += THREADS) {  // every chunk in flight at once (cp.async)
    const int r = i / (KS / 8), c = i % (KS / 8);
    const uint32_t dst = uint32_t(__cvta_generic_to_shared(xs + r * XS + c * 8));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(X + size_t(r) * K + k0 + c * 8));
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  float acc[8][4];
#pragma unroll
  for (int j = 0; j < 8; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  float acc2[8][4];
#pragma unroll
  for (int j = 0; j < 8; ++j) acc2[j][0] = acc2[j][1] = acc2[j][2] = acc2[j][3] = 0.f;
  for (int s0 = 0; s0 < (MODE == 4 ? 0 : STEPS); s0 += U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint4 a = wa[u], b = wb[u];
      const int step = s0 + u;
      if (MODE != 2 && step + U < STEPS) wa[u] = ldw(w0 + (step + U) * 4, HINT), wb[u] = ldw(w1 + (step + U) * 4, HINT);
      const __nv_bfloat16* xr = XG ? X + size_t(g) * K + k0 + step * 32 + t4 * 8 : xs + g * XS + step * 32 + t4 * 8;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const uint4 xv = XG ? __ldg(reinterpret_cast<const uint4*>(xr + size_t(j) * 8 * K))
                            : *reinterpret_cast<const uint4*>(xr + j * 8 * XS);
        if (MODE == 1) {  // no mma: keep the loads live
          acc[j][0] += __uint_as_float((a.x ^ b.y ^ xv.x) & 0x3fffffffu);
          acc[j][1] += __uint_as_float((a.z ^ b.w ^ xv.z) & 0x3fffffffu);
        } else if (MODE == 3) {  // the two k16 halves into separate accumulators (no dependent pair)
          mma(acc[j], a.x, b.x, a.y, b.y, xv.x, xv.y);
          mma(acc2[j], a.z, b.z, a.w, b.w, xv.z, xv.w);
        } else {
          mma(acc[j], a.x, b.x, a.y, b.y, xv.x, xv.y);
          mma(acc[j], a.z, b.z, a.w, b.w, xv.z, xv.w);
        }
      }
    }
  }
  if (MODE == 3)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[j][c] += acc2[j][c];
  __syncthreads();
  float* P = reinterpret_cast<float*>(smem);  // [64 tokens][128 rows] partial
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int tok = j * 8 + t4 * 2 + c;
      P[tok * ROWS + warp * 16 + g] = acc[j][c];
      P[tok * ROWS + warp * 16 + g + 8] = acc[j][2 + c];
    }
  cluster.sync();
  for (int i = threadIdx.x; i < (MT / CL) * (ROWS / 8); i += THREADS) {
    const int tok = split * (MT / CL) + i / (ROWS / 8), row = (i % (ROWS / 8)) * 8;
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int q = 0; q < CL; ++q) {
      const float* Pq = cluster.map_shared_rank(P, q);
      const float4 v0 = *reinterpret_cast<const float4*>(Pq + tok * ROWS + row);
      const float4 v1 = *reinterpret_cast<const float4*>(Pq + tok * ROWS + row + 4);
      s[0] += v0.x, s[1] += v0.y, s[2] += v0.z, s[3] += v0.w, s[4] += v1.x, s[5] += v1.y, s[6] += v1.z, s[7] += v1.w;
    }
    __align__(16) __nv_bfloat16 o[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) o[e] = __float2bfloat16(s[e]);
    *reinterpret_cast<uint4*>(Y + size_t(tok) * N + rb * ROWS + row) = *reinterpret_cast<const uint4*>(o);
  }
  cluster.sync();
}

__global__ void fill(__nv_bfloat16* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = __float2bfloat16((float(h & 0xffff) / 65535.f - 0.5f));
  }
}
__global__ void touch(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    s += p[i].x;
  if (s == 12345.f) *sink = s;
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? std::atoi(argv[1]) : 4096, K = argc > 2 ? std::atoi(argv[2]) : 4096;
  const bool quick = argc > 3;  // under ncu: a few launches
  __nv_bfloat16 *X, *W, *Y, *R;
  CK(cudaMalloc(&X, size_t(MT) * K * 2));
  CK(cudaMalloc(&W, size_t(N) * K * 2));
  CK(cudaMalloc(&Y, size_t(MT) * N * 2));
  CK(cudaMalloc(&R, size_t(MT) * N * 2));
  fill<<<1024, 256>>>(X, size_t(MT) * K, 1);
  fill<<<1024, 256>>>(W, size_t(N) * K, 2);
  const size_t fl_bytes = size_t(256) << 20;
  float4* fl;
  float* sink;
  CK(cudaMalloc(&fl, fl_bytes));
  CK(cudaMalloc(&sink, 4));
  cublasHandle_t h;
  CK(cublasCreate(&h));
  const float one = 1.f, zero = 0.f;
  auto cublas = [&] {
    CK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, MT, K, &one, W, CUDA_R_16BF, K, X, CUDA_R_16BF, K, &zero, R,
                    CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  cublas();
  CK(cudaDeviceSynchronize());
  std::vector<uint16_t> ref(size_t(MT) * N), got(size_t(MT) * N);
  CK(cudaMemcpy(ref.data(), R, ref.size() * 2, cudaMemcpyDeviceToHost));
  auto b2f = [](uint16_t v) {
    uint32_t u = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto timeit = [&](auto&& launch) {
    std::vector<float> t;
    const int reps = quick ? 3 : 60;
    for (int r = 0; r < reps; ++r) {
      CK(cudaMemsetAsync(fl, r & 0xff, fl_bytes));
      touch<<<1024, 256>>>(fl, fl_bytes / 16, sink);
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms * 1e3f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  std::printf("N=%d K=%d M=%d; W %.1f MB\n", N, K, MT, double(N) * K * 2 / 1e6);
  std::printf("cublas: %.2f us (events, cold L2)\n", timeit(cublas));
  auto run = [&](auto kern, int ks, int cl, int warps, bool xg, const char* name) {
    const int ROWS = warps * 16, THREADS = warps * 32;
    if (K != ks * cl || N % ROWS) {
      std::printf("%s: K must be %d and N a multiple of %d\n", name, ks * cl, ROWS);
      return;
    }
    const int sm = std::max(xg ? 0 : MT * (ks + 8) * 2, MT * ROWS * 4);
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, sm));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(unsigned(N / ROWS * cl));
    cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = size_t(sm);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = unsigned(cl);
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    int clusters = 0;
    CK(cudaOccupancyMaxActiveClusters(&clusters, kern, &cfg));
    const __nv_bfloat16 *cx = X, *cw = W;
    int n = N, k = K;
    auto launch = [&] { CK(cudaLaunchKernelEx(&cfg, kern, cx, cw, Y, n, k)); };
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), Y, got.size() * 2, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, double(std::fabs(b2f(got[i]) - b2f(ref[i]))) / (std::fabs(b2f(ref[i])) + 0.05));
    std::printf("%s: %.2f us (events, cold L2); max rel err vs cuBLAS %.3g; %d CTAs, %d clusters of %d resident\n",
                name, timeit(launch), worst, N / ROWS * cl, clusters, cl);
  };
  run(k_decode<1024, 4, 0, 0, 4, 8, false>, 1024, 4, 8, false, "X smem, 8 warps, cl4");
  run(k_decode<1024, 4, 0, 0, 4, 8, true>, 1024, 4, 8, true, "X L1, 8 warps, cl4");
  run(k_decode<2048, 4, 0, 0, 2, 4, true>, 2048, 2, 4, true, "X L1, 4 warps, cl2");
  run(k_decode<1024, 4, 0, 0, 4, 4, true>, 1024, 4, 4, true, "X L1, 4 warps, cl4");
  run(k_decode<1024, 8, 0, 0, 4, 4, true>, 1024, 4, 4, true, "X L1, 4 warps, cl4, U8");
  run(k_decode<512, 4, 0, 0, 8, 4, true>, 512, 8, 4, true, "X L1, 4 warps, cl8");
  run(k_decode<2048, 8, 0, 0, 2, 4, true>, 2048, 2, 4, true, "X L1, 4 warps, cl2, U8");
  return 0;
}
