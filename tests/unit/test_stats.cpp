// The statistics behind every reported time: quantiles, the IQR filter keeping sample order, and the
// order-statistics confidence interval of the median (known ranks, no underflow at large n, and its
// coverage on a skewed distribution).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "src/model/stats.hpp"

using namespace opbench;

TEST(Stats, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> s = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 1.0), 4.0);
  EXPECT_EQ(quantile_sorted({}, 0.5), 0.0);
}

TEST(Stats, QuartilesAndKeptSamplesInOrder) {
  const std::vector<double> taken = {1.3, 1.0, 9.0, 1.2, 1.1, 1.4, 1.0, 1.2};
  const TimeStats st = compute_stats(taken, true);
  EXPECT_EQ(st.outliers, 1);
  EXPECT_EQ(st.samples, 7);
  // The kept samples stay in the order they were taken (a comparison looks for drift in them).
  EXPECT_EQ(st.samples_ms, (std::vector<double>{1.3, 1.0, 1.2, 1.1, 1.4, 1.0, 1.2}));
  EXPECT_DOUBLE_EQ(st.median_ms, 1.2);
  EXPECT_DOUBLE_EQ(st.q1_ms, 1.05);
  EXPECT_DOUBLE_EQ(st.q3_ms, 1.25);
  EXPECT_DOUBLE_EQ(st.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(st.max_ms, 1.4);

  const TimeStats all = compute_stats(taken, false);
  EXPECT_EQ(all.samples, 8);
  EXPECT_EQ(all.samples_ms, taken);
  EXPECT_DOUBLE_EQ(all.max_ms, 9.0);
}

TEST(Stats, FilterNeverDropsMoreThanHalf) {
  // Two clusters of equal size: no IQR fence may call one of them outliers.
  const std::vector<double> taken = {1, 1, 1, 1, 5, 5, 5, 5};
  EXPECT_EQ(compute_stats(taken, true).samples, 8);
}

TEST(MedianInterval, RanksMatchTheBinomialTable) {
  // 95% intervals for the median by order statistics (e.g. Conover, Practical Nonparametric Statistics).
  EXPECT_EQ(median_interval_rank(5, 0.95), 0);  // [min, max] covers only 93.75%
  EXPECT_EQ(median_interval_rank(6, 0.95), 1);  // [x1, x6]: 96.9%
  EXPECT_EQ(median_interval_rank(10, 0.95), 2);
  EXPECT_EQ(median_interval_rank(20, 0.95), 6);
  EXPECT_EQ(median_interval_rank(100, 0.95), 40);
  EXPECT_EQ(median_interval_rank(0, 0.95), 0);
}

TEST(MedianInterval, LargeSampleCountsDoNotUnderflow) {
  // 2^-2000 underflows a double; the rank must still be n/2 - 1.96 sqrt(n)/2 or so (about 956).
  const int k = median_interval_rank(2000, 0.95);
  EXPECT_GE(k, 950);
  EXPECT_LE(k, 960);
}

TEST(MedianInterval, EndsAreTheOrderStatistics) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  const MedianInterval m = median_interval(v);
  ASSERT_TRUE(m.exists);
  EXPECT_DOUBLE_EQ(m.lo, 6);
  EXPECT_DOUBLE_EQ(m.hi, 15);
  EXPECT_DOUBLE_EQ(m.median, 10.5);
  EXPECT_DOUBLE_EQ(m.rel_half_width(), 4.5 / 10.5);

  const MedianInterval few = median_interval({1, 2, 3});
  EXPECT_FALSE(few.exists);
  EXPECT_DOUBLE_EQ(few.median, 2);
  EXPECT_TRUE(std::isinf(few.rel_half_width()));
}

TEST(MedianInterval, CoversTheTrueMedianOfASkewedDistribution) {
  // Log-normal samples (right-skewed, like kernel times): the interval must hold the true median
  // exp(mu) in about 95% of sets, never much less.
  std::mt19937 rng(12345);
  std::lognormal_distribution<double> dist(0.0, 0.5);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(40);
    for (double& x : v) x = dist(rng);
    const MedianInterval m = median_interval(v);
    covered += m.lo <= 1.0 && 1.0 <= m.hi;
  }
  const double coverage = double(covered) / trials;
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.995);  // conservative by the discreteness of ranks, but not trivially wide
}
