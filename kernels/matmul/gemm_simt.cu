// fp32 GEMM on the CUDA cores (true fp32, no TF32): C[b] = A[b] @ op(B[b]) (+ bias).
//
// Block tile 128x128, k-block 8, 256 threads; each thread accumulates an 8x8 block of C split into four
// 4x4 quadrants (rows ty*4 and 64+ty*4, columns tx*4 and 64+tx*4) so that its shared-memory reads are
// four 16-byte loads per k step for 64 FMAs. A (and W for linear) tiles are stored transposed in shared
// memory ([k][m], rows padded by 4 floats: conflict-free transposing stores); B[K,N] tiles are stored
// as they are. Two shared-memory buffers: the next k-block is loaded into registers while the current
// one is multiplied, then stored to the other buffer (one barrier per k-block).
//   vector version: 16-byte global loads (rows 16-byte aligned: K % 4 == 0, N % 4 == 0 for B[K,N]).
//   scalar version: element loads, any shape and alignment.
// Also here: the K == 0 fill (C = bias or 0).
//
// Cost: 2*B*M*N*K FLOPs. H100 SXM fp32 FMA peak is 132 SMs x 128 lanes x 2 x ~1.98 GHz = 67 TFLOP/s;
// for 4096^3 (137 GFLOP) that is a 2.05 ms floor; cuBLAS's SGEMM reaches ~50 TFLOP/s (2.7 ms).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::simt {

constexpr int THREADS = 256, PAD = 4;

struct Params {
  const float* A;
  const float* B;
  const float* bias;
  float* C;
  int M, N, K;
  int splits = 1;   // split-K: blockIdx.z is the K chunk (batch 1 only); C is zeroed and accumulated atomically
  int k_chunk = 0;  // K per chunk, a multiple of BK
};

// Block tile BM x BN, k-block BK; 16x16 threads, each owning TM x TN = (BM/16) x (BN/16) outputs in
// 4x4 quadrants 64 rows / 64 columns apart (TM, TN in {4, 8}).
template <int BM, int BN, int BK>
struct Tile {
  static constexpr int TM = BM / 16, TN = BN / 16;
  static constexpr int LDA = BM + PAD, LDB = BN + PAD;  // shared row lengths (floats)
  static constexpr int A4 = BM * BK / 4 / THREADS;       // float4 per thread per k-block
  static constexpr int B4 = BN * BK / 4 / THREADS;
  static_assert((TM == 4 || TM == 8) && (TN == 4 || TN == 8), "thread tile");
  static_assert(A4 >= 1 && B4 >= 1 && BM * BK % (4 * THREADS) == 0 && BN * BK % (4 * THREADS) == 0, "loads");
};

// Global -> registers for one k-block (A rows x 4 k; B: W rows x 4 k, or 4 n of one k row).
template <class Tl, int BM, int BN, int BK, bool B_NK, bool VEC>
struct Loader {
  float a[Tl::A4][4], b[Tl::B4][4];
  __device__ __forceinline__ void load(const float* __restrict__ A, const float* __restrict__ B, const Params& p,
                                       int m0, int n0, int k0) {
#pragma unroll
    for (int u = 0; u < Tl::A4; ++u) {
      const int id = threadIdx.x + u * THREADS;
      const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
      const int gm = m0 + r, gk = k0 + kq;
      if (VEC) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gm < p.M && gk < p.K) v = __ldg(reinterpret_cast<const float4*>(A + int64_t(gm) * p.K + gk));
        a[u][0] = v.x, a[u][1] = v.y, a[u][2] = v.z, a[u][3] = v.w;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) a[u][i] = (gm < p.M && gk + i < p.K) ? A[int64_t(gm) * p.K + gk + i] : 0.f;
      }
    }
