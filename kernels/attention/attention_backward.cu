// Causal grouped-query flash attention, backward (attention.hpp), FlashAttention-2 style on mma.sync.
//
// Three kernels, each after the first a programmatic dependent launch of the one before (its CTAs are
// scheduled while that one finishes, and wait for it before touching what it writes):
//   1. delta:  D[b, h, i] = sum_d dO[i, d] * O[i, d] in fp32 (D / 8 lanes per query row), lse in log2 units
//              beside it, and the accumulators cleared (dQ, and dK, dV when the group is split).
//   2. main:   one CTA per (KB keys, kv head, batch), a warp per 16 keys (KB: keys_per_cta). K and V stay in
//              shared memory for the whole CTA; it loops over the query heads of the kv head's group and over
//              the query blocks that see its keys (causal: from the block of the first query that sees key
//              n0), Q and dO tiles double-buffered with cp.async. Per step, each warp recomputes
//              S^T = K Q^T for its keys, P^T = exp2(S^T * scale * log2 e - lse * log2 e) from the forward's
//              lse (no softmax pass), then dV += P^T dO, dP^T = V dO^T, dS^T = P^T (dP^T - D),
//              dK += dS^T Q, all with P^T and dS^T kept in registers as mma operands. dQ needs the sum over
//              all KB keys, so dS^T goes through shared memory and each warp computes 16 query rows of
//              dS K (D / (KB / 64) columns: 8 warps split the columns in two), staged in fp32 in the
//              step's spent Q/dO buffer and added into the workspace with 16-byte vector reds along whole
//              rows (per-fragment scalar atomics cost 12 L2 requests per 32 floats and held L2 58-75% busy:
//              ncu, 9b8aa20). dK and dV are summed over the group's heads in registers and written once.
//              CTAs are ordered heaviest first (causal: the first key blocks see the most queries), so
//              the long ones do not start in the last wave.
//   3. convert: the fp32 accumulators rounded to the dtype, dQ (and dK, dV when the group was split).
// Workspace: dQ accumulator [b, seq_q, heads_q, head_dim] fp32, D and lse in log2 units [b, heads_q, seq_q]
// fp32, and the fp32 dK, dV sums when a group is split over CTAs.
#include <algorithm>
#include <cmath>

#include "kernels/attention/attention.hpp"
#include "kernels/attention/attention_common.cuh"
#include "kernels/common/check.hpp"
#include "kernels/common/device.hpp"
#include "kernels/common/dependent_launch.cuh"

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

// Keys per CTA of the main kernel, a warp per 16. 128 at D = 128 over long sequences, FA2's key block: a
// step's Q and dO tiles, and its dQ reductions, then serve twice the keys. Over short ones a CTA runs few
// steps and the coarser blocks lengthen the causal tail (the CTA of the first keys runs the most steps, on
// an SM of its own). H100, bench_ops A/B/A, bf16 (notes/performance.md, issue 14's fourteenth round):
// 4x2048x32x8x128 1772 -> 1589-1603 us, 1x2048x32x8x128 468 -> 445, but 1x512x32x8x128 75.6 -> 80.1-80.6.
// At D = 64 a 4-warp CTA of 64 keys holds few enough registers for several CTAs an SM.
int keys_per_cta(const AttentionShape& s) { return s.head_dim == 128 && s.seq_kv >= 1024 ? 128 : 64; }
// CTAs of the main kernel an SM holds (shared memory and 255 registers a thread at D = 128): two of 4
// warps, one of 8.
int ctas_per_sm(int keys) { return keys == 64 ? 2 : 1; }

// Query heads per CTA: the whole group (dK, dV summed in registers, written once) unless that leaves
// less than a wave of CTAs (Qwen2's 7-head groups at batch 4, seq 512: 64 CTAs on 132 SMs); then the
// group is split over CTAs (the fewest splits that fill the GPU), whose sums meet in fp32 atomics.
int heads_per_cta(const AttentionShape& s) {
  const int keys = keys_per_cta(s);
  const int64_t group = s.heads_q / s.heads_kv;
  const int64_t ctas = ceil_div(s.seq_kv, int64_t(keys)) * s.heads_kv * s.batch;
  const int64_t want = ctas_per_sm(keys) * int64_t(sm_count());
  for (int64_t split = 1; split <= group; ++split)
    if (group % split == 0 && ctas * split >= want) return int(group / split);
  return 1;
}

