// fp32 GEMM on the CUDA cores (true fp32, no TF32): C[b] = A[b] @ op(B[b]) (+ bias).
//
// One warp-tiled kernel, templated on its tile configuration (SimtCfg below):
//   - block tile BM x BN, k-block BK, WM x WN warps; each warp owns a WTM x WTN = (BM/WM) x (BN/WN) tile;
//     its lanes form an LY x LX grid and each lane accumulates TM x TN = (WTM/LY) x (WTN/LX) outputs in
//     4x4 quadrants (rows q*4*LY + ly*4 + i, columns q*4*LX + lx*4 + j inside the warp tile), so that
//     per k step a lane reads its fragments with TM/4 + TN/4 16-byte shared loads for TM*TN FMAs, and a
//     warp's 16-byte loads touch only 16*LY (A) and 16*LX (B) distinct bytes (broadcast).
//   - A (and W for linear) tiles are stored transposed in shared memory ([k][m], rows padded by 4
//     floats), copied element-wise by cp.async into their transposed places (consecutive threads take
//     consecutive k of a row: 32-byte global sectors, distinct banks); B[K,N] tiles are copied as they
//     are, 16 bytes at a time when its rows allow it (N % 4 == 0, 16-byte aligned), else element-wise.
//   - A STAGES-deep cp.async pipeline (STAGES - 1 k-blocks in flight, one barrier per k-block) and
//     double-buffered register fragments (step k + 1's shared loads issued before step k's FMAs),
//     the structure of cuBLAS's own SGEMM kernel on H100 (sm80_xmma_gemm_..._tilesize256x128x8_stage3
//     per ncu). Copies of blocks entirely in range skip the bounds checks.
//   split-K (batch 1, too few tiles to fill the GPU): blockIdx.z is a K chunk. Up to 4 chunks form a
//   thread-block cluster along z: each CTA leaves its accumulators in its shared memory and adds one
//   slice of the tile's rows over the cluster's CTAs (distributed shared memory), so nothing is zeroed
//   first and nothing is added atomically. More chunks: C is zeroed first and the chunks add into it
//   atomically (launch_simt says why).
// Also here: the K == 0 fill (C = bias or 0).
//
// Cost: 2*B*M*N*K FLOPs. H100 SXM fp32 FMA peak is 132 SMs x 128 lanes x 2 x ~1.98 GHz = 67 TFLOP/s;
// for 4096^3 (137 GFLOP) that is a 2.05 ms floor; cuBLAS's SGEMM reaches ~52 TFLOP/s (2.65 ms), this
// kernel 2.75 ms (96% of it) in the tuning harness on H100. ncu there: issue slots 82% busy (cuBLAS
// 91%), 2.44 G instructions (cuBLAS 2.43 G), the rest of the gap in dispatch stalls (0.21 vs 0.10
// per instruction).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_common.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::simt {

constexpr int PAD = 4;

template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int MINB_, int STAGES_>
struct SimtCfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, LY = LY_, LX = 32 / LY_, MINB = MINB_;
  static constexpr int STAGES = STAGES_;
  static constexpr int THREADS = 32 * WM * WN;
  static constexpr int WTM = BM / WM, WTN = BN / WN;  // warp tile
  static constexpr int TM = WTM / LY, TN = WTN / LX;  // thread tile
  static constexpr int LDA = BM + PAD, LDB = BN + PAD;  // shared row lengths (floats)
  static constexpr int STAGE_FLOATS = BK * (LDA + LDB);
  static constexpr int SMEM = STAGES * STAGE_FLOATS * 4;  // bytes of dynamic shared memory
  static constexpr bool TILE_FITS = BM * BN <= STAGES * STAGE_FLOATS;  // the fp32 tile in the pipeline buffers
  static_assert(LY * LX == 32 && BM % WM == 0 && BN % WN == 0, "warp layout");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && TM * LY == WTM && TN * LX == WTN, "thread tile");
  static_assert(BM * BK % THREADS == 0 && BN * BK % (4 * THREADS) == 0 && STAGES >= 2 && BK % 2 == 0, "loads");
};

struct Params {
  const float* A;
  const float* B;
  const float* bias;
  float* C;
  int M, N, K;
  int splits = 1;   // split-K: blockIdx.z is the K chunk (batch 1 only)
  int k_chunk = 0;  // K per chunk, a multiple of BK
  bool cluster = false;  // the chunks are one cluster (reduced in distributed shared memory), else atomics
};

