// mse_loss (mean): out = sum((p - t)^2) / n, one read of each input.
//
// 256-thread blocks stream chunks of p and t (16-byte loads, 4 + 4 in flight a thread, predicated, when both
// share the same 16-byte phase; scalar otherwise) into fp32 block sums; the mean of those follows as a
// dependent launch (mean_dependent.cuh). Chunks of 16384 elements, more blocks than one wave holds, so that
// blocks that stream faster take more chunks: one wave of equal chunks, each block waiting at a grid-wide
// barrier for the slowest, was 3% slower at large sizes (H100, A/B/A: bf16 4096x4096 25.89 / 25.98 -> 25.10 us,
// 8192x8192 91.9 / 91.5 -> 88.7; fp32 8192x8192 177.1 -> 175.1), and the barrier itself cost nothing
// measurable (the same wave with a dependent mean: 26.00 / 92.7). 65536-element chunks: 25.82 / 90.1.
// Below 16384 elements a block, the chunks shrink to fill one wave (down to 2048). Up to 2^18 elements the
// wave adds its block sums itself after a grid-wide wait (a cooperative launch): there the dependent launch
// cost 0.2-0.4 us (H100, A/B/A: fp32 256x256 3.39 / 3.42 against 3.68, 512x512 3.94 against 4.29; bf16
// 32x32x32 3.46 against 3.71), while from 1024x1024 on it was as fast or faster (full suites: fp32 1024x1024
// 6.94 -> 6.37, 2048x2048 15.17 -> 14.67).
// Bytes: 2*n*s + s; e.g. 8192x8192 fp32: 537 MB -> ~180 us at ~3.0 TB/s (LibTorch writes and re-reads
// the squared differences: ~2x the bytes). FLOPs: 3 per element. Memory bound.
#include "kernels/loss/loss.hpp"
#include "kernels/reduction/mean_dependent.cuh"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace {

using namespace rowwise;

// Thread t of nt adds (p - q)^2 over [0, n) to acc. 16-byte body (4 + 4 loads in flight,
// predicated) when p and q share the same 16-byte phase; scalar otherwise.
template <class T>
__device__ __forceinline__ void mse_range(const T* __restrict__ p, const T* __restrict__ q, int64_t n, int t, int nt,
                                          float& acc) {
  constexpr int VEC = vec_of<T>();
  constexpr int U = 4;
  const int ph = int(reinterpret_cast<uintptr_t>(p) & 15);
  if (ph != int(reinterpret_cast<uintptr_t>(q) & 15)) {
    for (int64_t i = t; i < n; i += nt) {
      const float d = to_float(p[i]) - to_float(q[i]);
      acc = fmaf(d, d, acc);
    }
    return;
  }
  int64_t head = int64_t(((16 - ph) & 15) / int(sizeof(T)));
  if (head > n) head = n;
  if (t < head) {
    const float d = to_float(p[t]) - to_float(q[t]);
    acc = fmaf(d, d, acc);
  }
  const T* pv = p + head;
  const T* qv = q + head;
  const int64_t nvec = (n - head) / VEC;
  for (int64_t i = t; i < nvec; i += int64_t(U) * nt) {
    Packet<T, VEC> ra[U], rb[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i + int64_t(u) * nt < nvec) {
        ra[u] = load_raw<T, VEC>(pv + (i + int64_t(u) * nt) * VEC);
        rb[u] = load_raw<T, VEC>(qv + (i + int64_t(u) * nt) * VEC);
      }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i + int64_t(u) * nt < nvec) {
        float a[VEC], b[VEC];
        unpack_words<T, VEC>(ra[u], a);
        unpack_words<T, VEC>(rb[u], b);
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          const float d = a[j] - b[j];
          acc = fmaf(d, d, acc);
        }
      }
  }
  const int64_t tail0 = head + nvec * VEC;
  if (tail0 + t < n) {
    const float d = to_float(p[tail0 + t]) - to_float(q[tail0 + t]);
    acc = fmaf(d, d, acc);
  }
}

// Four blocks an SM for 16-bit inputs, three for fp32. bf16 held 80 registers until its vectors were widened from
// whole words (unpack_words, row_engine.cuh), 62 at four blocks since. H100, two leases of A/B turns
// (notes/performance.md, thirty-second round), bf16 by elements: 3.7-4.2 M 4.0-5.6% faster (4096x1024 9.97 -> 9.46
// us, 2048x2048 9.94 -> 9.50), 1 M 3.1%, 2-3.1 M 0.2-1.9%; from 12.6 M up within -0.9..+0.4%, but 4096x8192
// +1.3% in one lease (-0.2% in the other); at most 262144 within -1.5..+0.9%. fp32 at four blocks (64 registers)
// ran as at three (thirty-first round).
template <class T>
constexpr int kMseBlocksPerSm = sizeof(T) == 2 ? 4 : 3;

