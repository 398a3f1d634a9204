#include "src/timing/l2_flush.hpp"

#include <algorithm>

#include "src/core/cuda_check.hpp"

namespace opbench {

namespace {

constexpr int kSweepThreads = 512;
constexpr int kSweepBlocksPerSm = 4;  // 2048 threads per SM, 4 loads of 16 bytes in flight each
// A checksum the sweep never writes in practice: the flush fills its buffer with bytes 1..254, whose
// word XORs cannot produce it, and for other data a match costs one 4-byte store.
constexpr unsigned kNever = 0xffffffffu;

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

__global__ void __launch_bounds__(kSweepThreads) read_sweep_kernel(const uint4* p, std::size_t n,
                                                                   unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {  // four independent loads per thread in flight
    const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; i < n; i += stride) acc ^= fold(p[i]);
  if (acc == kNever) sink[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}

__global__ void __launch_bounds__(kSweepThreads) copy_sweep_kernel(const uint4* __restrict__ p, uint4* __restrict__ q,
                                                                   std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {  // four independent loads per thread in flight, as the read sweep
    const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    q[i] = a, q[i + stride] = b, q[i + 2 * stride] = c, q[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) q[i] = p[i];
}

__global__ void __launch_bounds__(kSweepThreads) write_sweep_kernel(uint4* __restrict__ q, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 v = make_uint4(unsigned(i), 1u, 2u, 3u);
  for (; i + 3 * stride < n; i += 4 * stride)  // four stores per thread in flight, as the copy's
    q[i] = v, q[i + stride] = v, q[i + 2 * stride] = v, q[i + 3 * stride] = v;
  for (; i < n; i += stride) q[i] = v;
}

}  // namespace

void launch_write_sweep(void* dst, std::size_t bytes, int sm_count, cudaStream_t s) {
  const int blocks = std::max(sm_count, 1) * kSweepBlocksPerSm;
  write_sweep_kernel<<<blocks, kSweepThreads, 0, s>>>(static_cast<uint4*>(dst), bytes / 16);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void launch_copy_sweep(const void* src, void* dst, std::size_t bytes, int sm_count, cudaStream_t s) {
  const int blocks = std::max(sm_count, 1) * kSweepBlocksPerSm;
  copy_sweep_kernel<<<blocks, kSweepThreads, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / 16);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

std::size_t read_sweep_sink_bytes(int sm_count) {
  return std::size_t(std::max(sm_count, 1)) * kSweepBlocksPerSm * kSweepThreads * sizeof(unsigned);
}

void launch_read_sweep(const void* p, std::size_t bytes, void* sink, int sm_count, cudaStream_t s) {
  const int blocks = std::max(sm_count, 1) * kSweepBlocksPerSm;
  read_sweep_kernel<<<blocks, kSweepThreads, 0, s>>>(static_cast<const uint4*>(p), bytes / 16,
                                                     static_cast<unsigned*>(sink));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

L2Flusher::L2Flusher(std::size_t l2_bytes, int sm_count)
    : buf_((std::max<std::size_t>(l2_bytes, std::size_t(1) << 20) * 2 + 15) / 16 * 16),
      sink_(read_sweep_sink_bytes(sm_count)),
      sm_count_(sm_count) {}

void L2Flusher::flush(cudaStream_t s) {
  value_ = value_ % 254 + 1;  // 1..254: never 0xff, see kNever
  OPBENCH_CUDA_CHECK(cudaMemsetAsync(buf_.get(), value_, buf_.bytes(), s));
  launch_read_sweep(buf_.get(), buf_.bytes(), sink_.get(), sm_count_, s);
}

}  // namespace opbench
