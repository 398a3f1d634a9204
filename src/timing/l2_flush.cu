#include "src/timing/l2_flush.hpp"

#include <algorithm>

#include "src/core/cuda_check.hpp"

namespace opbench {

namespace {

constexpr int kSweepThreads = 512;
// A read sweep's block reads kReadChunks x kSweepThreads consecutive 16-byte chunks, a thread kReadChunks of them a
// block's width apart, all loads issued before any is used; copy and write sweeps move one chunk a thread. One pass,
// no grid-stride loop: against the earlier grid of 4 blocks an SM striding over the buffer, four chunks in flight a
// thread (its accesses a grid, 4 MB, apart), roof_sweep on H200 GPU 87a7a534, medians of two turns (notes/
// performance.md, forty-second round):
//   read  16 / 64 / 512 MB  2703 / 3945 / 4476 -> 3049 / 4128 / 4562 GB/s
//   copy  16 / 64 / 512 MB  3322 / 4076 / 4002 -> 3378 / 4296 / 4280 (on GPU 81f2ba77 the kernel's 4255 at 512 MB was
//                           98.8% of cudaMemcpyAsync's copy roof, 4301)
//   write 16 / 64 / 512 MB  3478 / 4352 / 4374 -> 3745 / 4492 / 4689
// A read of one chunk a thread lost at the large sizes (GPU 01ae8b01: 2963 / 3918 / 4310 against 2703 / 3939 / 4478).
constexpr int kReadChunks = 4;
// A checksum the sweep never writes in practice: the flush fills its buffer with bytes 1..254, whose
// word XORs cannot produce it, and for other data a match costs one 4-byte store.
constexpr unsigned kNever = 0xffffffffu;

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

__global__ void __launch_bounds__(kSweepThreads) read_sweep_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  const std::size_t first = std::size_t(blockIdx.x) * kReadChunks * kSweepThreads + threadIdx.x;
  uint4 v[kReadChunks];
#pragma unroll
  for (int j = 0; j < kReadChunks; ++j) {
    const std::size_t i = first + std::size_t(j) * kSweepThreads;
    v[j] = i < n ? p[i] : make_uint4(0u, 0u, 0u, 0u);
  }
  unsigned acc = 0;
#pragma unroll
  for (int j = 0; j < kReadChunks; ++j) acc ^= fold(v[j]);
  if (acc == kNever) sink[threadIdx.x] = acc;
}

__global__ void __launch_bounds__(kSweepThreads) copy_sweep_kernel(const uint4* __restrict__ p, uint4* __restrict__ q,
                                                                   std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * kSweepThreads + threadIdx.x;
  if (i < n) q[i] = p[i];
}

__global__ void __launch_bounds__(kSweepThreads) write_sweep_kernel(uint4* __restrict__ q, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * kSweepThreads + threadIdx.x;
  if (i < n) q[i] = make_uint4(unsigned(i), 1u, 2u, 3u);
}

// Blocks for n chunks, `per_thread` a thread (at least one block; grid.x reaches 2^31 - 1 only past 16 TB).
unsigned sweep_blocks(std::size_t n, int per_thread) {
  const std::size_t per_block = std::size_t(per_thread) * kSweepThreads;
  return unsigned(std::max<std::size_t>((n + per_block - 1) / per_block, 1));
}

}  // namespace

void launch_write_sweep(void* dst, std::size_t bytes, cudaStream_t s) {
  write_sweep_kernel<<<sweep_blocks(bytes / 16, 1), kSweepThreads, 0, s>>>(static_cast<uint4*>(dst), bytes / 16);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void launch_copy_sweep(const void* src, void* dst, std::size_t bytes, cudaStream_t s) {
  copy_sweep_kernel<<<sweep_blocks(bytes / 16, 1), kSweepThreads, 0, s>>>(static_cast<const uint4*>(src),
                                                                          static_cast<uint4*>(dst), bytes / 16);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

std::size_t read_sweep_sink_bytes() { return kSweepThreads * sizeof(unsigned); }

void launch_read_sweep(const void* p, std::size_t bytes, void* sink, cudaStream_t s) {
  read_sweep_kernel<<<sweep_blocks(bytes / 16, kReadChunks), kSweepThreads, 0, s>>>(
      static_cast<const uint4*>(p), bytes / 16, static_cast<unsigned*>(sink));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

L2Flusher::L2Flusher(std::size_t l2_bytes)
    : buf_((std::max<std::size_t>(l2_bytes, std::size_t(1) << 20) * 2 + 15) / 16 * 16), sink_(read_sweep_sink_bytes()) {}

void L2Flusher::flush(cudaStream_t s) {
  value_ = value_ % 254 + 1;  // 1..254: never 0xff, see kNever
  OPBENCH_CUDA_CHECK(cudaMemsetAsync(buf_.get(), value_, buf_.bytes(), s));
  launch_read_sweep(buf_.get(), buf_.bytes(), sink_.get(), s);
}

}  // namespace opbench
