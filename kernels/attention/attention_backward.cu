// Causal grouped-query flash attention, backward (attention.hpp), FlashAttention-2 style on mma.sync.
//
// Three kernels after zeroing the fp32 dQ accumulator:
//   1. delta:  D[b, h, i] = sum_d dO[i, d] * O[i, d] in fp32 (one warp per query row).
//   2. main:   one CTA per (64 keys, kv head, batch), 4 warps each owning 16 keys. K and V stay in shared
//              memory for the whole CTA; it loops over the query heads of the kv head's group and over the
//              query blocks that see its keys (causal: from the block of the first query that sees key
//              n0), Q and dO tiles double-buffered with cp.async. Per step, each warp recomputes
//              S^T = K Q^T for its keys, P^T = exp2(S^T * scale * log2 e - lse * log2 e) from the forward's
//              lse (no softmax pass), then dV += P^T dO, dP^T = V dO^T, dS^T = P^T (dP^T - D),
//              dK += dS^T Q, all with P^T and dS^T kept in registers as mma operands. dQ needs the sum over
//              all 64 keys, so dS^T goes through shared memory and each warp computes 16 query rows of
//              dS K, added with fp32 atomics into the workspace. dK and dV are summed over the group's
//              heads in registers and written once.
//   3. dq:     the fp32 accumulator rounded to the dtype.
// Workspace: dQ accumulator [b, seq_q, heads_q, head_dim] fp32, then D [b, heads_q, seq_q] fp32.
#include <algorithm>
#include <cmath>

#include "kernels/attention/attention.hpp"
#include "kernels/attention/attention_common.cuh"
#include "kernels/common/check.hpp"

namespace fw {
namespace attn {
namespace {

std::size_t align256(std::size_t n) { return (n + 255) / 256 * 256; }
std::size_t dq_accum_bytes(const AttentionShape& s) {
  return align256(std::size_t(s.batch * s.seq_q * s.heads_q * s.head_dim) * sizeof(float));
}
std::size_t delta_bytes(const AttentionShape& s) {
  return align256(std::size_t(s.batch * s.heads_q * s.seq_q) * sizeof(float));
}
std::size_t dkv_accum_bytes(const AttentionShape& s) {
  return align256(std::size_t(s.batch * s.seq_kv * s.heads_kv * s.head_dim) * sizeof(float));
}

// Query heads per CTA: the whole group (dK, dV summed in registers, written once) unless that leaves
// fewer than two CTAs per SM (Qwen2's 7-head groups at batch 4, seq 512: 64 CTAs on 132 SMs); then the
// group is split over CTAs (the fewest splits that fill the GPU), whose sums meet in fp32 atomics.
int heads_per_cta(const AttentionShape& s) {
  const int64_t group = s.heads_q / s.heads_kv;
  const int64_t ctas = ceil_div(s.seq_kv, kBlockN) * s.heads_kv * s.batch;
  const int64_t want = 2 * int64_t(sm_count());
  for (int64_t split = 1; split <= group; ++split)
    if (group % split == 0 && ctas * split >= want) return int(group / split);
  return 1;
}

// D = rowsum(dO * O): one warp per (b, i, h) row of q's layout; element loads (any alignment).
template <class T>
__global__ void attention_delta_kernel(const T* __restrict__ o, const T* __restrict__ d_o, float* __restrict__ delta,
                                       int64_t rows, int seq_q, int heads_q, int d) {
  const int64_t row = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const T* a = o + row * d;
  const T* g = d_o + row * d;
  float sum = 0.0f;
  for (int c = lane; c < d; c += 32) sum += to_float(a[c]) * to_float(g[c]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) {
    const int h = int(row % heads_q);
    const int64_t bi = row / heads_q;  // b * seq_q + i
    const int64_t b = bi / seq_q, i = bi % seq_q;
    delta[(b * heads_q + h) * seq_q + i] = sum;
  }
}

// fp32 accumulator -> dtype (dQ, and dK, dV when the group was split).
template <class T>
__global__ void attention_dq_kernel(const float* __restrict__ acc, T* __restrict__ dq, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dq[i] = from_float<T>(acc[i]);
}

template <class T, int D, bool VEC>
__global__ void __launch_bounds__(kThreads) attention_backward_kernel(const Args p) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sK = reinterpret_cast<T*>(smem_raw);
  T* sV = sK + kBlockN * D;
  T* sQ = sV + kBlockN * D;         // [2][kBlockM * D]
  T* sdO = sQ + 2 * kBlockM * D;    // [2][kBlockM * D]
  T* sdS = sdO + 2 * kBlockM * D;   // [kBlockN keys][kBlockM queries]
  float* sLse = reinterpret_cast<float*>(sdS + kBlockN * kBlockM);  // [2][kBlockM], log2 units
  float* sDel = sLse + 2 * kBlockM;                                 // [2][kBlockM]

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int splits = p.group / p.heads_per_cta;
  const int n0 = blockIdx.x * kBlockN, hk = blockIdx.y / splits, b = blockIdx.z;
  const int h_first = hk * p.group + (blockIdx.y % splits) * p.heads_per_cta;
  const int64_t ldq = int64_t(p.heads_q) * D, ldk = int64_t(p.heads_kv) * D;
  const int64_t kv_off = (int64_t(b) * p.seq_kv + n0) * ldk + int64_t(hk) * D;

