// Everything a timing session needs on the device, made once per session (not per problem): the L2
// flush buffer, the stream handshake's host-mapped flags, the clock probe's buffers, a pair of events.
// Construction also runs each timing kernel once: with CUDA's lazy module loading the first launch of a
// kernel loads its module, which synchronizes, and doing that behind a held stream would deadlock
// (nvbench issues 136, 240).
#pragma once
#include <cuda_runtime_api.h>

#include <memory>

namespace opbench {

class L2Flusher;
class StreamBlocker;
class ClockProbe;

// RAII pair of CUDA events around a timed region.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s);
  void stop(cudaStream_t s);
  float elapsed_ms() const;  // after the stop event completed

 private:
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};

class TimingResources {
 public:
  TimingResources();  // on the current device; throws CudaError / OutOfMemory
  ~TimingResources();
  TimingResources(TimingResources&&) noexcept;
  TimingResources& operator=(TimingResources&&) noexcept;
  TimingResources(const TimingResources&) = delete;
  TimingResources& operator=(const TimingResources&) = delete;

  L2Flusher& flusher();
  StreamBlocker& blocker();
  ClockProbe& clock();
  EventPair& events();
  int sm_count() const;
  double max_clock_mhz() const;  // cudaDevAttrClockRate
  std::size_t l2_bytes() const;

 private:
  struct Parts;
  std::unique_ptr<Parts> p_;
};

}  // namespace opbench