using gemm_dev::cp_async;
using gemm_dev::cp_async_commit;
using gemm_dev::cp_async_wait;

// A K-contiguous operand tile (A, or W for linear): ROWS x BK elements copied one by one into its
// transposed place [k][row] (row stride LD). Consecutive threads take consecutive k of a row: each row's
// BK floats are one 32-byte sector in global memory, and the shared-memory stores hit distinct banks.
// Thread t copies rows t / BK + u * (THREADS / BK), column t % BK. FULL: the whole tile is in range
// (no bounds checks).
template <int ROWS, int BK, int LD, int THREADS, bool FULL>
__device__ __forceinline__ void load_k_major(float* dst, const float* __restrict__ X, int rows, int K, int r0,
                                             int k0) {
  constexpr int STEP = THREADS / BK;  // rows between a thread's copies
  const int r = threadIdx.x / BK, k = threadIdx.x % BK;
  const float* src = X + int64_t(r0 + r) * K + k0 + k;
  float* d = dst + k * LD + r;
#pragma unroll
  for (int u = 0; u < ROWS / STEP; ++u) {
    if (FULL) {
      cp_async<4>(d + u * STEP, src + int64_t(u) * STEP * K);
    } else {
      const bool ok = r0 + r + u * STEP < rows && k0 + k < K;
      cp_async<4>(d + u * STEP, ok ? src + int64_t(u) * STEP * K : X, ok);
    }
  }
}

// One k-block (A and B tiles) into pipeline stage buffers sa / sb; FULL: the tiles are entirely in range.
template <class Cfg, bool B_NK, bool VEC, bool FULL>
__device__ __forceinline__ void load_stage(float* sa, float* sb, const float* __restrict__ A,
                                           const float* __restrict__ B, const Params& p, int m0, int n0, int k0) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, T = Cfg::THREADS;
  static_assert(T % BK == 0 && BM % (T / BK) == 0 && BN % (T / BK) == 0, "copy layout");
  load_k_major<BM, BK, Cfg::LDA, T, FULL>(sa, A, p.M, p.K, m0, k0);
  if (B_NK) {
    load_k_major<BN, BK, Cfg::LDB, T, FULL>(sb, B, p.N, p.K, n0, k0);
  } else if (VEC) {
    // B[K,N] rows as they are: 16-byte copies (N % 4 == 0, so a quad is in range or out entirely).
    constexpr int Q = BN / 4, STEP = T / Q;  // quads per row; rows between a thread's copies
    static_assert(T % Q == 0 || Q % T == 0, "copy layout");
#pragma unroll
    for (int u = 0; u < BK * Q / T; ++u) {
      const int id = threadIdx.x + u * T;
      const int k = id / Q, n = (id % Q) * 4;
      const float* src = B + int64_t(k0 + k) * p.N + n0 + n;
      if (FULL) {
        cp_async<16>(sb + k * Cfg::LDB + n, src);
      } else {
        const bool ok = k0 + k < p.K && n0 + n < p.N;
        cp_async<16>(sb + k * Cfg::LDB + n, ok ? src : B, ok);
      }
      (void)STEP;
    }
  } else {
#pragma unroll
    for (int u = 0; u < BK * BN / T; ++u) {
      const int id = threadIdx.x + u * T;
      const int k = id / BN, n = id % BN;
      const bool ok = FULL || (k0 + k < p.K && n0 + n < p.N);
      cp_async<4>(sb + k * Cfg::LDB + n, ok ? B + int64_t(k0 + k) * p.N + n0 + n : B, ok);
    }
  }
}

// Picks the unchecked copies when the k-block's tiles are entirely in range.
template <class Cfg, bool B_NK, bool VEC>
__device__ __forceinline__ void load_stage_any(bool interior, float* sa, float* sb, const float* __restrict__ A,
                                               const float* __restrict__ B, const Params& p, int m0, int n0,
                                               int k0) {
  if (interior && k0 + Cfg::BK <= p.K)
    load_stage<Cfg, B_NK, VEC, true>(sa, sb, A, B, p, m0, n0, k0);
  else
    load_stage<Cfg, B_NK, VEC, false>(sa, sb, A, B, p, m0, n0, k0);
}

