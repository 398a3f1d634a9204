// Move-only owner of pinned host memory mapped into the device's address space (cudaHostAlloc with
// cudaHostAllocMapped): the host and a running kernel see each other's writes without a copy, which
// is what the stream handshake and the clock probe's results need.
#pragma once
#include <cstddef>

namespace opbench {

class HostMappedBuffer {
 public:
  HostMappedBuffer() = default;
  explicit HostMappedBuffer(std::size_t bytes);  // zero-filled
  ~HostMappedBuffer();
  HostMappedBuffer(HostMappedBuffer&& o) noexcept;
  HostMappedBuffer& operator=(HostMappedBuffer&& o) noexcept;
  HostMappedBuffer(const HostMappedBuffer&) = delete;
  HostMappedBuffer& operator=(const HostMappedBuffer&) = delete;

  template <class T>
  T* host() const { return static_cast<T*>(host_); }
  template <class T>
  T* device() const { return static_cast<T*>(device_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* host_ = nullptr;
  void* device_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace opbench
