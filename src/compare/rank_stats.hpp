// Distribution-free statistics for comparing two sets of timing samples: the Mann-Whitney U test (as
// Google Benchmark's compare.py and asv use it) and the order-statistic confidence interval of a median.
// Neither assumes normal timings: GPU samples are skewed (a floor, a tail of slow samples) and often
// tied at the event timer's resolution, so both work on ranks and handle ties.
#pragma once
#include <vector>

namespace opbench::compare {

struct UTest {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting one half
  double z = 0;        // normal approximation, continuity-corrected, tie-corrected
  double p_value = 1;  // two-sided; 1 when every value is tied (nothing to rank)
};

// Two-sided Mann-Whitney U test by the normal approximation with tie and continuity corrections (the
// same figures as scipy.stats.mannwhitneyu(method="asymptotic")). Sound from about 8 samples a side;
// the caller enforces its minimum. Empty inputs give p = 1.
UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p-value the U test can reach with samples of these sizes (no ties): 2 / C(n+m, n).
// A test that cannot reach alpha is not evidence either way (asv's check).
double u_test_min_p(int n, int m);

struct Interval {
  double lo = 0, hi = 0;
};

// A distribution-free confidence interval of the median from order statistics: the ranks
// n/2 -/+ z sqrt(n)/2 (binomial(n, 1/2) by its normal approximation), clamped to [min, max].
// `confidence` is two-sided (0.95 -> z = 1.96). An empty input gives {0, 0}.
Interval median_interval(std::vector<double> samples, double confidence);

// The standard normal's upper quantile for a two-sided confidence level (0.95 -> 1.95996...).
double normal_quantile_two_sided(double confidence);

}  // namespace opbench::compare