// One 256-thread block per chunk: its sum of squares to partials[block], or, when the whole range is one
// chunk, the mean to out. GRID_SUM (a cooperative launch of at most one wave): after a grid-wide wait block 0
// adds the partials and writes the mean; otherwise the mean over them is the dependent launch that this
// kernel allows at its start (mean_dependent.cuh).
template <class T, bool GRID_SUM>
__global__ void __launch_bounds__(kBlock, kMseBlocksPerSm<T>)
    mse_kernel(const T* __restrict__ p, const T* __restrict__ q, int64_t n, int64_t chunk, float scale,
               T* __restrict__ out, float* __restrict__ partials) {
  if constexpr (!GRID_SUM) allow_dependents();
  const int64_t c0 = int64_t(blockIdx.x) * chunk;
  const int64_t len = (n - c0 < chunk) ? n - c0 : chunk;
  float acc = 0.f;
  mse_range(p + c0, q + c0, len, threadIdx.x, blockDim.x, acc);
  const float sum = block_sum_all(acc);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) out[0] = from_float<T>(sum * scale);
    return;
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
  if constexpr (GRID_SUM) {
    // Block 0 adds the block sums (at most 128, kGridSumMax / kMinChunk) a value a thread: mean_dependent.cuh's
    // block_sum in its place (16-byte loads) took 0.15-0.25 us longer at every size this path runs (H100, A/B/A:
    // fp32 256x256 3.42 / 3.46 -> 3.68 / 3.68 us, bf16 32x32x32 3.45 / 3.49 -> 3.68 / 3.68; not explained).
    cooperative_groups::this_grid().sync();
    if (blockIdx.x != 0) return;
    float s = 0.f;
    for (int k = threadIdx.x; k < int(gridDim.x); k += blockDim.x) s += partials[k];
    s = block_sum_all(s);
    if (threadIdx.x == 0) out[0] = from_float<T>(s * scale);
  }
}

constexpr int64_t kMseChunk = 16384;  // elements a block at large sizes (see the top)
constexpr int64_t kGridSumMax = int64_t(1) << 18;  // the most elements summed by the cooperative path (see the top)

// The chunk of a range of n elements: kMseChunk, or less where that leaves part of one wave of `resident`
// blocks idle, but at least kMinChunk.
int64_t mse_chunk(int64_t n, int64_t resident) {
  const int64_t fill = round_up(ceil_div(n, resident), kChunkAlign);
  return fill < kMinChunk ? kMinChunk : fill > kMseChunk ? kMseChunk : fill;
}
// Block sums of the most chunks any device makes (chunks of at least kMinChunk), 256-byte aligned.
std::size_t block_sum_bytes(int64_t n) { return std::size_t(round_up(ceil_div(n, kMinChunk) * 4, int64_t(256))); }

}  // namespace

std::size_t mse_loss_workspace_bytes(int64_t n, opbench::DType) {
  return block_sum_bytes(n) + mean_scratch_bytes(ceil_div(n, kMinChunk));
}

void mse_loss(opbench::DType dt, const void* pred, const void* target, void* out, int64_t n, void* ws,
              std::size_t ws_bytes, cudaStream_t stream) {
  FW_REQUIRE(n > 0, "empty tensor");
  FW_REQUIRE(pred != nullptr && target != nullptr && out != nullptr, "null pointer");
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t resident = resident_blocks_of_both<mse_kernel<T, false>, mse_kernel<T, true>>();
    const int64_t chunk = mse_chunk(n, resident);
    const int64_t chunks = ceil_div(n, chunk);
    FW_REQUIRE(chunks < (int64_t(1) << 31), "mse_loss: too many elements");
    FW_REQUIRE(chunks == 1 || (ws != nullptr && ws_bytes >= mse_loss_workspace_bytes(n, dt) &&
                               (reinterpret_cast<uintptr_t>(ws) & 15) == 0),
               "workspace too small (or not 16-byte aligned) for mse_loss");
    float* sums = chunks > 1 ? static_cast<float*>(ws) : nullptr;
    const T* a = static_cast<const T*>(pred);
    const T* b = static_cast<const T*>(target);
    T* o = static_cast<T*>(out);
    const float scale = float(1.0 / double(n));
    if (chunks > 1 && n <= kGridSumMax && chunks <= resident) {  // one wave: a grid-wide wait may not deadlock
      launch_cooperative(mse_kernel<T, true>, dim3(unsigned(chunks)), stream, a, b, n, chunk, scale, o, sums);
      return;
    }
    mse_kernel<T, false><<<unsigned(chunks), kBlock, 0, stream>>>(a, b, n, chunk, scale, o, sums);
    FW_CHECK_LAUNCH();
    if (chunks > 1)
      mean_dependent(static_cast<const float*>(sums), chunks, scale, o,
                     reinterpret_cast<float*>(static_cast<char*>(ws) + block_sum_bytes(n)), stream);
  });
}

}  // namespace fw
