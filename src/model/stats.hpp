// Sample statistics: the median with its spread and a distribution-free confidence interval, after an
// optional IQR outlier filter. One statistic everywhere: the median. CPU only (no CUDA), so the stopping
// rule built on it is unit-tested on synthetic sample streams.
#pragma once
#include <vector>

#include "opbench/result.hpp"

namespace opbench {

// cv (stddev / mean of the kept samples) above this marks a set unreliable in compute_stats. measure()
// replaces that verdict with its own (the median known to the target precision); this one serves
// callers without a stopping rule.
constexpr double kUnreliableCv = 0.10;

// The q-quantile of an ascending vector, by linear interpolation between order statistics (R type 7,
// numpy's default). 0 for an empty vector.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Samples in milliseconds, in the order taken. With `filter_outliers`, samples outside
// [Q1 - 1.5 IQR, Q3 + 1.5 IQR] are dropped first (never more than half of them). The kept samples stay
// in the order taken (samples_ms), so a later comparison can see drift.
TimeStats compute_stats(const std::vector<double>& samples_ms, bool filter_outliers);

// Confidence interval for the median by order statistics: the number of samples below the true median
// is Binomial(n, 1/2), so [x_(k), x_(n+1-k)] (1-based ranks) covers it with probability
// 1 - 2 P(B <= k-1). No assumption on the shape of the distribution, which for GPU timings is skewed
// and often multi-modal.
struct MedianInterval {
  double lo = 0, median = 0, hi = 0;
  bool exists = false;  // false below 6 samples at 95%: even [min, max] covers less than that
  // (hi - lo) / 2 / median: how well the median is known, relative. +inf when there is no interval.
  double rel_half_width() const;
};

// k, the 1-based rank of the interval's lower end (the upper end is n+1-k); 0 when n samples are too
// few for the confidence asked.
int median_interval_rank(int n, double confidence);

MedianInterval median_interval(std::vector<double> samples, double confidence = 0.95);

double median_of(std::vector<double> v);
double geomean(const std::vector<double>& v);  // 0 for an empty list

}  // namespace opbench
