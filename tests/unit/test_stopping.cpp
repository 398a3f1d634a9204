// The stopping rule, the clock filter and the stability check on synthetic sample streams: these are
// the decisions measure() takes after every round, without a GPU; and the timing settings in words.
#include <gtest/gtest.h>

#include <random>

#include "src/timing/stopping.hpp"
#include "src/timing/timer.hpp"

using namespace opbench;

namespace {

// Runs the rule over `k` implementations drawing from `draw`, `round_ms` of wall time per round, as
// measure() does. Returns the reason and the number of rounds.
template <class Draw>
std::pair<StopReason, int> run_rule(const StopRule& rule, int k, double round_ms, Draw draw) {
  std::vector<std::vector<double>> sets(k);
  for (int rounds = 1;; ++rounds) {
    for (int j = 0; j < k; ++j) sets[j].push_back(draw(j));
    const StopReason r = decide_stop(sets, rounds, rounds * round_ms, rule);
    if (r != StopReason::keep_going) return {r, rounds};
  }
}

}  // namespace

TEST(ClockFilter, DropsSamplesBelowTheThreshold) {
  const ClockRule rule{1980, 0.75};
  EXPECT_FALSE(rule.throttled(1980));
  EXPECT_FALSE(rule.throttled(1500));  // 75.8%
  EXPECT_TRUE(rule.throttled(1400));   // 70.7%
  EXPECT_FALSE(rule.throttled(0));     // unknown clock: no evidence, kept
  EXPECT_FALSE((ClockRule{0, 0.75}).throttled(100));  // no max clock known: no filter

  SampleSet set;
  set.add(1.0, 1900, rule);
  set.add(5.0, 600, rule);  // a sample taken before the clocks came back up
  set.add(1.1, 1700, rule);
  set.add(1.0, 0, rule);
  EXPECT_EQ(set.throttled(), 1);
  EXPECT_FALSE(set.mostly_throttled());
  EXPECT_EQ(set.effective(), (std::vector<double>{1.0, 1.1, 1.0}));
  EXPECT_DOUBLE_EQ(set.mean_clock_mhz(), 1800);  // over kept samples with a known clock
}

TEST(ClockFilter, KeepsEverythingWhenTheDeviceRunsSlowThroughout) {
  // A power cap or a locked clock: most samples below the threshold. Dropping them all would leave
  // nothing; the set keeps them (and the result says so).
  const ClockRule rule{1980, 0.75};
  SampleSet set;
  for (int i = 0; i < 9; ++i) set.add(2.0 + 0.01 * i, 1300, rule);
  set.add(1.5, 1900, rule);
  EXPECT_TRUE(set.mostly_throttled());
  EXPECT_EQ(set.effective().size(), 10u);
  EXPECT_EQ(set.throttled(), 9);
  EXPECT_NEAR(set.mean_clock_mhz(), (9 * 1300 + 1900) / 10.0, 1e-9);

  const TimeStats st = summarize(set, true, 0.005);
  EXPECT_EQ(st.throttled_samples, 9);
  EXPECT_GT(st.sm_clock_mhz, 0);
}

TEST(Stopping, TightSamplesStopEarlyOnPrecision) {
  std::mt19937 rng(1);
  std::normal_distribution<double> tight(1.0, 0.001);
  const StopRule rule{0.005, 10, 2000, 5, 1500};
  const auto [why, rounds] = run_rule(rule, 3, 0.5, [&](int) { return tight(rng); });
  EXPECT_EQ(why, StopReason::precision);
  EXPECT_EQ(rounds, 10);  // both minimums (10 samples, 5 ms at 0.5 ms a round) met at round 10
}

TEST(Stopping, RespectsMinimumSamplesAndTime) {
  const StopRule rule{0.005, 25, 2000, 5, 1500};
  // Identical samples are known exactly from the start, yet sampling goes on to 25 samples...
  EXPECT_EQ(run_rule(rule, 2, 1.0, [](int) { return 1.0; }).second, 25);
  // ...and to 5 ms when rounds are short: 0.1 ms a round needs 50 rounds.
  EXPECT_EQ(run_rule(rule, 2, 0.1, [](int) { return 1.0; }).second, 50);
}

TEST(Stopping, NoisySamplesRunToMaxSamples) {
  std::mt19937 rng(2);
  std::lognormal_distribution<double> noisy(0.0, 0.8);
  const StopRule rule{0.005, 10, 300, 5, 1e9};
  const auto [why, rounds] = run_rule(rule, 2, 0.1, [&](int) { return noisy(rng); });
  EXPECT_EQ(why, StopReason::max_samples);
  EXPECT_EQ(rounds, 300);
}

TEST(Stopping, TimeoutStopsSlowRounds) {
  std::mt19937 rng(3);
  std::lognormal_distribution<double> noisy(0.0, 0.8);
  const StopRule rule{0.005, 10, 2000, 5, 1500};
  const auto [why, rounds] = run_rule(rule, 3, 100, [&](int) { return noisy(rng); });
  EXPECT_EQ(why, StopReason::timeout);
  EXPECT_EQ(rounds, 15);
}

TEST(Stopping, SlowRoundsStillGetMinSamplesUpToTheHardTimeout) {
  std::mt19937 rng(4);
  std::lognormal_distribution<double> noisy(0.0, 0.8);
  // Rounds of 200 ms against a 250 ms timeout: min_samples (10) rounds first.
  StopRule rule{0.005, 10, 2000, 5, 250};
  auto [why, rounds] = run_rule(rule, 2, 200, [&](int) { return noisy(rng); });
  EXPECT_EQ(why, StopReason::timeout);
  EXPECT_EQ(rounds, 10);
  // The hard limit ends it sooner: 5 rounds reach 1000 ms.
  rule.hard_timeout_ms = 1000;
  std::tie(why, rounds) = run_rule(rule, 2, 200, [&](int) { return noisy(rng); });
  EXPECT_EQ(why, StopReason::timeout);
  EXPECT_EQ(rounds, 5);
}

