// fp32 GEMM on the CUDA cores (true fp32, no TF32): C[b] = A[b] @ op(B[b]) (+ bias).
//
// One warp-tiled kernel, templated on its tile configuration (SimtCfg below):
//   - block tile BM x BN, k-block BK, WM x WN warps; each warp owns a WTM x WTN = (BM/WM) x (BN/WN) tile;
//     its lanes form an LY x LX grid and each lane accumulates TM x TN = (WTM/LY) x (WTN/LX) outputs in
//     4x4 quadrants (rows q*4*LY + ly*4 + i, columns q*4*LX + lx*4 + j inside the warp tile), so that
//     per k step a lane reads its fragments with TM/4 + TN/4 16-byte shared loads for TM*TN FMAs, and a
//     warp's 16-byte loads touch only 16*LY (A) and 16*LX (B) distinct bytes (broadcast).
//   - A (and W for linear) tiles are stored transposed in shared memory ([k][m], rows padded by 4
//     floats: conflict-free transposing stores); B[K,N] tiles are stored as they are.
//   - Two shared-memory buffers: the next k-block is loaded into registers while the current one is
//     multiplied, then stored to the other buffer (one barrier per k-block).
//   vector version: 16-byte global loads (rows 16-byte aligned: K % 4 == 0, N % 4 == 0 for B[K,N]).
//   scalar version: element loads, any shape and alignment.
//   split-K (batch 1, too few tiles to fill the GPU): blockIdx.z is a K chunk, C is zeroed first and
//   the chunks add into it atomically.
// Also here: the K == 0 fill (C = bias or 0).
//
// Cost: 2*B*M*N*K FLOPs. H100 SXM fp32 FMA peak is 132 SMs x 128 lanes x 2 x ~1.98 GHz = 67 TFLOP/s;
// for 4096^3 (137 GFLOP) that is a 2.05 ms floor; cuBLAS's SGEMM reaches ~52 TFLOP/s (2.66 ms).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::simt {

constexpr int PAD = 4;

template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int MINB_>
struct SimtCfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, LY = LY_, LX = 32 / LY_, MINB = MINB_;
  static constexpr int THREADS = 32 * WM * WN;
  static constexpr int WTM = BM / WM, WTN = BN / WN;  // warp tile
  static constexpr int TM = WTM / LY, TN = WTN / LX;  // thread tile
  static constexpr int LDA = BM + PAD, LDB = BN + PAD;  // shared row lengths (floats)
  static constexpr int A4 = BM * BK / 4 / THREADS;      // float4 per thread per k-block
  static constexpr int B4 = BN * BK / 4 / THREADS;
  static_assert(LY * LX == 32 && BM % WM == 0 && BN % WN == 0, "warp layout");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && TM * LY == WTM && TN * LX == WTN, "thread tile");
  static_assert(A4 >= 1 && B4 >= 1 && BM * BK % (4 * THREADS) == 0 && BN * BK % (4 * THREADS) == 0, "loads");
};

struct Params {
  const float* A;
  const float* B;
  const float* bias;
  float* C;
  int M, N, K;
  int splits = 1;   // split-K: blockIdx.z is the K chunk (batch 1 only); C is zeroed and accumulated atomically
  int k_chunk = 0;  // K per chunk, a multiple of BK
};

// One float4 of a K-contiguous operand (A, or W for linear): row r of the tile, k quad kq.
template <bool VEC>
__device__ __forceinline__ void load_k_rows(float (&v)[4], const float* __restrict__ X, int rows, int K, int gr,
                                            int gk) {
  if (VEC) {
    float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
    if (gr < rows && gk < K) t = __ldg(reinterpret_cast<const float4*>(X + int64_t(gr) * K + gk));
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = (gr < rows && gk + i < K) ? X[int64_t(gr) * K + gk + i] : 0.f;
  }
}