  load_tile<T, D, kBlockN, VEC>(sK, static_cast<const T*>(p.k) + kv_off, ldk, p.seq_kv - n0, tid);
  load_tile<T, D, kBlockN, VEC>(sV, static_cast<const T*>(p.v) + kv_off, ldk, p.seq_kv - n0, tid);

  // Query blocks that see a key of this block: causal, query i sees n0 when i >= n0 - off.
  const int n_qb = (p.seq_q + kBlockM - 1) / kBlockM;
  const int qb_first = p.causal ? std::max(0, n0 - p.off) / kBlockM : 0;
  const int per_head = std::max(0, n_qb - qb_first);
  const int steps = per_head * p.heads_per_cta;

  auto load_step = [&](int step, int buf) {
    const int h = h_first + step / per_head;
    const int q0 = (qb_first + step % per_head) * kBlockM;
    const int64_t q_off = (int64_t(b) * p.seq_q + q0) * ldq + int64_t(h) * D;
    load_tile<T, D, kBlockM, VEC>(sQ + buf * kBlockM * D, static_cast<const T*>(p.q) + q_off, ldq, p.seq_q - q0, tid);
    load_tile<T, D, kBlockM, VEC>(sdO + buf * kBlockM * D, static_cast<const T*>(p.d_o) + q_off, ldq, p.seq_q - q0,
                                  tid);
    if (tid < kBlockM) {
      const int i = q0 + tid;
      const int64_t r = (int64_t(b) * p.heads_q + h) * p.seq_q + i;
      // Rows past seq_q (and rows that see no key, lse = -inf) are masked below; 0 keeps exp2 finite.
      const float lse = i < p.seq_q ? p.lse_in[r] : 0.0f;
      sLse[buf * kBlockM + tid] = lse == -INFINITY ? 0.0f : lse * 1.4426950408889634f;
      sDel[buf * kBlockM + tid] = i < p.seq_q ? p.delta[r] : 0.0f;
    }
  };
  if (steps > 0) load_step(0, 0);
  cp_async_commit();