#pragma unroll
    for (int u = 0; u < Tl::B4; ++u) {
      const int id = threadIdx.x + u * THREADS;
      if (B_NK) {
        const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
        const int gn = n0 + r, gk = k0 + kq;
        if (VEC) {
          float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
          if (gn < p.N && gk < p.K) v = __ldg(reinterpret_cast<const float4*>(B + int64_t(gn) * p.K + gk));
          b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            b[u][i] = (gn < p.N && gk + i < p.K) ? B[int64_t(gn) * p.K + gk + i] : 0.f;
        }
      } else {
        const int k = id / (BN / 4), nq = (id % (BN / 4)) * 4;
        const int gk = k0 + k, gn = n0 + nq;
        if (VEC) {
          float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
          if (gk < p.K && gn < p.N) v = __ldg(reinterpret_cast<const float4*>(B + int64_t(gk) * p.N + gn));
          b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
        } else {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            b[u][i] = (gk < p.K && gn + i < p.N) ? B[int64_t(gk) * p.N + gn + i] : 0.f;
        }
      }
    }
  }
  __device__ __forceinline__ void store(float* sa, float* sb) const {
#pragma unroll
    for (int u = 0; u < Tl::A4; ++u) {
      const int id = threadIdx.x + u * THREADS;
      const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
#pragma unroll
      for (int i = 0; i < 4; ++i) sa[(kq + i) * Tl::LDA + r] = a[u][i];
    }
#pragma unroll
    for (int u = 0; u < Tl::B4; ++u) {
      const int id = threadIdx.x + u * THREADS;
      if (B_NK) {
        const int r = id / (BK / 4), kq = (id % (BK / 4)) * 4;
#pragma unroll
        for (int i = 0; i < 4; ++i) sb[(kq + i) * Tl::LDB + r] = b[u][i];
      } else {
        const int k = id / (BN / 4), nq = (id % (BN / 4)) * 4;
        *reinterpret_cast<float4*>(sb + k * Tl::LDB + nq) = make_float4(b[u][0], b[u][1], b[u][2], b[u][3]);
      }
    }
  }
};

