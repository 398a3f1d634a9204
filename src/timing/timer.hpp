// How bench_ops times one implementation.
//  - pure: device time between two CUDA events around the launch. A short delay kernel (or, with a
//    cold L2, the flush itself) runs first, so the launch is queued before the start event fires and
//    host launch latency stays out of the number.
//  - real: host wall clock around launch + stream synchronize: what an eager user waits for.
//  - cold L2 (default): an L2-sized buffer is written on the stream before each sample, outside the
//    timed region, so inputs come from HBM as they do in a real model. warm: no flush.
// The implementations of a problem are sampled interleaved, after a wall-clock warm-up. Sample counts
// adapt to the op's time (a time budget, within min/max counts) and are summarized by the median after
// the IQR outlier filter.
#pragma once
#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/result.hpp"
#include "src/core/device_buffer.hpp"

namespace opbench {

struct TimingConfig {
  bool pure = true;
  bool real = false;
  bool l2_cold = true;
  bool outlier_filter = true;
  int warmup = 3;
  double warmup_ms = 25;  // and at least this much wall-clock time, so clocks are up after idle host work
  int min_samples = 10;
  int max_samples = 100;
  double budget_ms = 40;  // target sampling time per implementation and mode (flush and delay included)
};

TimingConfig fast_timing(TimingConfig base);  // --fast: fewer samples, smaller budget
std::string describe_flush(const TimingConfig& c);
std::string describe_stopping(const TimingConfig& c);

// Writes an L2-sized buffer (twice the device's L2) to evict what earlier work left in the cache.
class L2Flusher {
 public:
  L2Flusher();
  void flush(cudaStream_t s);

 private:
  DeviceBuffer buf_;
  int value_ = 0;
};

// What a session reuses for every problem.
class TimingResources {
 public:
  L2Flusher l2;
};

// RAII pair of CUDA events.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s);
  void stop(cudaStream_t s);
  float elapsed_ms();  // synchronizes on the stop event

 private:
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};

// Keeps the stream busy for about `us` microseconds (so the next launches queue up behind it).
void launch_delay(double us, cudaStream_t s);

struct Measurement {
  std::optional<TimeStats> pure;
  std::optional<TimeStats> real;
  std::optional<TimeStats> graph;
};

// Warms up, then samples the implementations of one problem in the configured modes, interleaved
// (one sample of each per round). One Measurement per launch, in order. Throws on a CUDA error.
std::vector<Measurement> measure(const std::vector<Launch>& launches, const TimingConfig& cfg, TimingResources& r,
                                 cudaStream_t s);
void profile_once(const std::vector<Launch>& launches, const std::vector<std::string>& names, cudaStream_t s);

}  // namespace opbench
