// The launch handshake (the idea of nvbench's blocking_kernel): a one-thread kernel holds the stream
// until the host has queued everything of a sample (clock probe, flush, start event, the launch, stop
// event, probe), then the host releases it and the GPU runs the sample back to back. Host time spent
// queueing, however long (a LibTorch call that allocates or queues several kernels), stays out of the
// events. The kernel gives up after its timeout and says so: a launch that synchronizes inside waits
// for the held stream, which would otherwise be a deadlock. With a short timeout the same kernel is
// the fallback delay for such launches: a sample counts only if the host released it in time.
#pragma once
#include <cuda_runtime_api.h>

#include "src/timing/host_mapped.hpp"

namespace opbench {

class StreamBlocker {
 public:
  StreamBlocker();
  // Queues the wait kernel on `s`; it ends when released, or after `timeout_ms` (then timed_out()).
  void block(cudaStream_t s, double timeout_ms);
  void release() noexcept;
  // Read after the stream is synchronized: the kernel ended by its timeout, before the release.
  bool timed_out() const;

 private:
  HostMappedBuffer flags_;  // int[2]: release, timed out
};

// Releases a held stream if a sample is abandoned (an exception from the launch) and waits for the
// wait kernel to end, so that the next block() does not reset the flags under a kernel still spinning.
class ReleaseGuard {
 public:
  ReleaseGuard(StreamBlocker* b, cudaStream_t s) : b_(b), s_(s) {}
  ~ReleaseGuard();
  void release() noexcept;
  ReleaseGuard(const ReleaseGuard&) = delete;
  ReleaseGuard& operator=(const ReleaseGuard&) = delete;

 private:
  StreamBlocker* b_;
  cudaStream_t s_;
};

}  // namespace opbench
