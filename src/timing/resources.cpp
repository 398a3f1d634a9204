#include "src/timing/resources.hpp"

#include "src/core/cuda_check.hpp"
#include "src/timing/blocking_kernel.hpp"
#include "src/timing/clock_probe.hpp"
#include "src/timing/l2_flush.hpp"

namespace opbench {

EventPair::EventPair() {
  OPBENCH_CUDA_CHECK(cudaEventCreate(&a_));
  OPBENCH_CUDA_CHECK(cudaEventCreate(&b_));
}

EventPair::~EventPair() {
  if (a_) OPBENCH_CUDA_CHECK_NOTHROW(cudaEventDestroy(a_));
  if (b_) OPBENCH_CUDA_CHECK_NOTHROW(cudaEventDestroy(b_));
}

void EventPair::start(cudaStream_t s) { OPBENCH_CUDA_CHECK(cudaEventRecord(a_, s)); }
void EventPair::stop(cudaStream_t s) { OPBENCH_CUDA_CHECK(cudaEventRecord(b_, s)); }

float EventPair::elapsed_ms() const {
  OPBENCH_CUDA_CHECK(cudaEventSynchronize(b_));
  float ms = 0;
  OPBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
  return ms;
}

namespace {

int device_ordinal() {
  int dev = 0;
  OPBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  return dev;
}

int device_attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  OPBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  OPBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

}  // namespace

struct TimingResources::Parts {
  int sm_count = device_attribute(cudaDevAttrMultiProcessorCount);
  double max_clock_mhz = device_attribute(cudaDevAttrClockRate) / 1000.0;
  std::size_t l2_bytes = std::size_t(device_attribute(cudaDevAttrL2CacheSize));
  L2Flusher flusher{l2_bytes};
  StreamBlocker blocker;
  ClockProbe clock{sm_count};
  EventPair events;
  ActivityTrace* trace = nullptr;
  DeviceTimer timer = DeviceTimer::events;  // the timer in use (events when CUPTI could not trace)
  std::string no_trace_why;  // why the events time the samples although CUPTI was asked for
};

TimingResources::TimingResources(DeviceTimer timer) : p_(std::make_unique<Parts>()) {
  if (timer != DeviceTimer::events) p_->trace = ActivityTrace::shared(p_->no_trace_why);
  p_->timer = p_->trace ? timer : DeviceTimer::events;
  // Load every timing kernel now, on an idle stream (see the header).
  cudaStream_t s = nullptr;
  p_->blocker.block(s, 1.0);
  p_->blocker.release();
  p_->clock.start(s);
  p_->flusher.flush(s);
  p_->clock.stop(s);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  if (p_->trace) p_->trace->discard(device_ordinal());
}

TimingResources::~TimingResources() = default;
TimingResources::TimingResources(TimingResources&&) noexcept = default;
TimingResources& TimingResources::operator=(TimingResources&&) noexcept = default;

L2Flusher& TimingResources::flusher() { return p_->flusher; }
StreamBlocker& TimingResources::blocker() { return p_->blocker; }
ClockProbe& TimingResources::clock() { return p_->clock; }
EventPair& TimingResources::events() { return p_->events; }
ActivityTrace* TimingResources::trace() { return p_->trace; }
DeviceTimer TimingResources::device_timer() const { return p_->timer; }
SpanStart TimingResources::span_start() const {
  return p_->timer == DeviceTimer::cupti_stream ? SpanStart::preceding_end : SpanStart::first_record;
}

std::string TimingResources::device_timer_text() const {
  if (p_->timer == DeviceTimer::cupti_stream)
    return "CUPTI activity timestamps: from the end of the harness work right before the launch on its stream to "
           "the end of the launch's last kernel, memcpy or memset (its start-up included, as ncu's "
           "gpu__time_duration)";
  if (p_->timer == DeviceTimer::cupti)
    return "CUPTI activity timestamps: from the first kernel, memcpy or memset of the launch to start to the last "
           "to end";
  if (p_->no_trace_why.empty()) return "CUDA events around the launch (--device-timer events)";
  return "CUDA events around the launch (CUPTI could not trace: " + p_->no_trace_why + ")";
}
int TimingResources::sm_count() const { return p_->sm_count; }
double TimingResources::max_clock_mhz() const { return p_->max_clock_mhz; }
std::size_t TimingResources::l2_bytes() const { return p_->l2_bytes; }

}  // namespace opbench
