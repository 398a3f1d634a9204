#include "src/timing/timer.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/core/stats.hpp"

namespace opbench {

TimingConfig fast_timing(TimingConfig c) {
  c.warmup = 2;
  c.warmup_ms = 3;
  c.min_samples = 8;
  c.max_samples = 30;
  c.budget_ms = 15;
  return c;
}

static std::size_t l2_bytes() {
  int dev = 0, l2 = 0;
  OPBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  OPBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  return std::size_t(std::max(l2, 1 << 20)) * 2;
}

L2Flusher::L2Flusher() : buf_(l2_bytes()) {}

void L2Flusher::flush(cudaStream_t s) {
  value_ = (value_ + 1) & 0xff;
  OPBENCH_CUDA_CHECK(cudaMemsetAsync(buf_.get(), value_, buf_.bytes(), s));
}

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

float EventPair::elapsed_ms() {
  OPBENCH_CUDA_CHECK(cudaEventSynchronize(b_));
  float ms = 0;
  OPBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
  return ms;
}

namespace {

constexpr double kDelayUs = 20;  // longer than a launch takes to enqueue

// One device-time sample.
double pure_sample(const Launch& launch, bool cold, L2Flusher& l2, EventPair& ev, cudaStream_t s) {
  if (cold) l2.flush(s);
  launch_delay(kDelayUs, s);
  ev.start(s);
  launch(s);
  ev.stop(s);
  return ev.elapsed_ms();
}

// One host wall-clock sample: launch and synchronize, the queue empty before it starts.
double real_sample(const Launch& launch, bool cold, L2Flusher& l2, cudaStream_t s) {
  if (cold) l2.flush(s);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  auto t0 = std::chrono::steady_clock::now();
  launch(s);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

int sample_count(double estimate_ms, const TimingConfig& c) {
  const double per = std::max(estimate_ms, 1e-3) + (c.l2_cold ? 0.05 : 0.0) + kDelayUs * 1e-3;
  const int n = int(c.budget_ms / per);
  return std::clamp(n, c.min_samples, c.max_samples);
}

}  // namespace

Measurement measure(const Launch& launch, const TimingConfig& c, L2Flusher& l2, cudaStream_t s) {
  EventPair ev;
  // Warm up by count and by time: after the host-side work of the correctness gate the GPU may have
  // dropped its clocks, and a few short launches do not bring them back (seen on H100: whole sample
  // sets 3x slow with a low spread).
  double estimate = 0, warm = 0;
  for (int i = 0; i < std::max(c.warmup, 1) || (warm < c.warmup_ms && i < 10000); ++i) {
    estimate = pure_sample(launch, c.l2_cold, l2, ev, s);
    warm += estimate + kDelayUs * 1e-3 + (c.l2_cold ? 0.04 : 0.0);
  }
  OPBENCH_CUDA_CHECK(cudaGetLastError());

  Measurement m;
  const int n = sample_count(estimate, c);
  // A spread beyond the reliability threshold (a clock change, another process) is sampled again, up
  // to twice; the last set is reported, flagged if it is still unreliable.
  auto sample_set = [&](auto&& one) {
    TimeStats st;
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::vector<double> v;
      v.reserve(n);
      for (int i = 0; i < n; ++i) v.push_back(one());
      st = compute_stats(std::move(v), c.outlier_filter);
      if (st.reliable) break;
    }
    return st;
  };
  if (c.pure) m.pure = sample_set([&] { return pure_sample(launch, c.l2_cold, l2, ev, s); });
  if (c.real) m.real = sample_set([&] { return real_sample(launch, c.l2_cold, l2, s); });
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  return m;
}

}  // namespace opbench