TEST(Stopping, EveryImplementationMustBePrecise) {
  // The framework is tight, the library noisy: the problem goes on until the noisy one is known too.
  std::mt19937 rng(4);
  std::normal_distribution<double> tight(1.0, 0.0005), loose(1.0, 0.03);
  const StopRule rule{0.005, 10, 5000, 0, 1e9};
  const auto [why, rounds] = run_rule(rule, 2, 0.1, [&](int j) { return j == 0 ? tight(rng) : loose(rng); });
  EXPECT_EQ(why, StopReason::precision);
  // ±0.5% on a 3% normal spread takes about (1.96 * 1.25 * 0.03 / 0.005)^2 = 216 samples.
  EXPECT_GT(rounds, 100);
  EXPECT_LT(rounds, 500);
}

TEST(Stability, SetFarFromItsWarmUpEstimateIsRejected) {
  const std::vector<double> fast(40, 1.0), slow(40, 2.1);
  EXPECT_TRUE(check_stability({fast, fast}, {1.0, 1.2}, 0.005).stable);
  const Stability s = check_stability({slow, fast}, {1.0, 1.0}, 0.005, {"framework", "torch"});
  EXPECT_FALSE(s.stable);
  EXPECT_NE(s.why.find("framework measured 2.10x its warm-up estimate"), std::string::npos) << s.why;
  EXPECT_FALSE(check_stability({fast}, {3.0}, 0.005).stable);  // 3x too fast is as suspicious
  EXPECT_TRUE(check_stability({slow}, {0.0}, 0.005).stable);   // no estimate, no check
}

TEST(Stability, RatioWithinTargetIsAccepted) {
  std::mt19937 rng(9);
  std::normal_distribution<double> n(1.0, 0.002);
  std::vector<double> fw, torch;
  for (int i = 0; i < 200; ++i) {
    fw.push_back(n(rng));
    torch.push_back((i < 100 ? 2.0 : 2.01) * n(rng));  // 0.5%: within 2x the 0.5% target
  }
  EXPECT_TRUE(check_stability({fw, torch}, {}, 0.005).stable);
}

TEST(Stability, RatioThatMovesBetweenHalvesIsRejected) {
  std::mt19937 rng(5);
  std::normal_distribution<double> n(1.0, 0.002);
  std::vector<double> fw, torch;
  for (int i = 0; i < 200; ++i) {
    fw.push_back(n(rng));
    torch.push_back((i < 100 ? 2.0 : 2.1) * n(rng));  // LibTorch 5% slower in the second half only
  }
  const Stability s = check_stability({fw, torch}, {}, 0.005, {"framework", "torch"});
  EXPECT_FALSE(s.stable);
  EXPECT_NE(s.why.find("torch / framework moved"), std::string::npos) << s.why;
}

TEST(Stability, StationaryNoiseIsRarelyRejected) {
  // A drift that hits both implementations alike cancels in the ratio, and noise alone must not send
  // problems back often (each re-measurement costs a full warm-up and sample set).
  std::mt19937 rng(6);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  int rejected = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a, b;
    for (int i = 0; i < 120; ++i) {
      const double drift = 1.0 + 0.1 * i / 120.0;
      a.push_back(drift * noise(rng));
      b.push_back(1.7 * drift * noise(rng));
    }
    rejected += !check_stability({a, b}, {}, 0.005).stable;
  }
  EXPECT_LE(rejected, trials / 100);
}

TEST(Summarize, ReliableOnlyWhenThePrecisionIsReached) {
  const ClockRule rule{1980, 0.75};
  SampleSet tight, loose;
  std::mt19937 rng(8);
  std::normal_distribution<double> a(1.0, 0.001), b(1.0, 0.2);
  for (int i = 0; i < 50; ++i) {
    tight.add(a(rng), 1800, rule);
    loose.add(b(rng), 1800, rule);
  }
  tight.add(1.0, 900, rule);  // one throttled sample
  const TimeStats t = summarize(tight, true, 0.005);
  EXPECT_TRUE(t.reliable);
  EXPECT_EQ(t.throttled_samples, 1);
  EXPECT_LE(t.samples, 50);
  EXPECT_NEAR(t.sm_clock_mhz, 1800, 1e-9);
  EXPECT_FALSE(summarize(loose, true, 0.005).reliable);
}

TEST(TimingConfig, FastIsLooserAndTheRulesReadInWords) {
  const TimingConfig def;
  const TimingConfig fast = fast_timing(def);
  EXPECT_GT(fast.rel_precision, def.rel_precision);
  EXPECT_LT(fast.max_samples, def.max_samples);
  EXPECT_LT(fast.timeout_ms, def.timeout_ms);
  EXPECT_LT(fast.warmup_ms, def.warmup_ms);

  const std::string rule = describe_stopping(def);
  EXPECT_NE(rule.find("±1%"), std::string::npos) << rule;
  EXPECT_NE(rule.find("at least 10 samples and 3 ms"), std::string::npos) << rule;
  EXPECT_NE(rule.find("500 rounds or 250 ms"), std::string::npos) << rule;
  EXPECT_NE(rule.find("75%"), std::string::npos) << rule;

  TimingConfig warm = def;
  warm.l2_cold = false;
  EXPECT_EQ(describe_flush(warm), "none (warm)");
  EXPECT_NE(describe_flush(def).find("write then read"), std::string::npos);
}
