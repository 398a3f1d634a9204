// Everything a timing session needs on the device, made once per session (not per problem): the L2
// flush buffer, the stream handshake's host-mapped flags, the clock probe's buffers, a pair of events,
// and the device timer (CUPTI's activity trace, or the events alone).
// Construction also runs each timing kernel once: with CUDA's lazy module loading the first launch of a
// kernel loads its module, which synchronizes, and doing that behind a held stream would deadlock
// (nvbench issues 136, 240).
#pragma once
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "src/timing/activity_trace.hpp"

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
  // On the current device; throws CudaError / OutOfMemory. `timer` cupti falls back to the events when
  // CUPTI cannot trace (device_timer() and device_timer_text() say so).
  explicit TimingResources(DeviceTimer timer = DeviceTimer::cupti);
  ~TimingResources();
  TimingResources(TimingResources&&) noexcept;
  TimingResources& operator=(TimingResources&&) noexcept;
  TimingResources(const TimingResources&) = delete;
  TimingResources& operator=(const TimingResources&) = delete;

  L2Flusher& flusher();
  StreamBlocker& blocker();
  ClockProbe& clock();
  EventPair& events();
  ActivityTrace* trace();  // nullptr: the events time the samples
  DeviceTimer device_timer() const;
  SpanStart span_start() const;  // where a CUPTI sample's span starts, by the timer
  std::string device_timer_text() const;  // for the report: which clock, and why the fallback if any
  int sm_count() const;
  double max_clock_mhz() const;  // cudaDevAttrClockRate
  std::size_t l2_bytes() const;

 private:
  struct Parts;
  std::unique_ptr<Parts> p_;
};

}  // namespace opbench
