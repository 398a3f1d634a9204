#include "src/model/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opbench {

double quantile_sorted(const std::vector<double>& s, double q) {
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

TimeStats compute_stats(const std::vector<double>& samples, bool filter_outliers) {
  TimeStats st;
  if (samples.empty()) return st;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> kept = samples;  // in the order taken
  if (filter_outliers && samples.size() >= 4) {
    const double q1 = quantile_sorted(sorted, 0.25), q3 = quantile_sorted(sorted, 0.75);
    const double iqr = q3 - q1, lo = q1 - 1.5 * iqr, hi = q3 + 1.5 * iqr;
    std::vector<double> in;
    for (double x : samples)
      if (x >= lo && x <= hi) in.push_back(x);
    if (in.size() * 2 >= samples.size()) kept = std::move(in);
  }
  if (kept.size() != samples.size()) {
    sorted = kept;
    std::sort(sorted.begin(), sorted.end());
  }
  st.samples = int(kept.size());
  st.outliers = int(samples.size() - kept.size());
  st.median_ms = quantile_sorted(sorted, 0.5);
  st.q1_ms = quantile_sorted(sorted, 0.25);
  st.q3_ms = quantile_sorted(sorted, 0.75);
  st.min_ms = sorted.front();
  st.max_ms = sorted.back();
  double sum = 0;
  for (double x : kept) sum += x;
  st.mean_ms = sum / double(kept.size());
  double var = 0;
  for (double x : kept) var += (x - st.mean_ms) * (x - st.mean_ms);
  st.stddev_ms = kept.size() > 1 ? std::sqrt(var / double(kept.size() - 1)) : 0.0;
  st.cv = st.mean_ms > 0 ? st.stddev_ms / st.mean_ms : 0.0;
  st.reliable = st.cv <= kUnreliableCv;
  st.samples_ms = std::move(kept);
  return st;
}

double MedianInterval::rel_half_width() const {
  if (!exists || median <= 0) return std::numeric_limits<double>::infinity();
  return (hi - lo) / 2 / median;
}

int median_interval_rank(int n, double confidence) {
  if (n <= 0) return 0;
  // The stopping rule asks for every n as samples arrive, at 95%: remember those.
  thread_local std::vector<int> cache95;
  const bool c95 = confidence == 0.95 && n < 1000000;
  if (c95 && std::size_t(n) < cache95.size() && cache95[std::size_t(n)] >= 0) return cache95[std::size_t(n)];
  const double tail = (1 - confidence) / 2;
  // Walk the Binomial(n, 1/2) CDF from below in log space (2^-n underflows a double past n = 1074):
  // k is the largest count with P(B <= k-1) <= tail.
  double log_pmf = -double(n) * std::log(2.0);  // P(B = 0)
  double cdf = 0;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    const double next = cdf + std::exp(log_pmf);
    if (next > tail) break;
    cdf = next;
    k = i + 1;
    log_pmf += std::log(double(n - i)) - std::log(double(i + 1));  // P(B = i+1) from P(B = i)
  }
  if (c95) {
    if (cache95.size() <= std::size_t(n)) cache95.resize(std::size_t(n) + 1, -1);
    cache95[std::size_t(n)] = k;
  }
  return k;
}

MedianInterval median_interval(std::vector<double> v, double confidence) {
  MedianInterval m;
  const int n = int(v.size());
  if (n == 0) return m;
  // Selection instead of a sort: the stopping rule asks this every round.
  auto at = [&](int rank0) {
    std::nth_element(v.begin(), v.begin() + rank0, v.end());
    return v[std::size_t(rank0)];
  };
  const int mid = (n - 1) / 2;
  m.median = at(mid);
  if (n % 2 == 0) m.median = (m.median + *std::min_element(v.begin() + mid + 1, v.end())) / 2;
  const int k = median_interval_rank(n, confidence);
  if (k == 0) return m;
  m.lo = at(k - 1);
  m.hi = at(n - k);
  m.exists = true;
  return m;
}

}  // namespace opbench