  float dk[D / 8][4], dv[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk[i][e] = dv[i][e] = 0.0f;
  const int key_a = n0 + warp * 16 + g;  // this thread's keys: key_a and key_a + 8

  for (int step = 0; step < steps; ++step) {
    const int buf = step & 1;
    if (step + 1 < steps) load_step(step + 1, buf ^ 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    const int h = h_first + step / per_head;
    const int q0 = (qb_first + step % per_head) * kBlockM;
    const T* q_s = sQ + buf * kBlockM * D;
    const T* do_s = sdO + buf * kBlockM * D;
    const float* lse_s = sLse + buf * kBlockM;
    const float* del_s = sDel + buf * kBlockM;

    // S^T = K Q^T: this warp's 16 keys x 64 queries.
    float st[8][4];
#pragma unroll
    for (int i = 0; i < 8; ++i) st[i][0] = st[i][1] = st[i][2] = st[i][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t a[4];
      load_a<D>(sK, warp * 16, kk, lane, a);
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        uint32_t bf[4];
        load_b_nk<D>(q_s, np * 16, kk, lane, bf);
        mma16816<T>(st[2 * np], a, bf[0], bf[1]);
        mma16816<T>(st[2 * np + 1], a, bf[2], bf[3]);
      }
    }
    // P^T from the forward's lse; masked: keys past seq_kv, queries past seq_q, keys a query does not see.
    const bool edge = q0 + kBlockM > p.seq_q || n0 + kBlockN > p.seq_kv || (p.causal && n0 + kBlockN - 1 > q0 + p.off);
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int qc = nt * 8 + 2 * t + (e & 1);
        float pv = exp2f(fmaf(st[nt][e], p.scale_log2, -lse_s[qc]));
        if (edge) {
          const int key = key_a + (e >> 1) * 8, qi = q0 + qc;
          if (key >= p.seq_kv || qi >= p.seq_q || (p.causal && key > qi + p.off)) pv = 0.0f;
        }
        st[nt][e] = pv;
      }

    // dV += P^T dO.
#pragma unroll
    for (int kk = 0; kk < kBlockM / 16; ++kk) {
      uint32_t a[4];
      acc_to_a<T>(st[2 * kk], st[2 * kk + 1], a);
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t bf[4];
        load_b_kn<D>(do_s, kk * 16, dp, lane, bf);
        mma16816<T>(dv[2 * dp], a, bf[0], bf[1]);
        mma16816<T>(dv[2 * dp + 1], a, bf[2], bf[3]);
      }
    }

    // dP^T = V dO^T, then dS^T = P^T (dP^T - D) in place.
    float ds[8][4];
#pragma unroll
    for (int i = 0; i < 8; ++i) ds[i][0] = ds[i][1] = ds[i][2] = ds[i][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t a[4];
      load_a<D>(sV, warp * 16, kk, lane, a);
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        uint32_t bf[4];
        load_b_nk<D>(do_s, np * 16, kk, lane, bf);
        mma16816<T>(ds[2 * np], a, bf[0], bf[1]);
        mma16816<T>(ds[2 * np + 1], a, bf[2], bf[3]);
      }
    }
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) ds[nt][e] = st[nt][e] * (ds[nt][e] - del_s[nt * 8 + 2 * t + (e & 1)]);

