// When to stop sampling, which samples to keep, and when a whole measurement must be taken again.
// Pure CPU functions over sample vectors (no CUDA), so each rule is unit-tested on synthetic streams.
//
//  - Clock filter: a sample taken while the SM clock was below `threshold` x the device's max clock
//    is set aside (counted as throttled): the outliers that motivated this (issue 9: sets 2-10x slow
//    with a low spread) came from a GPU whose clocks had not come back up. If most samples of a set are
//    below the threshold, the device is simply running slower (a power cap, a locked clock): then all
//    of them are used, and the result says so.
//  - Stopping: rounds (one sample of each implementation) continue until every implementation's median
//    is known to `rel_precision` (half-width of its 95% order-statistics interval / median), with at
//    least `min_samples` and `min_time_ms`; or stop at `max_samples` rounds or `timeout_ms`.
//  - Stability: a set far from its warm-up estimate, or a ratio between implementations that moves
//    between the two halves of the run by more than noise explains, sends the problem back to be
//    measured whole.
#pragma once
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench {

// One sample as taken: its time and the SM clock over it (0: not measured).
struct TakenSample {
  double ms = 0;
  double clock_mhz = 0;
  bool throttled = false;
};

struct ClockRule {
  double max_clock_mhz = 0;  // the device's max SM clock; 0: no filter
  double threshold = 0.75;   // fraction of it below which a sample is throttled
  bool throttled(double clock_mhz) const;
};

// The samples of one implementation in one mode, in the order taken.
struct SampleSet {
  std::vector<TakenSample> taken;
  int handshake_dropped = 0;  // samples lost because the launch was not queued in time (see timer.cpp)

  void add(double ms, double clock_mhz, const ClockRule& rule);
  int throttled() const;
  // The samples the statistics use, in order: those at full clock, or all of them when most were
  // throttled (the device runs below the threshold; see above).
  std::vector<double> effective() const;
  bool mostly_throttled() const;
  double mean_clock_mhz() const;  // over the effective samples whose clock is known; 0 if none
};

struct StopRule {
  double rel_precision = 0.005;
  int min_samples = 10;
  int max_samples = 2000;  // rounds, whatever was kept
  double min_time_ms = 5;
  double timeout_ms = 1500;
  // The timeout stops sampling only after min_samples rounds (a problem whose one round takes longer than
  // the timeout, a whole model's training step, still gets a median with a confidence interval), unless
  // this hard limit is reached first.
  double hard_timeout_ms = 60000;
};

enum class StopReason { keep_going, precision, max_samples, timeout };
const char* stop_reason_name(StopReason r);  // "precision", "max_samples", "timeout"

// Decides after each round. `sets`: each implementation's effective samples so far. An empty list of
// sets stops at once (precision: nothing to measure).
StopReason decide_stop(const std::vector<std::vector<double>>& sets, int rounds, double elapsed_ms,
                       const StopRule& rule);

// A set more than this factor away from its warm-up estimate (either way) is not trusted.
constexpr double kEstimateFactor = 1.5;
// Halves shorter than this cannot give a median interval worth comparing (95% needs 6).
constexpr int kMinHalfSamples = 8;

struct Stability {
  bool stable = true;
  std::string why;  // empty when stable
};

// `sets`: each implementation's effective samples in the order taken; `estimates`: its warm-up
// estimate in ms (0: none, no check); `names`: for the message ("impl 1" when empty). The ratio of
// every implementation to the first is compared between the first and the second half of the run:
// it must not move by more than max(2 x rel_precision, the sum of the relative 95% half-widths of the
// four half medians), i.e. more than the target and more than the noise of the halves can explain.
Stability check_stability(const std::vector<std::vector<double>>& sets, const std::vector<double>& estimates,
                          double rel_precision, const std::vector<std::string>& names = {});

// TimeStats of a finished set: compute_stats over the effective samples (IQR filter optional), the
// throttled count and mean clock filled in. `reliable` says whether the median is known to
// `rel_precision`; the caller adds stop reason and stability.
TimeStats summarize(const SampleSet& set, bool outlier_filter, double rel_precision);

}  // namespace opbench