// Global -> registers for one k-block, registers -> shared memory after the current one is consumed.
template <class Cfg, bool B_NK, bool VEC>
struct Loader {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, T = Cfg::THREADS;
  float a[Cfg::A4][4], b[Cfg::B4][4];
  __device__ __forceinline__ void load(const float* __restrict__ A, const float* __restrict__ B, const Params& p,
                                       int m0, int n0, int k0) {
#pragma unroll
    for (int u = 0; u < Cfg::A4; ++u) {
      const int id = threadIdx.x + u * T;
      load_k_rows<VEC>(a[u], A, p.M, p.K, m0 + id / (BK / 4), k0 + (id % (BK / 4)) * 4);
    }
#pragma unroll
    for (int u = 0; u < Cfg::B4; ++u) {
      const int id = threadIdx.x + u * T;
      if (B_NK) {
        load_k_rows<VEC>(b[u], B, p.N, p.K, n0 + id / (BK / 4), k0 + (id % (BK / 4)) * 4);
      } else {
        const int gk = k0 + id / (BN / 4), gn = n0 + (id % (BN / 4)) * 4;
        if (VEC) {
          float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
          if (gk < p.K && gn < p.N) v = __ldg(reinterpret_cast<const float4*>(B + int64_t(gk) * p.N + gn));
          b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i) b[u][i] = (gk < p.K && gn + i < p.N) ? B[int64_t(gk) * p.N + gn + i] : 0.f;
        }
      }
    }
  }
  __device__ __forceinline__ void store(float* sa, float* sb) const {
#pragma unroll
    for (int u = 0; u < Cfg::A4; ++u) {
      const int id = threadIdx.x + u * T;
      const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
#pragma unroll
      for (int i = 0; i < 4; ++i) sa[(kq + i) * Cfg::LDA + r] = a[u][i];
    }
#pragma unroll
    for (int u = 0; u < Cfg::B4; ++u) {
      const int id = threadIdx.x + u * T;
      if (B_NK) {
        const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
#pragma unroll
        for (int i = 0; i < 4; ++i) sb[(kq + i) * Cfg::LDB + r] = b[u][i];
      } else {
        const int k = id / (BN / 4), nq = (id % (BN / 4)) * 4;
        *reinterpret_cast<float4*>(sb + k * Cfg::LDB + nq) = make_float4(b[u][0], b[u][1], b[u][2], b[u][3]);
      }
    }
  }
};

template <class Cfg, bool B_NK, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB)
    k_gemm_simt(const Params p, int64_t sA, int64_t sB, int64_t sC) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
  constexpr int LDA = Cfg::LDA, LDB = Cfg::LDB, LY = Cfg::LY, LX = Cfg::LX;
  __shared__ __align__(16) float As[2][BK * LDA];
  __shared__ __align__(16) float Bs[2][BK * LDB];
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
  const int nkt = (k_end - k_begin + BK - 1) / BK;  // tiles past K are zero-filled by the loader

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  Loader<Cfg, B_NK, VEC> ld;
  ld.load(A, B, p, m0, n0, k_begin);
  ld.store(As[0], Bs[0]);
  __syncthreads();

  for (int kt = 0; kt < nkt; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < nkt) ld.load(A, B, p, m0, n0, k_begin + (kt + 1) * BK);
    const float* sa = As[cur] + tm0;
    const float* sb = Bs[cur] + tn0;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float av[TM], bv[TN];