template <class Cfg, bool B_NK, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB)
    k_gemm_simt(const Params p, int64_t sA, int64_t sB, int64_t sC) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
  constexpr int LDA = Cfg::LDA, LDB = Cfg::LDB, LY = Cfg::LY, LX = Cfg::LX;
  constexpr int STAGES = Cfg::STAGES;
  extern __shared__ __align__(16) float smem[];  // STAGES x {A [BK][LDA], B [BK][LDB]}
  const bool split = p.splits > 1;
  const int bz = split ? 0 : blockIdx.z;
  const int k_begin = split ? int(blockIdx.z) * p.k_chunk : 0;
  const int k_end = split ? min(p.K, k_begin + p.k_chunk) : p.K;
  const float* A = p.A + bz * sA;
  const float* B = p.B + bz * sB;
  float* C = p.C + bz * sC;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // This lane's first row / column inside the block tile (quadrant q adds q*4*LY rows, q*4*LX columns).
  const int tm0 = (warp / Cfg::WN) * Cfg::WTM + (lane / LX) * 4;
  const int tn0 = (warp % Cfg::WN) * Cfg::WTN + (lane % LX) * 4;
  const int nkt = (k_end - k_begin + BK - 1) / BK;  // tiles past K are zero-filled by the loads
  const bool interior = m0 + BM <= p.M && n0 + BN <= p.N;  // no row / column checks in the copies
  auto stage_a = [&](int st) { return smem + st * Cfg::STAGE_FLOATS; };
  auto stage_b = [&](int st) { return smem + st * Cfg::STAGE_FLOATS + BK * LDA; };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  // Multistage pipeline: STAGES - 1 k-blocks in flight while one is multiplied, one barrier per k-block.
  // Register fragments are double-buffered: the loads for step k + 1 (at the last step: step 0 of the
  // next stage, right after its barrier) are issued before the FMAs of step k.
#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < nkt) load_stage_any<Cfg, B_NK, VEC>(interior, stage_a(st), stage_b(st), A, B, p, m0, n0, k_begin + st * BK);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 2>();
  __syncthreads();

  float av[2][TM], bv[2][TN];
  auto load_frag = [&](float (&a)[TM], float (&b)[TN], int st, int k) {
    const float* sa = stage_a(st) + tm0 + k * LDA;
    const float* sb = stage_b(st) + tn0 + k * LDB;
#pragma unroll
    for (int q = 0; q < TM / 4; ++q) {
      const float4 v = *reinterpret_cast<const float4*>(sa + q * 4 * LY);
      a[4 * q] = v.x, a[4 * q + 1] = v.y, a[4 * q + 2] = v.z, a[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int q = 0; q < TN / 4; ++q) {
      const float4 v = *reinterpret_cast<const float4*>(sb + q * 4 * LX);
      b[4 * q] = v.x, b[4 * q + 1] = v.y, b[4 * q + 2] = v.z, b[4 * q + 3] = v.w;
    }
  };
  load_frag(av[0], bv[0], 0, 0);
  int rd = 0;  // the stage being read
  for (int kt = 0; kt < nkt; ++kt) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k == BK - 1) {
        // Stage kt + 1 complete and visible; every thread is done with stage kt - 1, which the copies
        // issued at step 0 of the next k-block overwrite.
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        rd = rd + 1 == STAGES ? 0 : rd + 1;
      }
      load_frag(av[(k + 1) & 1], bv[(k + 1) & 1], rd, (k + 1) % BK);
      if (k == 0) {
        const int nt = kt + STAGES - 1;
        if (nt < nkt)
          load_stage_any<Cfg, B_NK, VEC>(interior, stage_a(nt % STAGES), stage_b(nt % STAGES), A, B, p, m0, n0,
                                         k_begin + nt * BK);
        cp_async_commit();
      }
      // Serpentine order: consecutive FMAs share an operand, also across rows (register reuse).
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj) {
          const int j = (i % 2) ? TN - 1 - jj : jj;
          acc[i][j] = fmaf(av[k & 1][i], bv[k & 1][j], acc[i][j]);
        }
    }
  }
  cp_async_wait<0>();

  if constexpr (Cfg::TILE_FITS) {
    if (split && p.cluster) {
      // The cluster's CTAs (one per K chunk, same tile) leave their sums in shared memory; CTA r adds rows
      // r, r + S, ... of the tile over all S and stores them (+ bias).
      namespace cg = cooperative_groups;
      cg::cluster_group cluster = cg::this_cluster();
      __syncthreads();  // every thread is done reading the pipeline buffers
      float* tile = smem;  // [BM][BN]
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int qn = 0; qn < TN / 4; ++qn)
          *reinterpret_cast<float4*>(tile + (tm0 + (i / 4) * 4 * LY + (i % 4)) * BN + tn0 + qn * 4 * LX) =
              make_float4(acc[i][qn * 4], acc[i][qn * 4 + 1], acc[i][qn * 4 + 2], acc[i][qn * 4 + 3]);
      cluster.sync();
      const int S = int(cluster.num_blocks()), r = int(cluster.block_rank());
      const int my_rows = (BM - r + S - 1) / S;
      for (int e = threadIdx.x; e < my_rows * BN; e += Cfg::THREADS) {
        const int tr = r + S * (e / BN), tc = e % BN;
        const int row = m0 + tr, col = n0 + tc;
        float v = 0.f;
        for (int q = 0; q < S; ++q) v += *cluster.map_shared_rank(tile + tr * BN + tc, q);
        if (row < p.M && col < p.N) C[int64_t(row) * p.N + col] = p.bias ? v + p.bias[col] : v;
      }
      cluster.sync();  // no CTA leaves while another still reads its shared memory
      return;
    }
  }

  // Epilogue: 16-byte stores where aligned; split-K adds atomically (the bias once, by chunk 0).
  const bool vec_out = !split && (p.N % 4 == 0) && ((reinterpret_cast<uintptr_t>(C) & 15) == 0);
  const bool add_bias = p.bias && (!split || blockIdx.z == 0);
