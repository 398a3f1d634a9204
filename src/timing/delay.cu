// A kernel that spins for a given time: queued before a timed launch so that the launch is already
// waiting on the GPU when the start event fires (the idea of nvbench's blocking kernel, without a
// host handshake).
#include <cuda_runtime.h>

#include "src/core/cuda_check.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

__global__ void delay_kernel(long long ns) {
  long long start = clock64();
  // clock64 counts SM cycles; ~2 GHz on current parts. A rough wait is all that is needed.
  while (clock64() - start < ns * 2) {
  }
}

void launch_delay(double us, cudaStream_t s) {
  delay_kernel<<<1, 1, 0, s>>>(static_cast<long long>(us * 1000.0));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace opbench
