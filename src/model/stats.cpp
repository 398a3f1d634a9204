#include "src/model/stats.hpp"

#include <algorithm>
#include <cmath>

namespace opbench {

static double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  const double pos = q * double(s.size() - 1);
  const std::size_t lo = std::size_t(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / double(v.size()));
}

TimeStats compute_stats(std::vector<double> samples, bool filter_outliers) {
  TimeStats st;
  if (samples.empty()) return st;
  std::sort(samples.begin(), samples.end());
  std::vector<double> kept = samples;
  if (filter_outliers && samples.size() >= 4) {
    const double q1 = quantile_sorted(samples, 0.25), q3 = quantile_sorted(samples, 0.75);
    const double iqr = q3 - q1, lo = q1 - 1.5 * iqr, hi = q3 + 1.5 * iqr;
    std::vector<double> in;
    for (double x : samples)
      if (x >= lo && x <= hi) in.push_back(x);
    if (in.size() * 2 >= samples.size()) kept = std::move(in);
  }
  st.samples = int(kept.size());
  st.outliers = int(samples.size() - kept.size());
  st.median_ms = quantile_sorted(kept, 0.5);
  st.min_ms = kept.front();
  st.max_ms = kept.back();
  double sum = 0;
  for (double x : kept) sum += x;
  st.mean_ms = sum / double(kept.size());
  double var = 0;
  for (double x : kept) var += (x - st.mean_ms) * (x - st.mean_ms);
  st.stddev_ms = kept.size() > 1 ? std::sqrt(var / double(kept.size() - 1)) : 0.0;
  st.cv = st.mean_ms > 0 ? st.stddev_ms / st.mean_ms : 0.0;
  st.reliable = st.cv <= kUnreliableCv;
  return st;
}

}  // namespace opbench
