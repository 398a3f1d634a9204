#include "src/timing/host_mapped.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <utility>

#include "src/core/cuda_check.hpp"

namespace opbench {

HostMappedBuffer::HostMappedBuffer(std::size_t bytes) : bytes_(bytes) {
  OPBENCH_CUDA_CHECK(cudaHostAlloc(&host_, bytes, cudaHostAllocMapped));
  std::memset(host_, 0, bytes);
  OPBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&device_, host_, 0));
}

HostMappedBuffer::~HostMappedBuffer() {
  if (host_) OPBENCH_CUDA_CHECK_NOTHROW(cudaFreeHost(host_));
}

HostMappedBuffer::HostMappedBuffer(HostMappedBuffer&& o) noexcept
    : host_(std::exchange(o.host_, nullptr)),
      device_(std::exchange(o.device_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)) {}

HostMappedBuffer& HostMappedBuffer::operator=(HostMappedBuffer&& o) noexcept {
  if (this != &o) {
    if (host_) OPBENCH_CUDA_CHECK_NOTHROW(cudaFreeHost(host_));
    host_ = std::exchange(o.host_, nullptr);
    device_ = std::exchange(o.device_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

}  // namespace opbench
