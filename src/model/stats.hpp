// Sample statistics: the median with its spread, after an IQR outlier filter (as the Genesis scripts
// did). One statistic everywhere: the median.
#pragma once
#include <vector>

#include "opbench/result.hpp"

namespace opbench {

// cv (stddev / mean of the kept samples) above this marks a timing unreliable.
constexpr double kUnreliableCv = 0.10;

// Samples in milliseconds. With `filter_outliers`, samples outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] are
// dropped before the statistics (never below half of the samples).
TimeStats compute_stats(std::vector<double> samples_ms, bool filter_outliers);

double median_of(std::vector<double> v);
double geomean(const std::vector<double>& v);  // 0 for an empty list

}  // namespace opbench