#pragma unroll
  for (int qn = 0; qn < TN / 4; ++qn) {
    const int col = n0 + tn0 + qn * 4 * LX;
    if (col >= p.N) continue;
    float bb[4] = {0.f, 0.f, 0.f, 0.f};
    if (add_bias) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (col + j < p.N) bb[j] = p.bias[col + j];
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + tm0 + (i / 4) * 4 * LY + (i % 4);
      if (row >= p.M) continue;
      float* dst = C + int64_t(row) * p.N + col;
      const float v0 = acc[i][qn * 4 + 0] + bb[0], v1 = acc[i][qn * 4 + 1] + bb[1];
      const float v2 = acc[i][qn * 4 + 2] + bb[2], v3 = acc[i][qn * 4 + 3] + bb[3];
      if (split) {
        atomicAdd(dst, v0);
        if (col + 1 < p.N) atomicAdd(dst + 1, v1);
        if (col + 2 < p.N) atomicAdd(dst + 2, v2);
        if (col + 3 < p.N) atomicAdd(dst + 3, v3);
      } else if (vec_out && col + 3 < p.N) {
        *reinterpret_cast<float4*>(dst) = make_float4(v0, v1, v2, v3);
      } else {
        dst[0] = v0;
        if (col + 1 < p.N) dst[1] = v1;
        if (col + 2 < p.N) dst[2] = v2;
        if (col + 3 < p.N) dst[3] = v3;
      }
    }
  }
}

template <class T>
__global__ void k_fill_bias(T* C, const T* bias, int64_t rows, int64_t N) {
  const int64_t n = rows * N;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    C[i] = bias ? bias[i % N] : from_float<T>(0.f);
}

// The configurations (index = simt_pick's answer, names in simt_config_name).
//                                 BM   BN  BK WM WN LY MINB STAGES   warp tile, thread tile, threads
using Cfg0 = SimtCfg<128, 256, 16, 2, 4, 8, 1, 3>;  // 64x64, 8x16, 256 (cuBLAS's SGEMM tile, mirrored)
using Cfg1 = SimtCfg<128, 128, 8, 2, 2, 8, 2, 3>;   // 64x64, 8x16, 128
using Cfg2 = SimtCfg<64, 64, 16, 2, 2, 4, 4, 3>;    // 32x32, 8x4, 128
using Cfg3 = SimtCfg<32, 32, 16, 1, 2, 8, 8, 3>;    // 32x16, 4x4, 64 (cuBLAS's 32x32 tile for small problems)

}  // namespace fw::simt

