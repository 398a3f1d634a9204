// Causal grouped-query flash attention, forward (attention.hpp), FlashAttention-2 style on mma.sync.
//
// One CTA per (64 query rows, query head, batch), 4 warps, each warp owning 16 query rows for the whole
// pass: its Q fragments stay in registers, the 16 x 64 scores of a key tile and the 16 x D output
// accumulator too. K and V tiles of 64 keys stream through shared memory, double-buffered with cp.async
// (the next tile loads while this one is multiplied). Online softmax in fp32 with ex2 (MUFU.EX2, ftz), the
// scale folded into log2 units (one FMA per score); P is rounded to the dtype only as the operand of P.V. Causal:
// the key tiles past the block's last visible key are never loaded, only the tiles that straddle the
// diagonal (or the sequence end) are masked. The query blocks are scheduled longest first (reversed
// blockIdx.x), which evens out the causal triangle's tail.
#include <algorithm>
#include <cmath>

#include "kernels/attention/attention.hpp"
#include "kernels/attention/attention_common.cuh"
#include "kernels/common/check.hpp"
#include "kernels/common/device.hpp"

namespace fw {
namespace attn {
namespace {

template <class T, int D, bool VEC>
__global__ void __launch_bounds__(kThreads) attention_forward_kernel(const Args p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + kBlockM * D;            // [2][kBlockN * D]
  T* sV = sK + 2 * kBlockN * D;        // [2][kBlockN * D]

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int m_block = int(gridDim.x) - 1 - int(blockIdx.x);
  const int h = blockIdx.y, b = blockIdx.z, hk = h / p.group;
  const int m0 = m_block * kBlockM;
  const int64_t ldq = int64_t(p.heads_q) * D, ldk = int64_t(p.heads_kv) * D;
  const T* q = static_cast<const T*>(p.q) + (int64_t(b) * p.seq_q + m0) * ldq + int64_t(h) * D;
  const T* k = static_cast<const T*>(p.k) + int64_t(b) * p.seq_kv * ldk + int64_t(hk) * D;
  const T* v = static_cast<const T*>(p.v) + int64_t(b) * p.seq_kv * ldk + int64_t(hk) * D;

  // Keys this block needs: [0, n_end). Causal: the block's last row m0 + 63 sees up to m0 + 63 + off.
  const int n_end = p.causal ? std::min(p.seq_kv, m0 + kBlockM + p.off) : p.seq_kv;
  const int n_tiles = n_end > 0 ? int((n_end + kBlockN - 1) / kBlockN) : 0;

  load_tile<T, D, kBlockM, VEC>(sQ, q, ldq, p.seq_q - m0, tid);
  if (n_tiles > 0) {
    load_tile<T, D, kBlockN, VEC>(sK, k, ldk, p.seq_kv, tid);
    load_tile<T, D, kBlockN, VEC>(sV, v, ldk, p.seq_kv, tid);
  }
  cp_async_commit();

  uint32_t qf[D / 16][4];
  float o[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
  float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};
  const int row_a = m0 + warp * 16 + g;  // this thread's two query rows: row_a and row_a + 8

  for (int j = 0; j < n_tiles; ++j) {
    const int buf = j & 1;
    if (j + 1 < n_tiles) {
      const int64_t n1 = int64_t(j + 1) * kBlockN;
      load_tile<T, D, kBlockN, VEC>(sK + (buf ^ 1) * kBlockN * D, k + n1 * ldk, ldk, p.seq_kv - int(n1), tid);
      load_tile<T, D, kBlockN, VEC>(sV + (buf ^ 1) * kBlockN * D, v + n1 * ldk, ldk, p.seq_kv - int(n1), tid);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) load_a<D>(sQ, warp * 16, kk, lane, qf[kk]);
    }
    const T* k_s = sK + buf * kBlockN * D;
    const T* v_s = sV + buf * kBlockN * D;

    // S = Q K^T for this warp's 16 rows x 64 keys.
    float s[8][4];
#pragma unroll
    for (int i = 0; i < 8; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        uint32_t bf[4];
        load_b_nk<D>(k_s, np * 16, kk, lane, bf);
        mma16816<T>(s[2 * np], qf[kk], bf[0], bf[1]);
        mma16816<T>(s[2 * np + 1], qf[kk], bf[2], bf[3]);
      }
    }

    // Mask the tile that straddles the diagonal or the end of the keys.
    const int n0 = j * kBlockN;
    if (n0 + kBlockN > p.seq_kv || (p.causal && n0 + kBlockN - 1 > m0 + p.off)) {
#pragma unroll
      for (int nt = 0; nt < 8; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int col = n0 + nt * 8 + 2 * t + (e & 1);
          const int row = row_a + (e >> 1) * 8;
          if (col >= p.seq_kv || (p.causal && col > row + p.off)) s[nt][e] = -INFINITY;
        }
    }

    // Online softmax, per row (r = 0: row_a, r = 1: row_a + 8); a row lives in the 4 threads of a quad.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m_run[r], mx * p.scale_log2);
      // A row that has seen no key yet keeps m = -inf: subtract 0 instead (no inf - inf).
      const float base = m_new == -INFINITY ? 0.0f : m_new;
      const float alpha = ex2(m_run[r] - base);
      m_run[r] = m_new;
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        s[nt][2 * r] = ex2(fmaf(s[nt][2 * r], p.scale_log2, -base));
        s[nt][2 * r + 1] = ex2(fmaf(s[nt][2 * r + 1], p.scale_log2, -base));
        sum += s[nt][2 * r] + s[nt][2 * r + 1];
      }
      l_run[r] = l_run[r] * alpha + sum;
#pragma unroll
      for (int i = 0; i < D / 8; ++i) {
        o[i][2 * r] *= alpha;
        o[i][2 * r + 1] *= alpha;
      }
    }

