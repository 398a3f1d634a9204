// fp32 GEMM for decode-like shapes (M <= 16, one batch; W as [N, K] at M = 1 with N >= 2048 and K >= 1024 runs on the
// row engine instead, as fp16/bf16 W[N, K] does: gemv_nk.cu): C = A @ op(B) (+ bias) is a stream over B (K x N floats)
// with a few multiply-adds per element, so the floor is reading B once: {1, 4096, 4096} moves 64 MiB -> ~22 µs at
// ~3.0 TB/s. The SIMT tile kernel wastes 127/128 of its 128-row tiles there
// (measured on H100: 200 µs against cuBLAS's 30 µs for M = 1).
//   B as [K, N] (matmul): each thread owns 4 adjacent columns; a block covers 1024 columns and a K
//     chunk; the A rows of the chunk sit in shared memory; chunks run in parallel and add into a
//     zeroed C (split-K) so that the grid fills the GPU.
//   W as [N, K] (linear): a warp owns 2 columns and its lanes stride along K (16-byte loads of W's
//     contiguous rows), A in shared memory (fp32: whole where it fits, else chunk by chunk), a warp-shuffle
//     sum at the end. No split: N / 16 blocks already fill the GPU for N >= 2048.
// Both are instantiated for at most 1, 4 or 16 rows (accumulators sized to the rows), and issue their
// loads of B / W in batches (8 rows of B, 4 x 2 chunks of W per lane) before the multiply-adds, so that
// enough bytes are in flight to stream at HBM speed. bench_ops on H100 (L2 cold), {1, 4096, 4096}:
// 51 -> 38 us (B[K,N]), 54 -> 43 us (W[N,K]); cuBLAS 30 / 40 us (reports 133724 -> 135345).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"

namespace fw::skinny {

constexpr int kMaxM = 16;
constexpr int kThreads = 256;

// ---- B [K, N] ---------------------------------------------------------------------------------------
constexpr int kKnCols = 4 * kThreads;  // columns per block
constexpr int kKnChunk = 64;           // K per shared-memory step

// MM: the most rows this instantiation takes (1, 4 or 16), so that a single row keeps 4 accumulators
// and room for 16 loads in flight instead of 64 accumulators.
template <int MM, bool VEC>
__global__ void __launch_bounds__(kThreads) k_kn(const float* __restrict__ A, const float* __restrict__ B,
                                                 const float* __restrict__ bias, float* __restrict__ C, int M,
                                                 int N, int K, int k_per_split) {
  __shared__ float As[MM][kKnChunk];
  const int col = blockIdx.x * kKnCols + threadIdx.x * 4;
  const int k_begin = blockIdx.y * k_per_split, k_end = min(K, k_begin + k_per_split);
  float acc[MM][4] = {};
  for (int k0 = k_begin; k0 < k_end; k0 += kKnChunk) {
    const int kc = min(kKnChunk, k_end - k0);
    for (int i = threadIdx.x; i < M * kKnChunk; i += kThreads) {
      const int m = i / kKnChunk, k = i % kKnChunk;
      As[m][k] = k < kc ? A[int64_t(m) * K + k0 + k] : 0.f;
    }
    __syncthreads();
    if (col < N) {
      // Batches of U rows of B: the U loads are issued together (U * 16 bytes in flight per thread).
      constexpr int U = 8;
      for (int kb = 0; kb < kc; kb += U) {
        float b[U][4];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int k = kb + u;
          const float* brow = B + int64_t(k0 + k) * N + col;
          if (k >= kc) {
            b[u][0] = b[u][1] = b[u][2] = b[u][3] = 0.f;
          } else if (VEC) {
            const float4 v = __ldg(reinterpret_cast<const float4*>(brow));
            b[u][0] = v.x, b[u][1] = v.y, b[u][2] = v.z, b[u][3] = v.w;
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) b[u][j] = col + j < N ? brow[j] : 0.f;
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
          for (int m = 0; m < MM; ++m) {
            if (m >= M) break;
            const float a = As[m][min(kb + u, kKnChunk - 1)];
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[m][j] = fmaf(a, b[u][j], acc[m][j]);
          }
        }
      }
    }
    __syncthreads();
  }
  if (col >= N) return;
  const bool split = gridDim.y > 1;
#pragma unroll
  for (int m = 0; m < MM; ++m) {
    if (m >= M) break;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (col + j >= N) break;
      float v = acc[m][j];
      if (bias && blockIdx.y == 0) v += bias[col + j];
      float* dst = C + int64_t(m) * N + col + j;
      if (split)
        atomicAdd(dst, v);
      else
        *dst = v;
    }
  }
}

