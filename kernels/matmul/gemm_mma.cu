// Tensor-core GEMM on mma.sync (sm_80 and later): C[b] = A[b] @ op(B[b]) (+ bias), fp32 accumulation.
//   fp16/bf16: mma.sync.m16n8k16. The portable path: every GPU other than cc 9.0, and on Hopper the
//              problems the TMA path cannot take (row strides or base addresses not 16-byte aligned:
//              K % 8 != 0, N % 8 != 0 for B[K,N], offset views).
//   fp32 with TF32 allowed (--tf32): mma.sync.m16n8k8 on TF32 operands (each fp32 input rounded to
//              nearest TF32, 10-bit mantissa, with cvt.rna), fp32 accumulation and output.
//
// Block tile 128x128 x 64 bytes of K (32 16-bit or 16 fp32 elements), 8 warps (2 along M x 4 along N,
// 64x32 each), two mma k-steps per k-block. The byte geometry is the same for both element sizes:
// padded 80-byte rows for A and W tiles (conflict-free ldmatrix; ldmatrix on 32-bit elements yields
// exactly the m16n8k8 TF32 A and B(col) fragments), and [K][BN + 8] rows for B[K,N] (ldmatrix.trans for
// 16-bit; for TF32 two 32-bit loads per fragment, conflict-free because the row stride is 8 banks
// modulo 32).
//   vector version: 4-stage cp.async (16-byte, zero-filled out of range) pipeline.
//   scalar version: element loads into the same shared layout (any alignment, any K), 2 stages.
// Epilogue: fp32 (+ bias) -> dtype, bounds-checked, paired stores where aligned.
//
// Cost: 2*B*M*N*K FLOPs. On an A100 this layout reaches roughly 60-70% of the 312 TFLOP/s dense peak for
// large squares; on H100 it is a fallback for 16-bit (mma.sync peaks near half of wgmma's rate) and the
// TF32 path.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_common.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::mma {

using gemm_dev::cp_async;
using gemm_dev::cp_async_commit;
using gemm_dev::cp_async_wait;
using gemm_dev::smem_u32;

constexpr int BM = 128, BN = 128, THREADS = 256;
// Per element type: k-block BK (64 bytes of K), one mma k-step (32 bytes), padded row lengths.
template <class T>
struct Geo {
  static constexpr int E16 = 16 / int(sizeof(T));  // elements per 16 bytes
  static constexpr int BK = 4 * E16;               // 32 (16-bit) or 16 (fp32)
  static constexpr int KSTEP = 2 * E16;            // 16 (m16n8k16) or 8 (m16n8k8 tf32)
  static constexpr int SA = BK + E16;              // A and W tiles: [rows][BK], 80-byte rows
  static constexpr int SBKN = BN + 8;              // B[K,N] tile: [BK][BN + 8]
  static constexpr int A_ELEMS = BM * SA;
  static constexpr int B_ELEMS = (BN * SA > BK * SBKN) ? BN * SA : BK * SBKN;
  static constexpr int STAGE_ELEMS = A_ELEMS + B_ELEMS;
};

template <bool VEC>
constexpr int stages() { return VEC ? 4 : 2; }
template <class T, bool VEC>
constexpr int smem_bytes() { return stages<VEC>() * Geo<T>::STAGE_ELEMS * int(sizeof(T)); }