    // dK += dS^T Q (the scale is applied once at the end).
#pragma unroll
    for (int kk = 0; kk < kBlockM / 16; ++kk) {
      uint32_t a[4];
      acc_to_a<T>(ds[2 * kk], ds[2 * kk + 1], a);
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t bf[4];
        load_b_kn<D>(q_s, kk * 16, dp, lane, bf);
        mma16816<T>(dk[2 * dp], a, bf[0], bf[1]);
        mma16816<T>(dk[2 * dp + 1], a, bf[2], bf[3]);
      }
    }

    // dQ (16 query rows per warp) = scale * dS K over the block's 64 keys, through shared memory.
    acc_to_smem<kBlockM, 8>(sdS, warp * 16, ds, lane);
    __syncthreads();
    {
      float dq[D / 8][4];
#pragma unroll
      for (int i = 0; i < D / 8; ++i) dq[i][0] = dq[i][1] = dq[i][2] = dq[i][3] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        // A = dS [query][key], stored as dS^T [key][query]: transposed ldmatrix.
        uint32_t a[4];
        const int m = lane >> 3;
        ldsm_x4_t(sdS + swz<kBlockM>(kk * 16 + ((m >> 1) << 3) + (lane & 7), warp * 2 + (m & 1)), a);
#pragma unroll
        for (int dp = 0; dp < D / 16; ++dp) {
          uint32_t bf[4];
          load_b_kn<D>(sK, kk * 16, dp, lane, bf);
          mma16816<T>(dq[2 * dp], a, bf[0], bf[1]);
          mma16816<T>(dq[2 * dp + 1], a, bf[2], bf[3]);
        }
      }
      float* acc = p.dq_accum + (int64_t(b) * p.seq_q) * ldq + int64_t(h) * D;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int qi = q0 + warp * 16 + g + r * 8;
        if (qi >= p.seq_q) continue;
        float* row = acc + int64_t(qi) * ldq + 2 * t;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) {
          atomicAdd(row + dt * 8, dq[dt][2 * r] * p.scale);
          atomicAdd(row + dt * 8 + 1, dq[dt][2 * r + 1] * p.scale);
        }
      }
    }
    __syncthreads();  // sdS and buffer `buf` are rewritten by the next step
  }
  cp_async_wait<0>();
  __syncthreads();

  // dK (scaled) and dV: this CTA's sums over its heads. Split group: added into the fp32 accumulators;
  // else rounded into this warp's own rows of sK / sV, then stored.
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk[i][e] *= p.scale;
  if (p.dk_accum) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int key = key_a + r * 8;
      if (key >= p.seq_kv) continue;
      const int64_t off = (int64_t(b) * p.seq_kv + key) * ldk + int64_t(hk) * D + 2 * t;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        atomicAdd(p.dk_accum + off + dt * 8, dk[dt][2 * r]);
        atomicAdd(p.dk_accum + off + dt * 8 + 1, dk[dt][2 * r + 1]);
        atomicAdd(p.dv_accum + off + dt * 8, dv[dt][2 * r]);
        atomicAdd(p.dv_accum + off + dt * 8 + 1, dv[dt][2 * r + 1]);
      }
    }
    return;
  }
  acc_to_smem<D, D / 8>(sK, warp * 16, dk, lane);
  acc_to_smem<D, D / 8>(sV, warp * 16, dv, lane);
  __syncwarp();
  const int valid = p.seq_kv - n0 - warp * 16;
  const int64_t out_off = (int64_t(b) * p.seq_kv + n0 + warp * 16) * ldk + int64_t(hk) * D;
  store_rows16<T, D, VEC>(static_cast<T*>(p.dk) + out_off, ldk, sK, warp * 16, valid, lane);
  store_rows16<T, D, VEC>(static_cast<T*>(p.dv) + out_off, ldk, sV, warp * 16, valid, lane);
}

template <class T, int D, bool VEC>
void launch_backward(const Args& a, int batch, cudaStream_t stream) {
  constexpr int kSmem = (2 * kBlockN * D + 4 * kBlockM * D + kBlockN * kBlockM) * int(sizeof(T)) +
                        4 * kBlockM * int(sizeof(float));
  auto kernel = attention_backward_kernel<T, D, VEC>;
  static const bool configured = [&] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  }();
  (void)configured;
  const dim3 grid(unsigned((a.seq_kv + kBlockN - 1) / kBlockN), unsigned(a.heads_kv * (a.group / a.heads_per_cta)),
                  unsigned(batch));
  kernel<<<grid, kThreads, kSmem, stream>>>(a);
  FW_CHECK_LAUNCH();
}

}  // namespace
}  // namespace attn

std::size_t attention_backward_workspace_bytes(const AttentionShape& s) {
  attn::check_shape(s);
  return attn::dq_accum_bytes(s) + attn::delta_bytes(s) + 2 * attn::dkv_accum_bytes(s);
}