namespace fw::detail {

bool simt_vector_ok(const GemmArgs& a) {
  // 16-byte copies of B[K, N] rows (A and W are copied element-wise into their transposed places).
  return a.b_layout == GemmLayout::kn && (reinterpret_cast<uintptr_t>(a.B) & 15) == 0 && a.N % 4 == 0;
}

// Split-K when one problem has too few output tiles to fill the GPU (decode-like M = 1 .. 64, small
// squares): the K chunks run in parallel and add into a zeroed C. Measured on H100 before it:
// {64, 4096, 4096} fp32 at 0.35 ms (64 blocks for 132 SMs) against cuBLAS's 0.06 ms.
// The count: at least two blocks an SM on average (`want`), chunks of at least `min_chunk` k-blocks (8; 4
// for the 32x32 tile, whose chunks are a quarter of the work: 256^3 in 4 chunks of 4 took 6.4 us against
// 7.1 unsplit, H100, where the 64x64 tile split from 16 k-blocks lost, 10.1 -> 10.8), at most 64;
// from `want` up to twice it, the count whose busiest SM has the least to do. The blocks all fit at once
// (the splitting configuration holds four an SM), so the busiest SM runs ceil(tiles * s / sms) blocks of
// ceil(nkb / s) k-blocks. {64, 4096, 4096}: `want` alone gave 5 splits, 320 blocks, 3 on 56 SMs and 2 on
// the others (156 k-blocks on the busiest); 8 splits give 4 blocks of 32 (128).
int simt_split_count(int64_t tiles, int64_t nkb, int64_t sms, int64_t min_chunk) {
  if (tiles >= sms || nkb < 4 * min_chunk) return 1;
  const int64_t want = ceil_div(2 * sms, tiles), most = std::min<int64_t>(nkb / min_chunk, 64);
  const auto busiest = [&](int64_t s) { return ceil_div(tiles * s, sms) * ceil_div(nkb, s); };
  int64_t best = std::min(want, most);
  for (int64_t s = best + 1; s <= std::min(2 * want, most); ++s)
    if (busiest(s) < busiest(best)) best = s;
  return int(std::max<int64_t>(1, best));
}

namespace {
template <class Cfg>
int simt_splits(const GemmArgs& a) {
  if (a.batch != 1) return 1;
  constexpr int64_t kMinChunk = Cfg::BM * Cfg::BN <= 32 * 32 ? 4 : 8;  // simt_split_count says why
  return simt_split_count(ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN), ceil_div(a.K, Cfg::BK),
                          device_props().sms, kMinChunk);
}

template <class Cfg, bool B_NK, bool VEC>
void run_simt(const fw::simt::Params& p, dim3 grid, cudaStream_t s, int64_t sA, int64_t sB, int64_t sC) {
  auto kern = fw::simt::k_gemm_simt<Cfg, B_NK, VEC>;
  static PerDevice<bool> configured;  // the shared-memory limit, set once per device
  (void)configured.get([&] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM));
    return true;
  });
  if (!p.cluster) {
    kern<<<grid, Cfg::THREADS, Cfg::SMEM, s>>>(p, sA, sB, sC);
    return;
  }
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 1;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = grid.z;  // the K chunks of one tile
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(Cfg::THREADS);
  cfg.dynamicSmemBytes = Cfg::SMEM;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  FW_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kern, p, sA, sB, sC));
}

