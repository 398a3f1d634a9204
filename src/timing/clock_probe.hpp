// The SM clock of each sample, as nvbench's gpu_frequency measures it: a probe kernel before the timed
// region and one after it read %globaltimer (ns) and clock64() (SM cycles); MHz = cycles / ns * 1e3.
//
// Two details make it hold on any part:
//  - clock64() counts cycles of one SM, and two kernels need not run on the same SM. Each probe is
//    launched with one block per SM; every block files its reading under its SM's id, and the clock is
//    the median over the SMs that have a reading from both probes.
//  - %globaltimer advances in coarse steps on some parts (about 1 us). Every reading is taken right
//    after a step (read_clocks_at_tick), and the window between the probes is stretched to at least
//    kMinWindowSteps steps, measured once at start: the error stays under 1 / kMinWindowSteps even for
//    a kernel shorter than one step. With a cold L2 the flush sits inside the window anyway.
#pragma once
#include <cuda_runtime_api.h>

#include "src/core/device_buffer.hpp"
#include "src/timing/host_mapped.hpp"

namespace opbench {

constexpr int kMinWindowSteps = 20;

class ClockProbe {
 public:
  explicit ClockProbe(int sm_count);
  void start(cudaStream_t s);
  void stop(cudaStream_t s);
  // After the stream is synchronized: the SM clock over the last start..stop window, in MHz; 0 when
  // unknown (no SM ran both probes, or the global timer does not advance).
  double mhz() const;
  double timer_step_ns() const { return step_ns_; }  // 0: the global timer did not advance

 private:
  int sm_count_ = 0;
  int slots_ = 0;                   // %nsmid
  DeviceBuffer start_;              // per SM: claims and the start reading
  HostMappedBuffer result_;         // per SM: sample id, elapsed ns, elapsed cycles
  unsigned long long seq_ = 0;      // sample id, so a stale reading is never used
  unsigned long long min_window_ns_ = 0;
  double step_ns_ = 0;
};

}  // namespace opbench
