#include "src/timing/blocking_kernel.hpp"

#include <atomic>

#include "src/core/cuda_check.hpp"
#include "src/timing/device_clocks.cuh"

namespace opbench {

namespace {

// Volatile reads of host-mapped memory go over the bus every time, so the host's release is seen
// within about a microsecond. The global timer bounds the wait whatever the SM clock does.
__global__ void wait_for_host_kernel(const volatile int* release, volatile int* timed_out,
                                     unsigned long long timeout_ns) {
  const unsigned long long start = timing_detail::global_ns();
  while (*release == 0) {
    if (timing_detail::global_ns() - start > timeout_ns) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
  }
}

}  // namespace

StreamBlocker::StreamBlocker() : flags_(2 * sizeof(int)) {}

void StreamBlocker::block(cudaStream_t s, double timeout_ms) {
  volatile int* f = flags_.host<int>();
  f[0] = 0;
  f[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const int* dev = flags_.device<int>();
  wait_for_host_kernel<<<1, 1, 0, s>>>(dev, const_cast<int*>(dev) + 1,
                                       static_cast<unsigned long long>(timeout_ms * 1e6));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void StreamBlocker::release() noexcept {
  // Everything of the sample was queued by the calls before this one; the fence keeps the store after them.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_.host<volatile int>()[0] = 1;
}

bool StreamBlocker::timed_out() const { return flags_.host<volatile int>()[1] != 0; }

ReleaseGuard::~ReleaseGuard() {
  if (!b_) return;
  b_->release();
  OPBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(s_));
}

void ReleaseGuard::release() noexcept {
  if (b_) b_->release();
  b_ = nullptr;
}

}  // namespace opbench
