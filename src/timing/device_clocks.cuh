// Device-side clocks shared by the timing kernels: %globaltimer (nanoseconds, one clock for the whole
// GPU), clock64() (cycles of the SM it runs on) and the SM's id.
#pragma once
#include <cuda_runtime.h>

namespace opbench::timing_detail {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned sm_id_limit() {  // %smid < %nsmid; ids need not be contiguous
  unsigned n;
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}

// Waits for the next step of %globaltimer, then reads both clocks. Some parts advance the global timer
// in coarse steps (about 1 us); a value read just after a step is exact to within the read latency,
// where a value read anywhere else is up to one step old. Gives up after `max_cycles` (a timer that
// does not move) and returns false.
__device__ __forceinline__ bool read_clocks_at_tick(unsigned long long& ns, unsigned long long& cycles,
                                                    long long max_cycles = 10000000) {
  const long long c0 = clock64();
  const unsigned long long g0 = global_ns();
  unsigned long long g = g0;
  while (g == g0) {
    if (clock64() - c0 > max_cycles) return false;
    g = global_ns();
  }
  cycles = static_cast<unsigned long long>(clock64());
  ns = g;
  return true;
}

}  // namespace opbench::timing_detail