#pragma unroll
      for (int q = 0; q < TM / 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(sa + k * LDA + q * 4 * LY);
        av[4 * q] = v.x, av[4 * q + 1] = v.y, av[4 * q + 2] = v.z, av[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int q = 0; q < TN / 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(sb + k * LDB + q * 4 * LX);
        bv[4 * q] = v.x, bv[4 * q + 1] = v.y, bv[4 * q + 2] = v.z, bv[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    if (kt + 1 < nkt) ld.store(As[cur ^ 1], Bs[cur ^ 1]);
    __syncthreads();
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

// The configurations (index = simt_pick's answer, names in simt_config_name). Measured on H100 at
// 4096^3 (kn), % of cuBLAS's SGEMM: Cfg0 77%, Cfg1 75%; also tried and dropped: 32x64 warp tiles with
// 4x8 lanes 74-76%, 8x16 per thread (128x256 / 256x128 blocks, one block per SM; or 128 threads per
// 128x128 block) 62-68%. ncu on Cfg0: issue slots 70% busy, FMA pipe 62%; per issued instruction the
// warps stall 0.72 cycles on global loads (long scoreboard), 0.42 dispatch, 0.41 barrier, 0.24 shared
// loads (notes/performance.md).
//                                BM   BN  BK WM WN LY MINB   warp tile, thread tile, threads
using Cfg0 = SimtCfg<128, 128, 8, 2, 4, 8, 2>;   // 64x32, 8x8, 256
using Cfg1 = SimtCfg<128, 128, 16, 2, 4, 8, 2>;  // 64x32, 8x8, 256, k16
using Cfg2 = SimtCfg<64, 128, 8, 1, 4, 8, 3>;    // 64x32, 8x8, 128
using Cfg3 = SimtCfg<64, 64, 16, 2, 2, 4, 4>;    // 32x32, 8x4, 128, k16

}  // namespace fw::simt

namespace fw::detail {

bool simt_vector_ok(const GemmArgs& a) {
  if ((reinterpret_cast<uintptr_t>(a.A) & 15) || (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  if (a.K % 4) return false;
  if (a.b_layout == GemmLayout::kn && a.N % 4) return false;
  return true;
}

namespace {
// Split-K when one problem has too few output tiles to fill the GPU (decode-like M = 1 .. 64, small
// squares): the K chunks run in parallel and add into a zeroed C. Measured on H100 before it:
// {64, 4096, 4096} fp32 at 0.35 ms (64 blocks for 132 SMs) against cuBLAS's 0.06 ms.
template <class Cfg>
int simt_splits(const GemmArgs& a) {
  const int64_t tiles = ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN);
  const int64_t sms = current_device_info().sms;
  if (a.batch != 1 || tiles >= sms || a.K < 4 * Cfg::BK * 8) return 1;
  const int64_t want = ceil_div(2 * sms, tiles), most = a.K / (Cfg::BK * 8);
  return int(std::max<int64_t>(1, std::min<int64_t>({want, most, 64})));
}

template <class Cfg, bool B_NK, bool VEC>
void run_simt(const fw::simt::Params& p, dim3 grid, cudaStream_t s, int64_t sA, int64_t sB, int64_t sC) {
  fw::simt::k_gemm_simt<Cfg, B_NK, VEC><<<grid, Cfg::THREADS, 0, s>>>(p, sA, sB, sC);
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
    FW_CUDA_CHECK(cudaMemsetAsync(a.C, 0, size_t(a.M * a.N) * sizeof(float), s));
  }
  const dim3 grid(unsigned(ceil_div(a.N, Cfg::BN)), unsigned(ceil_div(a.M, Cfg::BM)), gz);
  const bool nk = a.b_layout == GemmLayout::nk;
  if (nk && vec) run_simt<Cfg, true, true>(p, grid, s, sA, sB, sC);
  if (nk && !vec) run_simt<Cfg, true, false>(p, grid, s, sA, sB, sC);
  if (!nk && vec) run_simt<Cfg, false, true>(p, grid, s, sA, sB, sC);
  if (!nk && !vec) run_simt<Cfg, false, false>(p, grid, s, sA, sB, sC);
  FW_CHECK_LAUNCH();
}
}  // namespace

const char* simt_config_name(int c) {
  static const char* const names[kSimtConfigs] = {"128x128/8x8", "128x128/8x8 k16", "64x128/8x8",
                                                  "64x64/8x4 k16"};
  return c >= 0 && c < kSimtConfigs ? names[c] : "?";
}

int& simt_debug_config() {
  static int c = -1;
  return c;
}

int simt_pick(const GemmArgs& a) {
  if (simt_debug_config() >= 0) return simt_debug_config();
  // Measured on H100 (% of cuBLAS's SGEMM): 128x128 blocks from one wave of them up (77% at 2048^3 and
  // 4096^3, 82% at 8192^3); below that 64x64 blocks, which keep every SM busy (1024^3 72%, 512^3 113%,
  // 8x512^3 74%, M = 64 with split-K 56%; 128x128 there: 57%, 83%, 71%, 33%).
  const int sms = current_device_info().sms;
  if (a.batch * ceil_div(a.M, 128) * ceil_div(a.N, 128) >= sms) return 0;
  return 3;
}

void gemm_simt(const GemmArgs& a, cudaStream_t s, bool force_scalar) {
  using namespace fw::simt;
  FW_REQUIRE(a.dt == DType::f32, "the SIMT path is fp32");
  FW_REQUIRE(a.M <= INT32_MAX && a.N <= INT32_MAX && a.K <= INT32_MAX, "sizes must be below 2^31");
  const bool vec = !force_scalar && simt_vector_ok(a);
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
