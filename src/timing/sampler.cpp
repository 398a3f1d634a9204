#include "src/timing/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "src/core/cuda_check.hpp"
#include "src/timing/blocking_kernel.hpp"
#include "src/timing/clock_probe.hpp"
#include "src/timing/l2_flush.hpp"
#include "src/timing/resources.hpp"

namespace opbench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

Sampler::Sampler(TimingResources& r, bool l2_cold, cudaStream_t s) : r_(r), l2_cold_(l2_cold), s_(s) {
  OPBENCH_CUDA_CHECK(cudaGetDevice(&device_));
}

double Sampler::prime(const Launch& launch) {
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  const auto t0 = Clock::now();
  launch(s_);
  const double enqueue_ms = ms_since(t0);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  return enqueue_ms;
}

Sample Sampler::device(const Launch& run, LaunchState& st) {
  StreamBlocker& blocker = r_.blocker();
  const bool hold = st.handshake != Handshake::none;
  if (hold) blocker.block(s_, st.handshake == Handshake::blocking ? kHandshakeTimeoutMs : st.delay_ms);
  ReleaseGuard guard(hold ? &blocker : nullptr, s_);
  // cupti-stream times from the end of the flush to the end of the launch: nothing may stand between them,
  // so no events there (an event record made that gap ~1.6 us longer on the H100).
  const bool events = r_.span_start() != SpanStart::preceding_end;
  r_.clock().start(s_);
  if (l2_cold_) r_.flusher().flush(s_);
  if (events) r_.events().start(s_);
  const auto t0 = Clock::now();
  run(s_);
  const double enqueue_ms = ms_since(t0);
  if (events) r_.events().stop(s_);
  r_.clock().stop(s_);
  guard.release();
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  Sample out{true, events ? r_.events().elapsed_ms() : 0.0, r_.clock().mhz()};
  if (ActivityTrace* trace = r_.trace()) {
    if (const auto span = trace->take_sample_span_ms(device_, l2_cold_, r_.span_start())) {
      out.ms = *span;
    } else {
      if (!events) out.kept = false;
      if (st.untraced++ == 0)
        st.notes.push_back(events ? "CUPTI traced no GPU work of the launch in a sample: such samples are timed by "
                                    "the CUDA events"
                                  : "CUPTI traced no GPU work of the launch in a sample: such samples are dropped");
    }
  }
  if (hold && blocker.timed_out()) {
    out.kept = false;
    on_late(st, enqueue_ms);
  } else {
    st.late_in_a_row = 0;
  }
  return out;
}

void Sampler::on_late(LaunchState& st, double enqueue_ms) {
  if (st.handshake == Handshake::blocking) {
    // A launch that returned only after the timeout waited for the held stream: it synchronizes
    // inside. Otherwise the host was merely slow to queue this one sample, which is dropped.
    if (enqueue_ms >= kHandshakeTimeoutMs / 2) {
      st.handshake = Handshake::delay;
      st.delay_ms = std::clamp(2 * st.enqueue_ms + 0.05, 0.05, kMaxDelayMs);
      st.notes.push_back(fmt::format("synchronizes inside its launch: timed behind a {:.2f} ms delay kernel "
                                     "instead of the handshake",
                                     st.delay_ms));
    }
    return;
  }
  if (++st.late_in_a_row >= kLateLimit) {
    st.handshake = Handshake::none;
    st.notes.push_back("synchronizes on every call: no handshake can hold its stream, so its device time "
                       "includes the host time after that synchronization");
  } else {
    st.delay_ms = std::min(2 * st.delay_ms, kMaxDelayMs);
  }
}

Sample Sampler::host(const Launch& launch) {
  r_.clock().start(s_);
  if (l2_cold_) r_.flusher().flush(s_);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  const auto t0 = Clock::now();
  launch(s_);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  const double ms = ms_since(t0);
  r_.clock().stop(s_);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s_));
  if (ActivityTrace* trace = r_.trace()) trace->discard(device_);
  return {true, ms, r_.clock().mhz()};
}

}  // namespace opbench
