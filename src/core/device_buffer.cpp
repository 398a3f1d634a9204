#include "src/core/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "src/core/cuda_check.hpp"

namespace opbench {

void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  throw CudaError(e, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " in " + expr + " (" +
                         file + ":" + std::to_string(line) + ")");
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory("out of device memory: needed " + std::to_string(bytes >> 20) + " MiB more, " +
                      std::to_string(free_b >> 20) + " MiB free of " + std::to_string(total_b >> 20) +
                      " MiB; run a smaller --size or fewer dtypes");
  }
  OPBENCH_CUDA_CHECK(e);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) OPBENCH_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) OPBENCH_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

}  // namespace opbench
