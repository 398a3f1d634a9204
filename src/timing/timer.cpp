#include "src/timing/timer.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/model/stats.hpp"

namespace opbench {

TimingConfig fast_timing(TimingConfig c) {
  c.warmup = 2;
  c.warmup_ms = 10;
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

std::string describe_flush(const TimingConfig& c) { return c.l2_cold ? "memset of 2 x L2" : "none (warm)"; }
std::string describe_stopping(const TimingConfig& c) {
  return "budget " + std::to_string(c.budget_ms) + " ms";
}
void profile_once(const std::vector<Launch>& launches, const std::vector<std::string>&, cudaStream_t s) {
  for (const Launch& l : launches) l(s);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
}

std::vector<Measurement> measure(const std::vector<Launch>& launches, const TimingConfig& c, TimingResources& r,
                                 cudaStream_t s) {
  L2Flusher& l2 = r.l2;
  const std::size_t k = launches.size();
  std::vector<Measurement> out(k);
  if (k == 0) return out;
  EventPair ev;

  // Warm up by count and by wall-clock time, all implementations in turn: after the host-side work of
  // the correctness gate the GPU may have lowered its clocks, and a few short launches do not bring
  // them back (seen on H100: a whole sample set 3-6x slow with a low spread, on the implementation
  // timed first).
  std::vector<double> estimate(k, 0.0);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    for (std::size_t j = 0; j < k; ++j) estimate[j] = pure_sample(launches[j], c.l2_cold, l2, ev, s);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i + 1 >= std::max(c.warmup, 1) && (wall >= c.warmup_ms || i >= 10000)) break;
  }
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  const int n = sample_count(*std::max_element(estimate.begin(), estimate.end()), c);

  // Samples are interleaved (one of each implementation per round), so a drift of the clocks or of
  // anything else on the machine lands on all of them alike.
  auto interleaved = [&](auto&& one, auto&& store) {
    std::vector<std::vector<double>> v(k);
    for (auto& x : v) x.reserve(n);
    for (int i = 0; i < n; ++i)
      for (std::size_t j = 0; j < k; ++j) v[j].push_back(one(launches[j]));
    for (std::size_t j = 0; j < k; ++j) store(j, compute_stats(std::move(v[j]), c.outlier_filter));
  };
  // A set whose spread is beyond the reliability threshold is sampled again on its own, up to twice;
  // the last set is reported (flagged if it is still unreliable).
  auto resample = [&](auto&& one, std::optional<TimeStats>& st, const Launch& launch) {
    for (int attempt = 0; attempt < 2 && st && !st->reliable; ++attempt) {
      std::vector<double> v;
      v.reserve(n);
      for (int i = 0; i < n; ++i) v.push_back(one(launch));
      st = compute_stats(std::move(v), c.outlier_filter);
    }
  };
  auto pure_one = [&](const Launch& l) { return pure_sample(l, c.l2_cold, l2, ev, s); };
  auto real_one = [&](const Launch& l) { return real_sample(l, c.l2_cold, l2, s); };
  if (c.pure) {
    interleaved(pure_one, [&](std::size_t j, TimeStats st) { out[j].pure = st; });
    for (std::size_t j = 0; j < k; ++j) resample(pure_one, out[j].pure, launches[j]);
  }
  if (c.real) {
    interleaved(real_one, [&](std::size_t j, TimeStats st) { out[j].real = st; });
    for (std::size_t j = 0; j < k; ++j) resample(real_one, out[j].real, launches[j]);
  }
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  return out;
}

}  // namespace opbench
