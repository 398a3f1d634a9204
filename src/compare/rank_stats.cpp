#include "src/compare/rank_stats.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace opbench::compare {

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest r;
  const std::size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return r;

  // Rank the pooled samples (1-based); a run of ties shares its mean rank.
  std::vector<std::pair<double, int>> pooled;  // (value, 0: from a, 1: from b)
  pooled.reserve(n + m);
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end());
  const double N = double(n + m);
  double rank_sum_a = 0, tie_term = 0;  // tie_term: sum over runs of (t^3 - t)
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = double(j - i), mean_rank = (double(i + 1) + double(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += mean_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  r.u = rank_sum_a - double(n) * double(n + 1) / 2;
  const double mu = double(n) * double(m) / 2;
  const double var = double(n) * double(m) / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (!(var > 0)) return r;  // every value tied: no evidence of a difference
  const double diff = std::fabs(r.u - mu);
  // The continuity correction moves |U - mu| half a step toward zero (never past it).
  r.z = std::max(diff - 0.5, 0.0) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(r.z / std::sqrt(2.0)));  // 2 (1 - Phi(z))
  return r;
}

double u_test_min_p(int n, int m) {
  if (n <= 0 || m <= 0) return 1;
  // log C(n+m, n) by lgamma: exact enough, and no overflow for thousands of samples.
  const double log_c = std::lgamma(double(n + m) + 1) - std::lgamma(double(n) + 1) - std::lgamma(double(m) + 1);
  return std::min(1.0, 2 * std::exp(-log_c));
}

double normal_quantile_two_sided(double confidence) {
  // Solve erfc(z / sqrt 2) = 1 - confidence by Newton's method from z = 2; erfc is smooth and monotone.
  const double target = 1 - confidence;
  double z = 2;
  for (int i = 0; i < 60; ++i) {
    const double f = std::erfc(z / std::sqrt(2.0)) - target;
    const double df = -std::sqrt(2.0 / M_PI) * std::exp(-z * z / 2);
    const double step = f / df;
    z -= step;
    if (std::fabs(step) < 1e-13) break;
  }
  return z;
}

Interval median_interval(std::vector<double> s, double confidence) {
  if (s.empty()) return {};
  std::sort(s.begin(), s.end());
  const double n = double(s.size());
  const double half = normal_quantile_two_sided(confidence) * std::sqrt(n) / 2;
  // 1-based ranks, rounded outward so that the coverage is at least the level asked for.
  const long lo_rank = std::max(1L, long(std::floor(n / 2 - half)));
  const long hi_rank = std::min(long(s.size()), long(std::ceil(1 + n / 2 + half)));
  return {s[std::size_t(lo_rank - 1)], s[std::size_t(hi_rank - 1)]};
}

}  // namespace opbench::compare