// D = rowsum(dO * O), and the dQ accumulator's row cleared (the same [b, i, h] row index): D / 8 lanes per
// row, 8 elements a lane (16-byte loads when VEC). Also clears the split group's dK, dV accumulators
// (p.dkv_clear4 float4s from p.dk_accum) instead of a memset launch of their own (with the convert launches
// merged and the dependent launches, 1x512x32x8x128 75.4 -> 72.3 us on H100; the memset alone not measured).
template <class T, int D, bool VEC>
__global__ void attention_delta_kernel(const T* __restrict__ o, const T* __restrict__ d_o, const Args p, int64_t rows) {
  constexpr int kLanes = D / 8;
  static_assert(32 % kLanes == 0, "a row's lanes within one warp");
  allow_dependents();  // the main kernel's CTAs load K and V while this runs
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t row = tid / kLanes;
  const int c = int(tid % kLanes) * 8;
  float sum = 0.0f;
  if (row < rows) {
    const T* a = o + row * D + c;
    const T* g = d_o + row * D + c;
    if constexpr (VEC) {
      const Packet<T, 8> pa = *reinterpret_cast<const Packet<T, 8>*>(a);
      const Packet<T, 8> pg = *reinterpret_cast<const Packet<T, 8>*>(g);
#pragma unroll
      for (int e = 0; e < 8; ++e) sum += to_float(pa.v[e]) * to_float(pg.v[e]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) sum += to_float(a[e]) * to_float(g[e]);
    }
    float4* z = reinterpret_cast<float4*>(p.dq_accum + row * D + c);
    z[0] = z[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
#pragma unroll
  for (int off = kLanes / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (row < rows && c == 0) {
    const int h = int(row % p.heads_q);
    const int64_t bi = row / p.heads_q;  // b * seq_q + i
    const int64_t b = bi / p.seq_q, i = bi % p.seq_q;
    const int64_t r = (b * p.heads_q + h) * p.seq_q + i;
    p.delta[r] = sum;
    const float lse = p.lse_in[r];
    p.lse_log2[r] = lse == -INFINITY ? 0.0f : lse * kLog2e;  // a row that sees no key is masked; 0 keeps ex2 finite
  }
  for (int64_t i = tid; i < p.dkv_clear4; i += int64_t(gridDim.x) * blockDim.x)
    reinterpret_cast<float4*>(p.dk_accum)[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

template <class T, int D>
void launch_delta(const Args& a, const T* o, const T* d_o, int64_t rows, bool vec, cudaStream_t stream) {
  const unsigned blocks = unsigned(ceil_div(std::max(rows * (D / 8), a.dkv_clear4), int64_t(256)));
  if (vec) {
    attention_delta_kernel<T, D, true><<<blocks, 256, 0, stream>>>(o, d_o, a, rows);
  } else {
    attention_delta_kernel<T, D, false><<<blocks, 256, 0, stream>>>(o, d_o, a, rows);
  }
  FW_CHECK_LAUNCH();
}

// The fp32 accumulators rounded to the dtype, one launch: dQ, and dK, dV when the group was split. Job k
// covers elements [end[k-1], end[k]) of the concatenation (end[-1] = 0), each a multiple of 8; an unused job
// is empty (its end the one before).
struct ConvertJobs {
  const float* acc[3] = {};
  void* out[3] = {};
  int64_t end[3] = {};
};

// 8 elements a step (a 16-byte store when VEC: every `out` 16-byte aligned). A programmatic dependent of the
// main kernel: its blocks wait here until that grid has finished.
template <class T, bool VEC>
__global__ void attention_convert_kernel(const ConvertJobs jobs) {
  wait_for_prerequisite();
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 8; i < jobs.end[2];
       i += int64_t(gridDim.x) * blockDim.x * 8) {
    // Selects rather than a dynamic index into the parameters, which can place them in local memory.
    const bool j0 = i < jobs.end[0], j1 = !j0 && i < jobs.end[1];
    const int64_t j = i - (j0 ? 0 : j1 ? jobs.end[0] : jobs.end[1]);
    const float* acc = (j0 ? jobs.acc[0] : j1 ? jobs.acc[1] : jobs.acc[2]) + j;
    T* out = static_cast<T*>(j0 ? jobs.out[0] : j1 ? jobs.out[1] : jobs.out[2]) + j;
    const float4 lo = *reinterpret_cast<const float4*>(acc), hi = *reinterpret_cast<const float4*>(acc + 4);
    Packet<T, 8> p;
    p.v[0] = from_float<T>(lo.x), p.v[1] = from_float<T>(lo.y);
    p.v[2] = from_float<T>(lo.z), p.v[3] = from_float<T>(lo.w);
    p.v[4] = from_float<T>(hi.x), p.v[5] = from_float<T>(hi.y);
    p.v[6] = from_float<T>(hi.z), p.v[7] = from_float<T>(hi.w);
    if constexpr (VEC) {
      store_packet(out, p);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) out[e] = p.v[e];
    }
  }
}

template <class T>
void convert(const ConvertJobs& jobs, cudaStream_t stream) {
  const int64_t n = jobs.end[2];
  if (n == 0) return;
  bool vec = true;
  for (int k = 0; k < 3; ++k) vec = vec && (jobs.out[k] == nullptr || aligned16(jobs.out[k]));
  const dim3 grid(unsigned(std::min<int64_t>(ceil_div(n / 8, 256), int64_t(sm_count()) * 8)));
  if (vec)
    launch_dependent(attention_convert_kernel<T, true>, grid, dim3(256), stream, jobs);
  else
    launch_dependent(attention_convert_kernel<T, false>, grid, dim3(256), stream, jobs);
}

// KB keys a CTA, a warp per 16 of them (KB / 16 warps).
template <int KB>
constexpr int backward_threads() {
  return 2 * KB;
}
template <class T, int D, int KB>
constexpr int backward_smem() {
  return (2 * KB * D + 4 * kBlockM * D + KB * kBlockM) * int(sizeof(T)) + 4 * kBlockM * int(sizeof(float));
}

template <class T, int D, int KB, bool VEC>
__global__ void __launch_bounds__(backward_threads<KB>()) attention_backward_kernel(const Args p) {
  constexpr int kThr = backward_threads<KB>();
  // dQ: warp w computes query rows 16 (w % 4).. of the step's 64, columns DC (w / 4).. of D.
  constexpr int kColGroups = KB / 64, DC = D / kColGroups;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sK = reinterpret_cast<T*>(smem_raw);
  T* sV = sK + KB * D;
  T* sQdO = sV + KB * D;            // [2 buffers][Q, dO][kBlockM * D]; a spent buffer stages dQ in fp32
  T* sdS = sQdO + 4 * kBlockM * D;  // [KB keys][kBlockM queries]
  float* sLse = reinterpret_cast<float*>(sdS + KB * kBlockM);  // [2][kBlockM], log2 units
  float* sDel = sLse + 2 * kBlockM;                            // [2][kBlockM]

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int splits = p.group / p.heads_per_cta;
  const int n0 = blockIdx.z * KB, hk = blockIdx.x / splits, b = blockIdx.y;
  const int h_first = hk * p.group + (blockIdx.x % splits) * p.heads_per_cta;
  const int64_t ldq = int64_t(p.heads_q) * D, ldk = int64_t(p.heads_kv) * D;
  const int64_t kv_off = (int64_t(b) * p.seq_kv + n0) * ldk + int64_t(hk) * D;

  // A programmatic dependent of the delta kernel: K and V (inputs) load while it finishes; lse, D and the
  // cleared accumulators are its writes, read and added to only after the wait. The convert kernel after
  // this one may be scheduled as SMs free up (it waits for this grid to finish).
  allow_dependents();
  load_tile<T, D, KB, VEC, kThr>(sK, static_cast<const T*>(p.k) + kv_off, ldk, p.seq_kv - n0, tid);
  load_tile<T, D, KB, VEC, kThr>(sV, static_cast<const T*>(p.v) + kv_off, ldk, p.seq_kv - n0, tid);
  wait_for_prerequisite();

  // Query blocks that see a key of this block: causal, query i sees n0 when i >= n0 - off.
  const int n_qb = (p.seq_q + kBlockM - 1) / kBlockM;
  const int qb_first = p.causal ? std::max(0, n0 - p.off) / kBlockM : 0;
  const int per_head = std::max(0, n_qb - qb_first);
  const int steps = per_head * p.heads_per_cta;

  auto load_step = [&](int step, int buf) {
    const int h = h_first + step / per_head;
    const int q0 = (qb_first + step % per_head) * kBlockM;
    const int64_t q_off = (int64_t(b) * p.seq_q + q0) * ldq + int64_t(h) * D;
    T* dst = sQdO + buf * 2 * kBlockM * D;
    load_tile<T, D, kBlockM, VEC, kThr>(dst, static_cast<const T*>(p.q) + q_off, ldq, p.seq_q - q0, tid);
    load_tile<T, D, kBlockM, VEC, kThr>(dst + kBlockM * D, static_cast<const T*>(p.d_o) + q_off, ldq, p.seq_q - q0,
                                        tid);
    // lse (threads 0..63) and D (64..127) of the block's rows, asynchronously like the tiles: a plain load
    // here held two warps a global latency every step. Rows past seq_q read 0.
    static_assert(kThr >= 2 * kBlockM, "one thread per row and statistic");
    if (kThr > 2 * kBlockM && tid >= 2 * kBlockM) return;
    const int j = tid % kBlockM, i = q0 + j;
    const float* src = tid < kBlockM ? p.lse_log2 : p.delta;
    float* dst_stat = (tid < kBlockM ? sLse : sDel) + buf * kBlockM + j;
    cp_async<4>(dst_stat, i < p.seq_q ? src + (int64_t(b) * p.heads_q + h) * p.seq_q + i : src, i < p.seq_q);
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
    cp_async_wait<0>();
    __syncthreads();  // this step's tiles are in, and every warp is done with the last step (its buffer, sdS)
    if (step + 1 < steps) load_step(step + 1, buf ^ 1);
    cp_async_commit();
    const int h = h_first + step / per_head;
    const int q0 = (qb_first + step % per_head) * kBlockM;
    const T* q_s = sQdO + buf * 2 * kBlockM * D;
    const T* do_s = q_s + kBlockM * D;
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
    const bool edge = q0 + kBlockM > p.seq_q || n0 + KB > p.seq_kv || (p.causal && n0 + KB - 1 > q0 + p.off);
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int qc = nt * 8 + 2 * t + (e & 1);
        float pv = ex2(fmaf(st[nt][e], p.scale_log2, -lse_s[qc]));
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

    // dQ (16 query rows, DC columns per warp) = scale * dS K over the block's KB keys, through shared memory.
    acc_to_smem<kBlockM, 8>(sdS, warp * 16, ds, lane);
    __syncthreads();
    {
      // Stage the warp's 16 x DC block (fp32, 16-byte chunk c of row r at c ^ 2 (r & 3): conflict-free for
      // the half-warp phases of the 8-byte writes and the quarter-warp phases of the 16-byte reads) in the
      // spent Q/dO buffer, 64 columns a pass (the live accumulators beside dK and dV stay few), then add
      // it to the accumulator a row-contiguous float4 per lane.
      const int rg = kColGroups == 1 ? warp : warp % 4, c_first = kColGroups == 1 ? 0 : (warp / 4) * DC;
      float* stage = reinterpret_cast<float*>(sQdO + buf * 2 * kBlockM * D) + warp * 16 * DC;
      constexpr int kCols = DC < 64 ? DC : 64;
#pragma unroll
      for (int c0 = 0; c0 < DC; c0 += kCols) {
        float dq[kCols / 8][4];
#pragma unroll
        for (int i = 0; i < kCols / 8; ++i) dq[i][0] = dq[i][1] = dq[i][2] = dq[i][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < KB / 16; ++kk) {
          // A = dS [query][key], stored as dS^T [key][query]: transposed ldmatrix.
          uint32_t a[4];
          const int m = lane >> 3;
          ldsm_x4_t(sdS + swz<kBlockM>(kk * 16 + ((m >> 1) << 3) + (lane & 7), rg * 2 + (m & 1)), a);
#pragma unroll
          for (int dp = 0; dp < kCols / 16; ++dp) {
            uint32_t bf[4];
            load_b_kn<D>(sK, kk * 16, (c_first + c0) / 16 + dp, lane, bf);
            mma16816<T>(dq[2 * dp], a, bf[0], bf[1]);
            mma16816<T>(dq[2 * dp + 1], a, bf[2], bf[3]);
          }
        }
#pragma unroll
        for (int r = 0; r < 2; ++r)
#pragma unroll
          for (int dt = 0; dt < kCols / 8; ++dt) {
            const int row = g + r * 8, ch = (c0 / 8 + dt) * 2 + (t >> 1);
            *reinterpret_cast<float2*>(stage + row * DC + ((ch ^ ((row & 3) << 1)) << 2) + ((2 * t) & 3)) =
                make_float2(dq[dt][2 * r] * p.scale, dq[dt][2 * r + 1] * p.scale);
          }
      }
      __syncwarp();
      constexpr int kChunks = DC / 4;
      float* acc = p.dq_accum + (int64_t(b) * p.seq_q + q0 + rg * 16) * ldq + int64_t(h) * D + c_first;
#pragma unroll
      for (int c = lane; c < 16 * kChunks; c += 32) {
        const int row = c / kChunks, ch = c % kChunks;
        if (q0 + rg * 16 + row >= p.seq_q) continue;
        const float4 v = *reinterpret_cast<const float4*>(stage + row * DC + ((ch ^ ((row & 3) << 1)) << 2));
        red_add(acc + int64_t(row) * ldq + ch * 4, v);
      }
    }
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
        red_add(p.dk_accum + off + dt * 8, dk[dt][2 * r], dk[dt][2 * r + 1]);
        red_add(p.dv_accum + off + dt * 8, dv[dt][2 * r], dv[dt][2 * r + 1]);
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

template <class T, int D, int KB, bool VEC>
void launch_backward(const Args& a, int batch, cudaStream_t stream) {
  constexpr int kSmem = backward_smem<T, D, KB>();
  auto kernel = attention_backward_kernel<T, D, KB, VEC>;
  static PerDevice<bool> configured;  // the shared-memory limit, set once per device
  (void)configured.get([&] {
    FW_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  });
  // Key blocks slowest (z): CTAs start in linear order, so the first key blocks, which the most queries
  // see under the causal mask, start first and the light ones fill the tail.
  const dim3 grid(unsigned(a.heads_kv * (a.group / a.heads_per_cta)), unsigned(batch),
                  unsigned((a.seq_kv + KB - 1) / KB));
  launch_dependent_smem(kernel, grid, dim3(backward_threads<KB>()), kSmem, stream, a);
}

}  // namespace
}  // namespace attn

int attention_backward_block_keys(const AttentionShape& s) {
  attn::check_shape(s);
  return attn::keys_per_cta(s);
}

std::size_t attention_backward_workspace_bytes(const AttentionShape& s) {
  attn::check_shape(s);
  return attn::dq_accum_bytes(s) + 2 * attn::delta_bytes(s) + 2 * attn::dkv_accum_bytes(s);
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
  a.lse_log2 = reinterpret_cast<float*>(ws + attn::dq_accum_bytes(s) + attn::delta_bytes(s));
  a.heads_per_cta = attn::heads_per_cta(s);
  const int64_t kv_elems = s.batch * s.seq_kv * s.heads_kv * s.head_dim;
  if (a.heads_per_cta < a.group) {
    a.dk_accum = reinterpret_cast<float*>(ws + attn::dq_accum_bytes(s) + 2 * attn::delta_bytes(s));
    a.dv_accum = reinterpret_cast<float*>(reinterpret_cast<char*>(a.dk_accum) + attn::dkv_accum_bytes(s));
    a.dkv_clear4 = int64_t(2 * attn::dkv_accum_bytes(s) / sizeof(float4));  // by the delta kernel
  }
  const bool vec = attn::aligned16(q) && attn::aligned16(k) && attn::aligned16(v) && attn::aligned16(d_o) &&
                   attn::aligned16(dk) && attn::aligned16(dv);
  const int batch = int(s.batch);
  const int64_t q_elems = s.batch * s.seq_q * s.heads_q * s.head_dim;
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, float>::value) {
      const int64_t rows = s.batch * s.seq_q * s.heads_q;
      if (rows > 0 || a.dkv_clear4 > 0) {
        // Also clears the accumulators.
        const bool vec_delta = attn::aligned16(o) && attn::aligned16(d_o);
        const T* ot = static_cast<const T*>(o);
        const T* dot = static_cast<const T*>(d_o);
        s.head_dim == 64 ? attn::launch_delta<T, 64>(a, ot, dot, rows, vec_delta, stream)
                         : attn::launch_delta<T, 128>(a, ot, dot, rows, vec_delta, stream);
      }
      if (s.seq_kv > 0) {
        if (s.head_dim == 64) {
          vec ? attn::launch_backward<T, 64, 64, true>(a, batch, stream)
              : attn::launch_backward<T, 64, 64, false>(a, batch, stream);
        } else if (attn::keys_per_cta(s) == 128) {
          vec ? attn::launch_backward<T, 128, 128, true>(a, batch, stream)
              : attn::launch_backward<T, 128, 128, false>(a, batch, stream);
        } else {
          vec ? attn::launch_backward<T, 128, 64, true>(a, batch, stream)
              : attn::launch_backward<T, 128, 64, false>(a, batch, stream);
        }
      }
      attn::ConvertJobs jobs;
      jobs.acc[0] = a.dq_accum, jobs.out[0] = dq, jobs.end[0] = q_elems;
      jobs.end[1] = jobs.end[2] = q_elems;
      if (a.dk_accum) {
        jobs.acc[1] = a.dk_accum, jobs.out[1] = dk, jobs.end[1] = q_elems + kv_elems;
        jobs.acc[2] = a.dv_accum, jobs.out[2] = dv, jobs.end[2] = q_elems + 2 * kv_elems;
      }
      attn::convert<T>(jobs, stream);
    }
  });
}

}  // namespace fw