// ---- W [N, K] ---------------------------------------------------------------------------------------
// W is read in 16-byte vectors of kNkVec floats; the A rows are staged in shared memory.
constexpr int kNkColsPerWarp = 2;
constexpr int kNkCols = kNkColsPerWarp * (kThreads / 32);  // columns per block
constexpr int kNkU = 4;                                     // 16-byte loads per column in flight per lane
constexpr int kNkVec = 4;                                   // floats a 16-byte vector
constexpr int kNkChunk = 32 * kNkVec * kNkU;  // K per shared-memory step: one batch of loads of every lane (512)

__device__ __forceinline__ void load16(const float* p, float (&f)[kNkVec]) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(p));
  f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w;
}

// WHOLE_A: the A rows are staged once, whole (K rounded up to the chunk, zero-padded; `pitch` floats a row),
// and the chunks follow one another without a barrier, so that a warp's next loads of W are not held behind
// the block's staging of the next A chunk (an L2 round trip and two barriers a chunk). Otherwise `pitch` is
// kChunk and each chunk of A is staged in turn.
template <int MM, bool VEC, bool WHOLE_A>
__global__ void __launch_bounds__(kThreads) k_nk(const float* __restrict__ A, const float* __restrict__ W,
                                                 const float* __restrict__ bias, float* __restrict__ C, int M, int N,
                                                 int K, int pitch) {
  constexpr int E = kNkVec, kChunk = kNkChunk;
  extern __shared__ float As_all[];  // [M][pitch]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int n0 = blockIdx.x * kNkCols + warp * kNkColsPerWarp;
  float acc[kNkColsPerWarp][MM] = {};
  // As_all[m][0, len) = A[m][k0, k0 + len), zero past K; kStageU loads of a thread in flight before its stores
  // (gemm_skinny below has the figures).
  constexpr int kStageU = 8;
  auto stage = [&](int k0) {
    const int len = WHOLE_A ? pitch : kChunk;  // chunk by chunk: a constant (m and k by shifts)
    const int total = M * len;
    for (int base = threadIdx.x; base < total; base += kStageU * kThreads) {
      float v[kStageU];
#pragma unroll
      for (int u = 0; u < kStageU; ++u) {
        const int i = base + u * kThreads, m = i / len, k = i - m * len;
        v[u] = i < total && k0 + k < K ? A[int64_t(m) * K + k0 + k] : 0.f;
      }
#pragma unroll
      for (int u = 0; u < kStageU; ++u) {
        const int i = base + u * kThreads, m = i / len;
        if (i < total) As_all[m * pitch + i - m * len] = v[u];
      }
    }
    __syncthreads();
  };
  if constexpr (WHOLE_A) stage(0);
  for (int k0 = 0; k0 < K; k0 += kChunk) {
    const int kc = min(kChunk, K - k0);
    if constexpr (!WHOLE_A) stage(k0);
    const float* As = As_all + (WHOLE_A ? k0 : 0);  // this chunk's A, row m at As + m * pitch
    if (VEC) {
      // kNkU 16-byte loads per column in flight per lane (the lanes of a warp read 512 contiguous bytes).
      for (int kb = lane * E; kb < kc; kb += kChunk) {
        float v[kNkColsPerWarp][kNkU][E];
#pragma unroll
        for (int c = 0; c < kNkColsPerWarp; ++c)
#pragma unroll
          for (int u = 0; u < kNkU; ++u) {
            const int k = kb + 32 * E * u;
            if (n0 + c < N && k < kc) {
              load16(W + int64_t(n0 + c) * K + k0 + k, v[c][u]);
            } else {
#pragma unroll
              for (int j = 0; j < E; ++j) v[c][u][j] = 0.f;
            }
          }
#pragma unroll
        for (int u = 0; u < kNkU; ++u) {
          const int k = min(kb + 32 * E * u, kChunk - E);  // past kc: v is zero, any A in range will do
#pragma unroll
          for (int m = 0; m < MM; ++m) {
            if (m >= M) break;
            float a[E];
#pragma unroll
            for (int q = 0; q < E / 4; ++q) {
              const float4 a4 = *reinterpret_cast<const float4*>(As + m * pitch + k + 4 * q);
              a[4 * q] = a4.x, a[4 * q + 1] = a4.y, a[4 * q + 2] = a4.z, a[4 * q + 3] = a4.w;
            }
#pragma unroll
            for (int c = 0; c < kNkColsPerWarp; ++c)
#pragma unroll
              for (int j = E - 1; j >= 0; --j) acc[c][m] = fmaf(a[j], v[c][u][j], acc[c][m]);
          }
        }
      }
    } else {
#pragma unroll
      for (int c = 0; c < kNkColsPerWarp; ++c) {
        const int n = n0 + c;
        if (n >= N) break;
        const float* w = W + int64_t(n) * K + k0;
        for (int k = lane; k < kc; k += 32) {
          const float v = w[k];
#pragma unroll
          for (int m = 0; m < MM; ++m) {
            if (m >= M) break;
            acc[c][m] = fmaf(As[m * pitch + k], v, acc[c][m]);
          }
        }
      }
    }
    if constexpr (!WHOLE_A) __syncthreads();  // the chunk's A is restaged next
  }
#pragma unroll
  for (int c = 0; c < kNkColsPerWarp; ++c) {
    const int n = n0 + c;
#pragma unroll
    for (int m = 0; m < MM; ++m) {
      if (m >= M) break;
      float v = acc[c][m];
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
      if (lane == 0 && n < N) C[int64_t(m) * N + n] = v + (bias ? bias[n] : 0.f);
    }
  }
}