// MAP 0: tx = tid % 16 (a warp spans 2 x 16 threads); MAP 1: a warp spans 4 x 8 threads (fewer
// shared-memory wavefronts per fragment load: 64 B of A and 128 B of B per 16-byte load).
template <int BM, int BN, int BK, bool B_NK, bool VEC, int MAP, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) k_gemm_simt(const Params p, int64_t sA, int64_t sB, int64_t sC) {
  using Tl = Tile<BM, BN, BK>;
  constexpr int TM = Tl::TM, TN = Tl::TN, LDA = Tl::LDA, LDB = Tl::LDB;
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
  const int tx = MAP == 0 ? threadIdx.x % 16 : (warp % 2) * 8 + lane % 8;
  const int ty = MAP == 0 ? threadIdx.x / 16 : (warp / 2) * 4 + lane / 8;
  const int nkt = (k_end - k_begin + BK - 1) / BK;  // tiles past K are zero-filled by the loader

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  Loader<Tl, BM, BN, BK, B_NK, VEC> ld;
  ld.load(A, B, p, m0, n0, k_begin);
  ld.store(As[0], Bs[0]);
  __syncthreads();

  for (int kt = 0; kt < nkt; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < nkt) ld.load(A, B, p, m0, n0, k_begin + (kt + 1) * BK);
    const float* sa = As[cur];
    const float* sb = Bs[cur];
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float av[TM], bv[TN];
#pragma unroll
      for (int h = 0; h < TM / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(sa + k * LDA + h * 64 + ty * 4);
        av[4 * h] = v.x, av[4 * h + 1] = v.y, av[4 * h + 2] = v.z, av[4 * h + 3] = v.w;
      }
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(sb + k * LDB + h * 64 + tx * 4);
        bv[4 * h] = v.x, bv[4 * h + 1] = v.y, bv[4 * h + 2] = v.z, bv[4 * h + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    if (kt + 1 < nkt) ld.store(As[cur ^ 1], Bs[cur ^ 1]);
    __syncthreads();
  }

  // Epilogue: rows (h*64 + ty*4 + i), columns (h*64 + tx*4 + j), 16-byte stores where aligned.
  const bool vec_out = !split && (p.N % 4 == 0) && ((reinterpret_cast<uintptr_t>(C) & 15) == 0);
  const bool add_bias = p.bias && (!split || blockIdx.z == 0);  // once per output element
#pragma unroll
  for (int jh = 0; jh < TN / 4; ++jh) {
    const int col = n0 + jh * 64 + tx * 4;
    if (col >= p.N) continue;
    float bb[4] = {0.f, 0.f, 0.f, 0.f};
    if (add_bias) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (col + j < p.N) bb[j] = p.bias[col + j];
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + (i / 4) * 64 + ty * 4 + (i % 4);
      if (row >= p.M) continue;
      float* dst = C + int64_t(row) * p.N + col;
      const float v0 = acc[i][jh * 4 + 0] + bb[0], v1 = acc[i][jh * 4 + 1] + bb[1];
      const float v2 = acc[i][jh * 4 + 2] + bb[2], v3 = acc[i][jh * 4 + 3] + bb[3];
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

}  // namespace fw::simt

namespace fw::detail {

bool simt_vector_ok(const GemmArgs& a) {
  if ((reinterpret_cast<uintptr_t>(a.A) & 15) || (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  if (a.K % 4) return false;
  if (a.b_layout == GemmLayout::kn && a.N % 4) return false;
  return true;
}

namespace {
// Split-K when one problem has too few output tiles to fill the GPU (decode-like M = 1 .. 64): the
// K chunks run in parallel and add into a zeroed C. Measured on H100 before it: {64, 4096, 4096} fp32
// at 0.35 ms (64 blocks for 132 SMs) against cuBLAS's 0.06 ms.
template <int BM, int BN, int BK>
int simt_splits(const GemmArgs& a) {
  const int64_t tiles = ceil_div(a.M, BM) * ceil_div(a.N, BN);
  const int64_t sms = current_device_info().sms;
  if (a.batch != 1 || tiles >= sms || a.K < 4 * BK * 8) return 1;
  const int64_t want = ceil_div(2 * sms, tiles), most = a.K / (BK * 8);
  return int(std::max<int64_t>(1, std::min<int64_t>({want, most, 64})));
}

template <int BM, int BN, int BK, int MAP = 0, int MINB = 2>
void launch_simt(const GemmArgs& a, cudaStream_t s, bool vec) {
  using namespace fw::simt;
  FW_REQUIRE(ceil_div(a.M, BM) <= 65535 && a.batch <= 65535, "M or batch too large for the grid");
  Params p{static_cast<const float*>(a.A), static_cast<const float*>(a.B), static_cast<const float*>(a.bias),
           static_cast<float*>(a.C), int(a.M), int(a.N), int(a.K)};
  const int64_t sA = a.M * a.K, sB = a.K * a.N, sC = a.M * a.N;
  p.splits = simt_splits<BM, BN, BK>(a);
  unsigned gz = unsigned(a.batch);
  if (p.splits > 1) {
    p.k_chunk = int(ceil_div(ceil_div(a.K, p.splits), BK) * BK);
    p.splits = int(ceil_div(a.K, p.k_chunk));
    gz = unsigned(p.splits);
    FW_CUDA_CHECK(cudaMemsetAsync(a.C, 0, size_t(a.M * a.N) * sizeof(float), s));
  }
  const dim3 grid(unsigned(ceil_div(a.N, BN)), unsigned(ceil_div(a.M, BM)), gz);
  if (a.b_layout == GemmLayout::nk) {
    if (vec)
      k_gemm_simt<BM, BN, BK, true, true, MAP, MINB><<<grid, THREADS, 0, s>>>(p, sA, sB, sC);
    else
      k_gemm_simt<BM, BN, BK, true, false, MAP, MINB><<<grid, THREADS, 0, s>>>(p, sA, sB, sC);
  } else {
    if (vec)
      k_gemm_simt<BM, BN, BK, false, true, MAP, MINB><<<grid, THREADS, 0, s>>>(p, sA, sB, sC);
    else
      k_gemm_simt<BM, BN, BK, false, false, MAP, MINB><<<grid, THREADS, 0, s>>>(p, sA, sB, sC);
  }
  FW_CHECK_LAUNCH();
}
}  // namespace

int& simt_debug_config() {
  static int c = -1;
  return c;
}

int simt_pick(const GemmArgs& a) {
  if (simt_debug_config() >= 0) return simt_debug_config();
  const int sms = current_device_info().sms;
  // Measured on H100 (run 2): 128x128 k8 with 4x8-thread warps from 2048^3 up (37-38 TF/s), 128x64 k16
  // below a wave of 128x128 blocks (24 TF/s at 1024^3, where 128x128 gives 64 blocks for 132 SMs).
  if (a.batch * ceil_div(a.M, 128) * ceil_div(a.N, 128) >= sms) return 4;
  return 3;
}

void gemm_simt(const GemmArgs& a, cudaStream_t s, bool force_scalar) {
  FW_REQUIRE(a.dt == DType::f32, "the SIMT path is fp32");
  FW_REQUIRE(a.M <= INT32_MAX && a.N <= INT32_MAX && a.K <= INT32_MAX, "sizes must be below 2^31");
  const bool vec = !force_scalar && simt_vector_ok(a);
  switch (simt_pick(a)) {
    case 0: return launch_simt<128, 128, 8>(a, s, vec);
    case 1: return launch_simt<128, 128, 16>(a, s, vec);
    case 2: return launch_simt<64, 64, 16>(a, s, vec);
    case 3: return launch_simt<128, 64, 16>(a, s, vec);
    case 4: return launch_simt<128, 128, 8, 1>(a, s, vec);
    case 5: return launch_simt<64, 64, 16, 1>(a, s, vec);
    case 6: return launch_simt<128, 128, 8, 1, 1>(a, s, vec);
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