template <class Cfg>
void launch_simt(const GemmArgs& a, cudaStream_t s, bool vec) {
  using namespace fw::simt;
  FW_REQUIRE(ceil_div(a.M, Cfg::BM) <= 65535 && a.batch <= 65535, "M or batch too large for the grid");
  Params p{static_cast<const float*>(a.A), static_cast<const float*>(a.B), static_cast<const float*>(a.bias),
           static_cast<float*>(a.C), int(a.M), int(a.N), int(a.K)};
  const int64_t sA = a.M * a.K, sB = a.K * a.N, sC = a.M * a.N;
  p.splits = simt_splits<Cfg>(a);
  unsigned gz = unsigned(a.batch);
  if (p.splits > 1) {
    p.k_chunk = int(ceil_div(ceil_div(a.K, p.splits), Cfg::BK) * Cfg::BK);
    p.splits = int(ceil_div(a.K, p.k_chunk));
    gz = unsigned(p.splits);
    // Clusters of up to 4 chunks on Hopper, else zeroed C and atomics. H100, bench_ops: {512, 512, 512}
    // (64 tiles, clusters of 4) 17.4 -> 15.7 us; {64, 4096, 4096} (64 tiles, clusters of 8) 62.1 -> 72.9 us,
    // so 8 chunks keep the atomics.
    const DeviceProps& dev = device_props();
    p.cluster = Cfg::TILE_FITS && p.splits <= 4 && dev.cc_major >= 9;
    if (!p.cluster) FW_CUDA_CHECK(cudaMemsetAsync(a.C, 0, size_t(a.M * a.N) * sizeof(float), s));
  }
  const dim3 grid(unsigned(ceil_div(a.N, Cfg::BN)), unsigned(ceil_div(a.M, Cfg::BM)), gz);
  const bool nk = a.b_layout == GemmLayout::nk;
  if (nk) run_simt<Cfg, true, false>(p, grid, s, sA, sB, sC);  // W rows are copied element-wise anyway
  if (!nk && vec) run_simt<Cfg, false, true>(p, grid, s, sA, sB, sC);
  if (!nk && !vec) run_simt<Cfg, false, false>(p, grid, s, sA, sB, sC);
  FW_CHECK_LAUNCH();
}
}  // namespace

const char* simt_config_name(int c) {
  static const char* const names[kSimtConfigs] = {"128x256/8x16", "128x128/8x16", "64x64/8x4", "32x32/4x4"};
  return c >= 0 && c < kSimtConfigs ? names[c] : "?";
}

int simt_pick(const GemmArgs& a) {
  // Measured on H100, % of cuBLAS's SGEMM (tuning harness, B as [K,N] / as [N,K]):
  //   128x256/8x16 from two waves of its blocks up: 4096^3 96% / 96%, 8192^3 97%;
  //   128x128/8x16 (two blocks per SM) from one wave: 2048^3 90% / 93%, 4096x896x4864 94% / 85%;
  //   64x64/8x4 below: 1024^3 92%, 512^3 84%, 8x512^3 93%, 256^3 147%, M = 64 (split-K) 84% / 90%;
  //   32x32/4x4 (cuBLAS's tile there) for less than half a wave of 64x64 tiles and K <= 512: bench_ops,
  //   A/B/A against 64x64/8x4, matmul 256^3 10.3 -> 6.4 us (split 4), 512^3 15.8 -> 13.5, linear 256^3 11.1 ->
  //   6.6, 512^3 16.5 -> 14.8; at K = 4096 (M = 64: 64x64 split 8 ways, 62 us) it lost (94 us).
  const int64_t sms = device_props().sms;
  if (a.batch * ceil_div(a.M, 128) * ceil_div(a.N, 256) >= 2 * sms) return 0;
  if (a.batch * ceil_div(a.M, 128) * ceil_div(a.N, 128) >= sms) return 1;
  if (2 * a.batch * ceil_div(a.M, 64) * ceil_div(a.N, 64) < sms && a.K <= 512) return 3;
  return 2;
}

void gemm_simt(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::simt;
  FW_REQUIRE(a.dt == DType::f32, "the SIMT path is fp32");
  FW_REQUIRE(a.M <= INT32_MAX && a.N <= INT32_MAX && a.K <= INT32_MAX, "sizes must be below 2^31");
  const bool vec = simt_vector_ok(a);
  switch (simt_pick(a)) {
    case 0: return launch_simt<Cfg0>(a, s, vec);
    case 1: return launch_simt<Cfg1>(a, s, vec);
    case 2: return launch_simt<Cfg2>(a, s, vec);
    case 3: return launch_simt<Cfg3>(a, s, vec);
    default: break;
  }
  throw std::invalid_argument("gemm_simt: unknown configuration");
}

void gemm_fill_bias(const GemmArgs& a, cudaStream_t s) {
  const int64_t rows = a.batch * a.M;
  if (rows == 0 || a.N == 0) return;
  const int64_t n = rows * a.N;
  const unsigned blocks = unsigned(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
  dispatch_float(a.dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    simt::k_fill_bias<T><<<blocks, 256, 0, s>>>(static_cast<T*>(a.C), static_cast<const T*>(a.bias), rows, a.N);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw::detail