void attention_backward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                        const void* o, const void* d_o, const float* lse, void* dq, void* dk, void* dv,
                        void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  attn::check_shape(s);
  FW_REQUIRE(dt == opbench::DType::f16 || dt == opbench::DType::bf16, "attention takes f16 or bf16");
  if (s.batch == 0 || (s.seq_q == 0 && s.seq_kv == 0)) return;
  FW_REQUIRE(workspace_bytes >= attention_backward_workspace_bytes(s),
             "workspace smaller than attention_backward_workspace_bytes");
  FW_REQUIRE(q && k && v && o && d_o && lse && dq && dk && dv && workspace, "null pointer");
  FW_REQUIRE(reinterpret_cast<uintptr_t>(workspace) % 16 == 0, "workspace must be 16-byte aligned");
  attn::Args a = attn::make_args(s);
  a.q = q;
  a.k = k;
  a.v = v;
  a.o = o;
  a.d_o = d_o;
  a.dq = dq;
  a.dk = dk;
  a.dv = dv;
  a.lse_in = lse;
  a.dq_accum = static_cast<float*>(workspace);
  char* ws = static_cast<char*>(workspace);
  a.delta = reinterpret_cast<float*>(ws + attn::dq_accum_bytes(s));
  a.heads_per_cta = attn::heads_per_cta(s);
  const int64_t kv_elems = s.batch * s.seq_kv * s.heads_kv * s.head_dim;
  if (a.heads_per_cta < a.group) {
    a.dk_accum = reinterpret_cast<float*>(ws + attn::dq_accum_bytes(s) + attn::delta_bytes(s));
    a.dv_accum = reinterpret_cast<float*>(reinterpret_cast<char*>(a.dk_accum) + attn::dkv_accum_bytes(s));
    FW_CUDA_CHECK(cudaMemsetAsync(a.dk_accum, 0, 2 * attn::dkv_accum_bytes(s), stream));
  }
  const bool vec = attn::aligned16(q) && attn::aligned16(k) && attn::aligned16(v) && attn::aligned16(d_o) &&
                   attn::aligned16(dk) && attn::aligned16(dv);
  const int batch = int(s.batch);
  const int64_t q_elems = s.batch * s.seq_q * s.heads_q * s.head_dim;
  FW_CUDA_CHECK(cudaMemsetAsync(a.dq_accum, 0, std::size_t(q_elems) * sizeof(float), stream));
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, float>::value) {
      const int64_t rows = s.batch * s.seq_q * s.heads_q;
      if (rows > 0) {
        attn::attention_delta_kernel<T><<<unsigned(ceil_div(rows * 32, 256)), 256, 0, stream>>>(
            static_cast<const T*>(o), static_cast<const T*>(d_o), a.delta, rows, a.seq_q, a.heads_q, int(s.head_dim));
        FW_CHECK_LAUNCH();
      }
      if (s.seq_kv > 0) {
        if (s.head_dim == 64) {
          vec ? attn::launch_backward<T, 64, true>(a, batch, stream)
              : attn::launch_backward<T, 64, false>(a, batch, stream);
        } else {
          vec ? attn::launch_backward<T, 128, true>(a, batch, stream)
              : attn::launch_backward<T, 128, false>(a, batch, stream);
        }
      }
      if (q_elems > 0) {
        const int64_t blocks = std::min<int64_t>(ceil_div(q_elems, 256), int64_t(sm_count()) * 16);
        attn::attention_dq_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(a.dq_accum, static_cast<T*>(dq), q_elems);
        FW_CHECK_LAUNCH();
      }
      if (a.dk_accum && kv_elems > 0) {
        const int64_t blocks = std::min<int64_t>(ceil_div(kv_elems, 256), int64_t(sm_count()) * 16);
        attn::attention_dq_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(a.dk_accum, static_cast<T*>(dk), kv_elems);
        FW_CHECK_LAUNCH();
        attn::attention_dq_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(a.dv_accum, static_cast<T*>(dv), kv_elems);
        FW_CHECK_LAUNCH();
      }
    }
  });
}

}  // namespace fw