    // O += P V: P from registers, V through ldmatrix.trans.
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      uint32_t a[4];
      acc_to_a<T>(s[2 * kk], s[2 * kk + 1], a);
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t bf[4];
        load_b_kn<D>(v_s, kk * 16, dp, lane, bf);
        mma16816<T>(o[2 * dp], a, bf[0], bf[1]);
        mma16816<T>(o[2 * dp + 1], a, bf[2], bf[3]);
      }
    }
    __syncthreads();  // buffer `buf` is refilled by the next iteration's prefetch
  }
  cp_async_wait<0>();
  __syncthreads();

  // Epilogue: O / l, rounded into this warp's own rows of sQ, then 16-byte stores; lse in natural log.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 1);
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 2);
    const float inv = l_run[r] > 0.0f ? 1.0f / l_run[r] : 0.0f;
#pragma unroll
    for (int i = 0; i < D / 8; ++i) {
      o[i][2 * r] *= inv;
      o[i][2 * r + 1] *= inv;
    }
    const int row = row_a + r * 8;
    if (t == 0 && row < p.seq_q) {
      p.lse_out[(int64_t(b) * p.heads_q + h) * p.seq_q + row] =
          l_run[r] > 0.0f ? (m_run[r] + log2f(l_run[r])) * 0.69314718055994531f : -INFINITY;
    }
  }
  acc_to_smem<D, D / 8>(sQ, warp * 16, o, lane);
  __syncwarp();
  T* out = static_cast<T*>(p.out) + (int64_t(b) * p.seq_q + m0 + warp * 16) * ldq + int64_t(h) * D;
  store_rows16<T, D, VEC>(out, ldq, sQ, warp * 16, p.seq_q - m0 - warp * 16, lane);
}

template <class T, int D, bool VEC>
void launch_forward(const Args& a, int batch, cudaStream_t stream) {
  constexpr int kSmem = (kBlockM + 4 * kBlockN) * D * int(sizeof(T));
  auto kernel = attention_forward_kernel<T, D, VEC>;
  static PerDevice<bool> configured;  // the shared-memory limit, set once per device
  (void)configured.get([&] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  });
  const dim3 grid(unsigned((a.seq_q + kBlockM - 1) / kBlockM), unsigned(a.heads_q), unsigned(batch));
  kernel<<<grid, kThreads, kSmem, stream>>>(a);
  FW_CHECK_LAUNCH();
}

}  // namespace

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

void check_shape(const AttentionShape& s) {
  FW_REQUIRE(s.batch >= 0 && s.seq_q >= 0 && s.seq_kv >= 0, "batch, seq_q and seq_kv must be non-negative");
  FW_REQUIRE(s.heads_q > 0 && s.heads_kv > 0 && s.heads_q % s.heads_kv == 0,
             "heads_q must be a positive multiple of heads_kv");
  FW_REQUIRE(s.head_dim == 64 || s.head_dim == 128, "head_dim must be 64 or 128");
  FW_REQUIRE(s.seq_q < (int64_t(1) << 30) && s.seq_kv < (int64_t(1) << 30) && s.heads_q < 65536 && s.batch < 65536,
             "seq below 2^30, heads_q and batch below 65536");
}

Args make_args(const AttentionShape& s) {
  Args a{};
  a.seq_q = int(s.seq_q);
  a.seq_kv = int(s.seq_kv);
  a.heads_q = int(s.heads_q);
  a.heads_kv = int(s.heads_kv);
  a.group = int(s.heads_q / s.heads_kv);
  a.off = int(s.seq_kv - s.seq_q);
  a.causal = s.causal;
  a.scale = s.scale;
  a.scale_log2 = s.scale * kLog2e;
  return a;
}

}  // namespace attn

void attention_forward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                       void* o, float* lse, cudaStream_t stream) {
  attn::check_shape(s);
  FW_REQUIRE(dt == opbench::DType::f16 || dt == opbench::DType::bf16, "attention takes f16 or bf16");
  if (s.batch == 0 || s.seq_q == 0) return;
  FW_REQUIRE(q && k && v && o && lse, "null pointer");
  attn::Args a = attn::make_args(s);
  a.q = q;
  a.k = k;
  a.v = v;
  a.out = o;
  a.lse_out = lse;
  const bool vec = attn::aligned16(q) && attn::aligned16(k) && attn::aligned16(v) && attn::aligned16(o);
  const int batch = int(s.batch);
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, float>::value) {
      if (s.head_dim == 64) {
        vec ? attn::launch_forward<T, 64, true>(a, batch, stream)
            : attn::launch_forward<T, 64, false>(a, batch, stream);
      } else {
        vec ? attn::launch_forward<T, 128, true>(a, batch, stream)
            : attn::launch_forward<T, 128, false>(a, batch, stream);
      }
    }
  });
}

int attention_forward_block_keys() { return attn::kBlockN; }

}  // namespace fw