struct Params {
  const void* A;
  const void* B;
  const void* bias;
  void* C;
  int M, N, K;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ uint32_t to_tf32(uint32_t x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(x)));
  return r;
}
// One mma k-step: m16n8k16 for 16-bit T, m16n8k8 on TF32 for float (operands already rounded).
template <class T>
__device__ __forceinline__ void mma_step(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same<T, float>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else if constexpr (std::is_same<T, __half>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
#endif

// Loads k-block `kt` of the tile at (m0, n0) into stage buffers sa / sb.
template <class T, bool B_NK, bool VEC>
__device__ __forceinline__ void load_stage(T* sa, T* sb, const T* __restrict__ A, const T* __restrict__ B,
                                           int m0, int n0, int kt, const Params& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BK = Geo<T>::BK, E16 = Geo<T>::E16, SA = Geo<T>::SA, SBKN = Geo<T>::SBKN;
  const int tid = threadIdx.x;
  const int k0 = kt * BK;
  if (VEC) {
    // A / W: rows x 4 chunks of 16 bytes; 512 chunks, 2 per thread.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int id = tid + i * THREADS;
      const int r = id / 4, ch = id % 4;
      const int gm = m0 + r, gk = k0 + ch * E16;
      const bool ok = gm < p.M && gk < p.K;
      cp_async<16>(sa + r * SA + ch * E16, ok ? A + int64_t(gm) * p.K + gk : A, ok);
    }
    if (B_NK) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int id = tid + i * THREADS;
        const int r = id / 4, ch = id % 4;
        const int gn = n0 + r, gk = k0 + ch * E16;
        const bool ok = gn < p.N && gk < p.K;
        cp_async<16>(sb + r * SA + ch * E16, ok ? B + int64_t(gn) * p.K + gk : B, ok);
      }
    } else {
      // B[K,N]: BK k-rows x BN / E16 chunks (512 in all).
      constexpr int CH = BN / E16;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int id = tid + i * THREADS;
        const int r = id / CH, ch = id % CH;
        const int gk = k0 + r, gn = n0 + ch * E16;
        const bool ok = gk < p.K && gn < p.N;
        cp_async<16>(sb + r * SBKN + ch * E16, ok ? B + int64_t(gk) * p.N + gn : B, ok);
      }
    }
  } else {
    const T zero = from_float<T>(0.f);
#pragma unroll 4
    for (int i = 0; i < (BM * BK) / THREADS; ++i) {
      const int id = tid + i * THREADS;
      const int r = id / BK, k = id % BK;
      const int gm = m0 + r, gk = k0 + k;
      sa[r * SA + k] = (gm < p.M && gk < p.K) ? A[int64_t(gm) * p.K + gk] : zero;
    }
    if (B_NK) {
#pragma unroll 4
      for (int i = 0; i < (BN * BK) / THREADS; ++i) {
        const int id = tid + i * THREADS;
        const int r = id / BK, k = id % BK;
        const int gn = n0 + r, gk = k0 + k;
        sb[r * SA + k] = (gn < p.N && gk < p.K) ? B[int64_t(gn) * p.K + gk] : zero;
      }
    } else {
#pragma unroll 4
      for (int i = 0; i < (BN * BK) / THREADS; ++i) {
        const int id = tid + i * THREADS;
        const int r = id / BN, n = id % BN;
        const int gk = k0 + r, gn = n0 + n;
        sb[r * SBKN + n] = (gk < p.K && gn < p.N) ? B[int64_t(gk) * p.N + gn] : zero;
      }
    }
  }
#endif
}

template <class T, bool B_NK, bool VEC>
__global__ void __launch_bounds__(THREADS) k_gemm_mma(const Params p, int64_t sA, int64_t sB, int64_t sC) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int STAGES = stages<VEC>();
  constexpr int BK = Geo<T>::BK, KSTEP = Geo<T>::KSTEP, E16 = Geo<T>::E16, SA = Geo<T>::SA;
  constexpr int SBKN = Geo<T>::SBKN, A_ELEMS = Geo<T>::A_ELEMS, STAGE_ELEMS = Geo<T>::STAGE_ELEMS;
  constexpr bool TF32 = std::is_same<T, float>::value;
  extern __shared__ __align__(16) uint8_t smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  auto stA = [&](int s) { return smem + s * STAGE_ELEMS; };
  auto stB = [&](int s) { return smem + s * STAGE_ELEMS + A_ELEMS; };

  const int b = blockIdx.z;
  const T* A = static_cast<const T*>(p.A) + b * sA;
  const T* B = static_cast<const T*>(p.B) + b * sB;
  T* C = static_cast<T*>(p.C) + b * sC;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
  const int nkt = (p.K + BK - 1) / BK;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nkt) load_stage<T, B_NK, VEC>(stA(s), stB(s), A, B, m0, n0, s, p);
    if (VEC) cp_async_commit();
  }

  for (int kt = 0; kt < nkt; ++kt) {
    if (VEC) cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int nt = kt + STAGES - 1;
      const int s = nt % STAGES;
      if (nt < nkt) load_stage<T, B_NK, VEC>(stA(s), stB(s), A, B, m0, n0, nt, p);
      if (VEC) cp_async_commit();
    }
    const T* a_s = stA(kt % STAGES);
    const T* b_s = stB(kt % STAGES);