// Calls f(std::integral_constant<int, MM>) with the smallest instantiated row count MM >= M.
template <class F>
void with_rows(int M, F&& f) {
  if (M == 1)
    f(std::integral_constant<int, 1>());
  else if (M <= 4)
    f(std::integral_constant<int, 4>());
  else
    f(std::integral_constant<int, kMaxM>());
}

}  // namespace fw::skinny

namespace fw::detail {

bool skinny_supported(const GemmArgs& a) {
  return a.dt == DType::f32 && a.batch == 1 && a.M <= skinny::kMaxM && a.K >= 256 && a.N >= 256;
}

void gemm_skinny(const GemmArgs& a, cudaStream_t s) {
  using namespace fw::skinny;
  FW_REQUIRE(skinny_supported(a),
             "the skinny path takes fp32 with batch 1 and M <= 16");
  const int M = int(a.M), N = int(a.N), K = int(a.K);
  const bool aligned = (reinterpret_cast<uintptr_t>(a.A) & 15) == 0 && (reinterpret_cast<uintptr_t>(a.B) & 15) == 0;
  if (a.b_layout == GemmLayout::kn) {
    const auto* A = static_cast<const float*>(a.A);
    const auto* B = static_cast<const float*>(a.B);
    const auto* bias = static_cast<const float*>(a.bias);
    auto* C = static_cast<float*>(a.C);
    const int64_t bx = ceil_div(N, kKnCols);
    const int64_t want = ceil_div(4 * int64_t(device_props().sms), bx);
    const int splits = int(std::clamp<int64_t>(std::min<int64_t>(want, ceil_div(K, kKnChunk)), 1, 256));
    const int k_per_split = int(ceil_div(ceil_div(K, splits), kKnChunk) * kKnChunk);
    const dim3 grid(unsigned(bx), unsigned(ceil_div(K, k_per_split)));
    if (grid.y > 1) FW_CUDA_CHECK(cudaMemsetAsync(C, 0, size_t(M) * N * sizeof(float), s));
    with_rows(M, [&](auto mm) {
      constexpr int MM = decltype(mm)::value;
      if (aligned && N % 4 == 0)
        k_kn<MM, true><<<grid, kThreads, 0, s>>>(A, B, bias, C, M, N, K, k_per_split);
      else
        k_kn<MM, false><<<grid, kThreads, 0, s>>>(A, B, bias, C, M, N, K, k_per_split);
    });
  } else {
    const unsigned blocks = unsigned(ceil_div(N, kNkCols));
    const auto* A = static_cast<const float*>(a.A);
    const auto* W = static_cast<const float*>(a.B);
    const auto* bias = static_cast<const float*>(a.bias);
    auto* C = static_cast<float*>(a.C);
    // The whole of A where it fits the default 48 KiB of shared memory (M x K <= 12288: M = 1 up to K = 12288, 4
    // rows up to 3072), else a chunk at a time (<= 32 KiB), staged 8 loads at a time. H100, A/B/A in three leases
    // against the kernel before (chunk by chunk, one load at a time): linear 1x4096x4096 fp32 26.1-26.3 us against
    // 27.9-31.5 (whole A), 4x4096x4096 28.8-29.2 against 31.7-32.5 and 8x2048x2048 22.2 against 23.1-23.2 (chunk
    // by chunk).
    const int whole = int(round_up(int64_t(K), int64_t(kNkChunk)));
    const bool whole_a = int64_t(M) * whole * int64_t(sizeof(float)) <= 48 * 1024;
    const int pitch = whole_a ? whole : kNkChunk;
    const size_t smem = size_t(M) * pitch * sizeof(float);
    const bool vec = aligned && K % kNkVec == 0;
    with_rows(M, [&](auto mm) {
      constexpr int MM = decltype(mm)::value;
      auto launch = [&](auto kernel) { kernel<<<blocks, kThreads, smem, s>>>(A, W, bias, C, M, N, K, pitch); };
      if (whole_a) return vec ? launch(k_nk<MM, true, true>) : launch(k_nk<MM, false, true>);
      vec ? launch(k_nk<MM, true, false>) : launch(k_nk<MM, false, false>);
    });
  }
  FW_CHECK_LAUNCH();
}

}  // namespace fw::detail