#pragma unroll
    for (int ks = 0; ks < BK / KSTEP; ++ks) {
      uint32_t af[4][4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int r = wm + i * 16 + (lane % 16), k = ks * KSTEP + (lane / 16) * E16;
        ldsm_x4(smem_u32(a_s + r * SA + k), af[i][0], af[i][1], af[i][2], af[i][3]);
        if (TF32)
#pragma unroll
          for (int q = 0; q < 4; ++q) af[i][q] = to_tf32(af[i][q]);
      }
      uint32_t bf[4][2];
      if (!B_NK && TF32) {
        // B[K,N] 32-bit: fragment (k = t, n = g) and (k = t + 4, n = g), g = lane / 4, t = lane % 4.
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const T* col = b_s + (ks * KSTEP + lane % 4) * SBKN + wn + j * 8 + lane / 4;
          bf[j][0] = to_tf32(__float_as_uint(static_cast<float>(col[0])));
          bf[j][1] = to_tf32(__float_as_uint(static_cast<float>(col[4 * SBKN])));
        }
      } else {
#pragma unroll
        for (int jp = 0; jp < 2; ++jp) {
          uint32_t r0, r1, r2, r3;
          if (B_NK) {
            const int n = wn + jp * 16 + (lane % 8) + (lane / 16) * 8, k = ks * KSTEP + ((lane / 8) % 2) * E16;
            ldsm_x4(smem_u32(b_s + n * SA + k), r0, r1, r2, r3);
            if (TF32) r0 = to_tf32(r0), r1 = to_tf32(r1), r2 = to_tf32(r2), r3 = to_tf32(r3);
          } else {
            const int k = ks * KSTEP + (lane % 8) + ((lane / 8) % 2) * 8, n = wn + jp * 16 + (lane / 16) * 8;
            ldsm_x4_t(smem_u32(b_s + k * SBKN + n), r0, r1, r2, r3);
          }
          bf[2 * jp][0] = r0;
          bf[2 * jp][1] = r1;
          bf[2 * jp + 1][0] = r2;
          bf[2 * jp + 1][1] = r3;
        }
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) mma_step<T>(acc[i][j], af[i], bf[j][0], bf[j][1]);
    }
  }
  if (VEC) cp_async_wait<0>();

  // Epilogue.
  const T* bias = static_cast<const T*>(p.bias);
  const bool pair_ok = (p.N % 2 == 0) && ((reinterpret_cast<uintptr_t>(p.C) % (2 * sizeof(T))) == 0);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int col = n0 + wn + j * 8 + 2 * (lane % 4);
    if (col >= p.N) continue;
    const bool two = col + 1 < p.N;
    float b0 = 0.f, b1 = 0.f;
    if (bias) {
      b0 = to_float(bias[col]);
      if (two) b1 = to_float(bias[col + 1]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm + i * 16 + lane / 4 + 8 * h;
        if (row >= p.M) continue;
        gemm_dev::store_pair(C + int64_t(row) * p.N + col, acc[i][j][2 * h] + b0, acc[i][j][2 * h + 1] + b1, two,
                             pair_ok);
      }
    }
  }
#endif
}

// One launch; the kernel's shared-memory limit is set once per device.
template <class T, bool B_NK, bool VEC>
void launch_mma(const Params& p, dim3 grid, cudaStream_t s, int64_t sA, int64_t sB, int64_t sC) {
  constexpr int smem = smem_bytes<T, VEC>();
  static PerDevice<bool> configured;
  (void)configured.get([] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(k_gemm_mma<T, B_NK, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  });
  k_gemm_mma<T, B_NK, VEC><<<grid, THREADS, smem, s>>>(p, sA, sB, sC);
  FW_CHECK_LAUNCH();
}

}  // namespace fw::mma

namespace fw::detail {

bool mma_vector_ok(const GemmArgs& a) {
  if ((reinterpret_cast<uintptr_t>(a.A) & 15) || (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  const int64_t e16 = 16 / int64_t(opbench::dtype_size(a.dt));  // elements per 16-byte chunk
  if (a.K % e16) return false;
  if (a.b_layout == GemmLayout::kn && a.N % e16) return false;
  return true;
}

void gemm_mma(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::mma;
  const bool vec = mma_vector_ok(a);
  FW_REQUIRE(a.M <= INT32_MAX && a.N <= INT32_MAX && a.K <= INT32_MAX, "sizes must be below 2^31");
  FW_REQUIRE(ceil_div(a.M, BM) <= 65535 && a.batch <= 65535, "M or batch too large for the grid");
  Params p{a.A, a.B, a.bias, a.C, int(a.M), int(a.N), int(a.K)};
  const int64_t sA = a.M * a.K, sB = a.K * a.N, sC = a.M * a.N;
  const dim3 grid(unsigned(ceil_div(a.N, BN)), unsigned(ceil_div(a.M, BM)), unsigned(a.batch));
  dispatch_float(a.dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.b_layout == GemmLayout::nk) {
      vec ? launch_mma<T, true, true>(p, grid, s, sA, sB, sC) : launch_mma<T, true, false>(p, grid, s, sA, sB, sC);
    } else {
      vec ? launch_mma<T, false, true>(p, grid, s, sA, sB, sC) : launch_mma<T, false, false>(p, grid, s, sA, sB, sC);
    }
  });
}

}  // namespace fw::detail
