// bench_ops compare without a GPU: the rank statistics against known answers (scipy), the verdict rule
// on synthetic samples (equal, shifted 3%, 5%, 6%, 10%, noisy, too few, no samples, clocks apart),
// matching, the device and settings checks, the speedup's explanation, the re-run, the baseline search,
// the writers, and the committed CLI reports (tests/data/compare_*.json; OPBENCH_UPDATE_GOLDEN=1
// rewrites them).
#include <gtest/gtest.h>

#include <regex>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/file_set.hpp"
#include "reports/json_writer.hpp"
#include "src/compare/baseline.hpp"
#include "src/compare/compare_report.hpp"
#include "src/compare/comparison.hpp"
#include "src/compare/rank_stats.hpp"
#include "tests/unit/compare_fixtures.hpp"

#ifndef OPBENCH_TEST_DATA
#error "OPBENCH_TEST_DATA must name tests/data"
#endif

using namespace opbench;
using namespace opbench::compare;
using namespace opbench::compare::testing;
namespace fs = std::filesystem;

namespace {

// --- rank statistics ------------------------------------------------------------------------------------

TEST(RankStats, MannWhitneyMatchesScipy) {
  // scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic") -> (21.0, 0.018210990149432397)
  const UTest r = mann_whitney_u({1.0, 1.2, 1.3, 1.3, 1.5, 1.7, 1.9, 2.0, 2.2, 2.2},
                                 {1.4, 1.6, 1.8, 1.8, 2.1, 2.3, 2.5, 2.6, 2.9, 3.0, 3.1});
  EXPECT_DOUBLE_EQ(r.u, 21.0);
  EXPECT_NEAR(r.p_value, 0.018210990149432397, 1e-12);
  // Heavy ties, as timings at the event timer's resolution: scipy -> (34.0, 0.08539147212273436)
  const UTest t = mann_whitney_u({5, 5, 5, 6, 6, 7, 7, 7, 7, 8}, {5, 6, 6, 6, 7, 7, 8, 8, 8, 9, 9, 9});
  EXPECT_DOUBLE_EQ(t.u, 34.0);
  EXPECT_NEAR(t.p_value, 0.08539147212273436, 1e-12);
}

TEST(RankStats, AllTiedOrEmptyIsNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({2, 2, 2}, {2, 2, 2, 2}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_value, 1.0);
}

TEST(RankStats, SmallestReachableP) {
  EXPECT_NEAR(u_test_min_p(8, 8), 2.0 / 12870, 1e-15);  // C(16, 8) = 12870
  EXPECT_NEAR(u_test_min_p(3, 3), 0.1, 1e-15);          // 2 / C(6, 3)
  EXPECT_LT(u_test_min_p(1000, 1000), 1e-300 + 1e-12);
}

TEST(RankStats, MedianIntervalFromOrderStatistics) {
  EXPECT_NEAR(normal_quantile_two_sided(0.95), 1.959963984540054, 1e-12);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  // n = 100: ranks floor(50 - 9.8) = 40 and ceil(51 + 9.8) = 61.
  const Interval iv = median_interval(v, 0.95);
  EXPECT_DOUBLE_EQ(iv.lo, 40);
  EXPECT_DOUBLE_EQ(iv.hi, 61);
  const Interval small = median_interval({3, 1, 2}, 0.95);  // clamped to [min, max]
  EXPECT_DOUBLE_EQ(small.lo, 1);
  EXPECT_DOUBLE_EQ(small.hi, 3);
}

// --- the verdict rule on synthetic samples ------------------------------------------------------------------

const Rule kRule;  // 5%, alpha 0.002, 8 samples, clocks within 5%

TEST(Verdict, EqualDistributionsAreSame) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const TimingDelta d = judge(timing(0.05, 0.01, 100, seed), timing(0.05, 0.01, 100, seed + 1000), kRule);
    EXPECT_EQ(d.verdict, Verdict::same) << "seed " << seed << ": " << d.reason;
    EXPECT_TRUE(d.reason.empty());
  }
}

TEST(Verdict, ShiftOfThreePercentIsSame) {
  // Below the threshold, and precise enough to say so.
  const TimingDelta d = judge(timing(0.05, 0.005, 100, 1), timing(0.05 * 1.03, 0.005, 100, 2), kRule);
  EXPECT_EQ(d.verdict, Verdict::same) << d.reason;
  EXPECT_NEAR(d.change(), 0.03, 0.005);
}

TEST(Verdict, ShiftOfFivePercentIsNeverSame) {
  // At the threshold: slower, or unsure when the measured ratio lands a hair below 1.05. Never same.
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const TimingDelta d = judge(timing(0.05, 0.003, 200, seed), timing(0.05 * 1.05, 0.003, 200, seed + 50), kRule);
    EXPECT_TRUE(d.verdict == Verdict::slower || d.verdict == Verdict::unsure) << verdict_name(d.verdict);
  }
}

TEST(Verdict, ShiftOfSixAndTenPercentIsSlowerAndTheMirrorIsFaster) {
  for (double shift : {1.06, 1.10}) {
    const TimeStats a = timing(0.05, 0.01, 100, 3), b = timing(0.05 * shift, 0.01, 100, 4);
    const TimingDelta slow = judge(a, b, kRule), fast = judge(b, a, kRule);
    EXPECT_EQ(slow.verdict, Verdict::slower) << slow.reason;
    EXPECT_EQ(fast.verdict, Verdict::faster) << fast.reason;
    EXPECT_NEAR(slow.ratio * fast.ratio, 1.0, 1e-12);
    ASSERT_TRUE(slow.p_value.has_value());
    EXPECT_LT(*slow.p_value, kRule.alpha);
    EXPECT_FALSE(slow.intervals_overlap);
  }
}

TEST(Verdict, NoisyTimingsAreUnsureWithTheReason) {
  // A 10% shift buried in 30% noise: the quartile intervals overlap.
  const TimingDelta d = judge(timing(0.05, 0.30, 60, 5), timing(0.055, 0.30, 60, 6), kRule);
  EXPECT_EQ(d.verdict, Verdict::unsure);
  EXPECT_TRUE(d.cause == UnsureCause::overlap || d.cause == UnsureCause::wide_interval ||
              d.cause == UnsureCause::unreliable || d.cause == UnsureCause::not_significant)
      << d.reason;
  EXPECT_FALSE(d.reason.empty());
}

TEST(Verdict, NoisyButEqualIsNotSame) {
  // cv > 10%: the timing is unreliable; a small change cannot be called "same".
  const TimingDelta d = judge(timing(0.05, 0.2, 200, 7), timing(0.05, 0.2, 200, 8), kRule);
  EXPECT_EQ(d.verdict, Verdict::unsure);
  EXPECT_TRUE(d.cause == UnsureCause::unreliable || d.cause == UnsureCause::wide_interval) << d.reason;
}

TEST(Verdict, TooFewSamples) {
  const TimingDelta d = judge(timing(0.05, 0.01, 5, 1), timing(0.08, 0.01, 5, 2), kRule);
  EXPECT_EQ(d.verdict, Verdict::unsure);
  EXPECT_EQ(d.cause, UnsureCause::few_samples);
  EXPECT_NE(d.reason.find("5 vs 5"), std::string::npos) << d.reason;
}

TEST(Verdict, ReportWithoutSamples) {
  TimeStats a = timing(0.05, 0.01, 50, 1), b = timing(0.08, 0.01, 50, 2);
  a.samples_ms.clear();
  const TimingDelta d = judge(a, b, kRule);
  EXPECT_EQ(d.cause, UnsureCause::no_samples);
  EXPECT_NE(d.reason.find("baseline"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.ratio, b.median_ms / a.median_ms);  // the change is still reported
}

TEST(Verdict, ClocksApartMakeUnsureWhatTheyCouldExplain) {
  TimeStats a = timing(0.05, 0.01, 100, 1), b = timing(0.06, 0.01, 100, 2);
  b.sm_clock_mhz = 1700;  // 14% below the baseline's 1980 MHz: slower at a lower clock may be the clock's
  const TimingDelta d = judge(a, b, kRule);
  EXPECT_EQ(d.cause, UnsureCause::clocks_differ);
  b.sm_clock_mhz = 0;  // not measured: no clock check
  EXPECT_EQ(judge(a, b, kRule).verdict, Verdict::slower);
  b.sm_clock_mhz = 2300;  // slower at a higher clock: not the clock's
  EXPECT_EQ(judge(a, b, kRule).verdict, Verdict::slower);
  TimeStats f = timing(0.04, 0.01, 100, 3);
  f.sm_clock_mhz = 1700;  // faster at a lower clock: not the clock's
  EXPECT_EQ(judge(a, f, kRule).verdict, Verdict::faster);
  f.sm_clock_mhz = 2300;  // faster at a higher clock may be the clock's
  EXPECT_EQ(judge(a, f, kRule).cause, UnsureCause::clocks_differ);
  TimeStats same = timing(0.05, 0.01, 100, 4);
  same.sm_clock_mhz = 1700;  // no change at a lower clock could hide a faster kernel: not "same"
  EXPECT_EQ(judge(a, same, kRule).cause, UnsureCause::clocks_differ);
}

TEST(Verdict, ThresholdIsASetting) {
  const TimeStats a = timing(0.05, 0.003, 200, 1), b = timing(0.05 * 1.03, 0.003, 200, 2);
  Rule two = kRule;
  two.threshold = 0.02;
  EXPECT_EQ(judge(a, b, kRule).verdict, Verdict::same);
  EXPECT_EQ(judge(a, b, two).verdict, Verdict::slower);
  EXPECT_NE(rule_text(two).find("1.02"), std::string::npos);
}

// A 5 us kernel 10% slower moved 0.5 us: less than medians move between processes (1 us by default), so
// no verdict; the same 10% on a 50 us kernel is slower; --min-change 0 judges the small one too.
TEST(Verdict, ChangesBelowTheBetweenProcessFloorAreUnsure) {
  const TimeStats a = timing(0.005, 0.003, 200, 1), b = timing(0.0055, 0.003, 200, 2);
  const TimingDelta d = judge(a, b, kRule);
  EXPECT_EQ(d.verdict, Verdict::unsure);
  EXPECT_EQ(d.cause, UnsureCause::below_floor);
  EXPECT_NE(d.reason.find("0.50 us"), std::string::npos) << d.reason;
  EXPECT_EQ(judge(timing(0.05, 0.003, 200, 1), timing(0.055, 0.003, 200, 2), kRule).verdict, Verdict::slower);
  Rule off = kRule;
  off.min_change_ms = 0;
  EXPECT_EQ(judge(a, b, off).verdict, Verdict::slower);
  EXPECT_EQ(judge(b, a, off).verdict, Verdict::faster);
  EXPECT_NE(rule_text(kRule).find("1 µs"), std::string::npos);
}

// --- matching, checks, speedups ----------------------------------------------------------------------------

RunInfo info(const std::string& path) { return {path, {}}; }

TEST(Match, ByIdAndImplementationWithMissingOnEitherSide) {
  RunResults a = suite("aaa", "2026-11-20T01:00:00Z", 100), b = suite("bbb", "2026-11-21T01:00:00Z", 200);
  a.problems.push_back(problem("exp", Category{"element"}, {1024, 1024}, DType::bf16, 0.01, 0.01, 9));
  b.problems.push_back(problem("log", Category{"element"}, {1024, 1024}, DType::bf16, 0.01, 0.01, 9));
  b.problems[3].impls.push_back(impl(ImplKind::cudnn, 0.03, 0.01, 20, 5));  // sum gains a cuDNN row
  const Comparison c = compare_runs(info("a.json"), a, info("b.json"), b, kRule, false);
  ASSERT_EQ(c.problems.size(), 4u);
  EXPECT_EQ(c.only_baseline, std::vector<std::string>{"element/exp/bf16/1024x1024"});
  EXPECT_EQ(c.only_current, std::vector<std::string>{"element/log/bf16/1024x1024"});
  EXPECT_EQ(c.problems[3].id, "reduction/sum/fp32/4096x4096");
  EXPECT_EQ(c.problems[3].only_current, std::vector<ImplKind>{ImplKind::cudnn});
  for (const auto& p : c.problems) {
    ASSERT_NE(p.find(ImplKind::framework), nullptr);
    EXPECT_EQ(p.find(ImplKind::framework)->time->verdict, Verdict::same) << p.id;
  }
  EXPECT_FALSE(has_regression(c));
}

TEST(Match, DeviceCheckRefusesOtherGpuOrDriverUnlessIgnored) {
  const RunResults a = suite("a", "2026-11-20T01:00:00Z", 1);
  const RunResults gpu = suite("b", "2026-11-21T01:00:00Z", 2, 1, 1, "NVIDIA A100-SXM4-80GB");
  RunResults driver = suite("b", "2026-11-21T01:00:00Z", 2);
  driver.context.device.driver_version = "575.51.03";
  for (const RunResults* other : {&gpu, static_cast<const RunResults*>(&driver)}) {
    try {
      compare_runs(info("base.json"), a, info("cur.json"), *other, kRule, false);
      ADD_FAILURE() << "compared reports of different devices";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--ignore-device"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("base.json"), std::string::npos);
    }
    const Comparison c = compare_runs(info("base.json"), a, info("cur.json"), *other, kRule, true);
    EXPECT_FALSE(c.notes.empty());  // the difference is stated in the report
  }
}

// Two boards of one model: comparable, but the report says the boards differ (a board's own speed moves results
// that no commit touched); one board, or boards not recorded: no such note.
TEST(Match, DifferentBoardsOfOneModelAreNoted) {
  RunResults a = suite("a", "2026-11-20T01:00:00Z", 1);
  RunResults b = suite("b", "2026-11-21T01:00:00Z", 2);
  auto board_notes = [](const Comparison& c) {
    int n = 0;
    for (const auto& s : c.notes) n += s.find("different boards") != std::string::npos;
    return n;
  };
  EXPECT_EQ(board_notes(compare_runs(info("a"), a, info("b"), b, kRule, false)), 0);  // not recorded
  FleetGpu g;
  g.id.uuid = "GPU-1648e003";
  a.context.gpus = {g};
  b.context.gpus = {g};
  EXPECT_EQ(board_notes(compare_runs(info("a"), a, info("b"), b, kRule, false)), 0);  // the same board
  b.context.gpus[0].id.uuid = "GPU-dea408e6";
  const Comparison c = compare_runs(info("a"), a, info("b"), b, kRule, false);
  ASSERT_EQ(board_notes(c), 1);
  for (const auto& s : c.notes)
    if (s.find("different boards") != std::string::npos) {
      EXPECT_NE(s.find("GPU-1648e003 in the baseline"), std::string::npos) << s;
      EXPECT_NE(s.find("GPU-dea408e6 now"), std::string::npos) << s;
    }
}

TEST(Match, DifferentSettingsAreRefusedEvenWithIgnoreDevice) {
  const RunResults a = suite("a", "2026-11-20T01:00:00Z", 1);
  RunResults b = suite("b", "2026-11-21T01:00:00Z", 2);
  b.context.tf32 = true;
  EXPECT_THROW(compare_runs(info("a"), a, info("b"), b, kRule, true), InputError);
  b.context.tf32 = false, b.context.l2_mode = "warm";
  EXPECT_THROW(compare_runs(info("a"), a, info("b"), b, kRule, true), InputError);
  // CUPTI's clock against the events' (the default of reports older than the field): ~2.5 us apart.
  b.context.l2_mode = a.context.l2_mode, b.context.device_timer = "cupti";
  ASSERT_EQ(a.context.device_timer, "events");
  try {
    compare_runs(info("a"), a, info("b"), b, kRule, true);
    ADD_FAILURE() << "a comparison across device timers was not refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--device-timer events vs cupti"), std::string::npos) << e.what();
  }
  b.context.device_timer = "events";
  EXPECT_NO_THROW(compare_runs(info("a"), a, info("b"), b, kRule, true));
}

TEST(Match, FrameworkSlowerIsARegressionAndExplainsTheSpeedup) {
  const RunResults a = suite("a", "2026-11-20T01:00:00Z", 1), b = suite("b", "2026-11-21T01:00:00Z", 2, 1.25);
  const Comparison c = compare_runs(info("a"), a, info("b"), b, kRule, false);
  const ProblemDelta& relu = c.problems[0];
  EXPECT_EQ(relu.find(ImplKind::framework)->time->verdict, Verdict::slower);
  EXPECT_EQ(relu.find(ImplKind::torch)->time->verdict, Verdict::same);
  ASSERT_TRUE(relu.speedup.has_value());
  EXPECT_EQ(relu.speedup->verdict, SpeedupVerdict::worse);
  EXPECT_EQ(relu.speedup->why, "the framework got slower");
  EXPECT_TRUE(has_regression(c));
  EXPECT_EQ(regression_ids(c), std::vector<std::string>{"activation/relu/fp32/4096x4096"});
  EXPECT_EQ(flagged_ids(c), regression_ids(c));
}

TEST(Match, LibTorchFasterLowersTheSpeedupButIsNoRegression) {
  const RunResults a = suite("a", "2026-11-20T01:00:00Z", 1), b = suite("b", "2026-11-21T01:00:00Z", 2, 1, 0.8);
  const Comparison c = compare_runs(info("a"), a, info("b"), b, kRule, false);
  const ProblemDelta& add = c.problems[2];
  EXPECT_EQ(add.find(ImplKind::framework)->time->verdict, Verdict::same);
  EXPECT_EQ(add.find(ImplKind::torch)->time->verdict, Verdict::faster);
  EXPECT_EQ(add.speedup->verdict, SpeedupVerdict::worse);
  EXPECT_EQ(add.speedup->why, "LibTorch got faster");
  EXPECT_FALSE(has_regression(c));
}

// Both sides of one problem slower in the same run by the rule, the speedup within the threshold: the machine moved,
// not our code (the H100's cross_entropy_backward fp32 16384x8192: framework +12.4%, LibTorch +15.8%). The same when
// LibTorch moved more than the framework (the speedup moved in the framework's favour). A framework that moved more
// than LibTorch by the threshold stays a regression.
TEST(Match, BothSidesSlowerTogetherIsUnsureNotARegression) {
  const Shape s = {16384, 8192};
  auto one = [&](const std::string& commit, double fw_ms, double torch_ms, uint64_t seed) {
    RunResults r = run(commit, "2026-11-27T10:00:00Z", "NVIDIA H100 80GB HBM3");
    r.problems = {problem("cross_entropy_backward", Category{"transformer"}, s, DType::f32, fw_ms, torch_ms, seed, 20)};
    return r;
  };
  // Both slower by the rule, the framework's verdict unsure for the machine, the speedup judged as `speedup`, and
  // the reason naming why (`why`).
  auto expect_machine_moved = [](const Comparison& c, SpeedupVerdict speedup, const char* why) {
    const ImplDelta* fw = c.problems[0].find(ImplKind::framework);
    EXPECT_EQ(c.problems[0].find(ImplKind::torch)->time->verdict, Verdict::slower);
    EXPECT_EQ(c.problems[0].speedup->verdict, speedup);
    EXPECT_EQ(fw->time->verdict, Verdict::unsure);
    EXPECT_EQ(fw->time->cause, UnsureCause::reference_moved);
    EXPECT_NE(fw->time->reason.find(why), std::string::npos) << fw->time->reason;
    EXPECT_FALSE(has_regression(c));
  };
  const RunResults base = one("a", 0.363, 0.716, 1);
  const Comparison together = compare_runs(info("a"), base, info("b"), one("b", 0.408, 0.829, 2), kRule, false);
  expect_machine_moved(together, SpeedupVerdict::same, "and the speedup held");
  // The mirror (the runs swapped): faster on both sides, unsure as well.
  const Comparison mirror = compare_runs(info("b"), one("b", 0.408, 0.829, 2), info("a"), base, kRule, false);
  EXPECT_EQ(mirror.problems[0].find(ImplKind::framework)->time->cause, UnsureCause::reference_moved);
  // The framework 25% slower while LibTorch is 10% slower: the speedup fell by 12%, a regression of ours.
  const Comparison more = compare_runs(info("a"), base, info("c"), one("c", 0.454, 0.788, 3), kRule, false);
  EXPECT_EQ(more.problems[0].find(ImplKind::framework)->time->verdict, Verdict::slower);
  EXPECT_TRUE(has_regression(more));
  // The framework 46% slower while LibTorch is 62% slower (the H200 model's decode bf16 4x512 from one machine to
  // another): the speedup rose by 11%, LibTorch moved more; unsure, no regression.
  const Comparison less = compare_runs(info("a"), base, info("d"), one("d", 0.530, 1.160, 4), kRule, false);
  expect_machine_moved(less, SpeedupVerdict::better, "moved in the framework's favour");
  // Its mirror: both faster, LibTorch by more (the speedup fell by 10%): the framework's faster is unsure too.
  const Comparison less_mirror = compare_runs(info("d"), one("d", 0.530, 1.160, 4), info("a"), base, kRule, false);
  EXPECT_EQ(less_mirror.problems[0].find(ImplKind::framework)->time->cause, UnsureCause::reference_moved);
  // ... while a framework faster by more than LibTorch (the speedup rose past the threshold) keeps its verdict.
  const Comparison faster = compare_runs(info("c"), one("c", 0.454, 0.788, 3), info("a"), base, kRule, false);
  EXPECT_EQ(faster.problems[0].find(ImplKind::framework)->time->verdict, Verdict::faster);
}

// The speedup held while only one side moved by the rule: its reason names that side (it said "both got slower").
TEST(Match, SpeedupHeldNamesTheSideThatMoved) {
  const Shape s = {4096, 4096};
  auto one = [&](const std::string& commit, double fw_ms, double torch_ms, uint64_t seed) {
    RunResults r = run(commit, "2026-11-27T10:00:00Z", "NVIDIA H100 80GB HBM3");
    r.problems = {problem("add", Category{"element"}, s, DType::f32, fw_ms, torch_ms, seed, 100, 0.002)};
    return r;
  };
  // Framework +6% (slower by the rule), LibTorch +2% (same): the speedup -3.8%, within 5%.
  const Comparison c = compare_runs(info("a"), one("a", 0.100, 0.120, 1), info("b"), one("b", 0.106, 0.1224, 2), kRule,
                                    false);
  const ProblemDelta& p = c.problems[0];
  ASSERT_EQ(p.find(ImplKind::framework)->time->verdict, Verdict::slower);
  ASSERT_EQ(p.find(ImplKind::torch)->time->verdict, Verdict::same);
  ASSERT_EQ(p.speedup->verdict, SpeedupVerdict::same);
  EXPECT_EQ(p.speedup->why, "the framework got slower; LibTorch's time held");
  // The mirror: faster, named the same way.
  const Comparison m = compare_runs(info("b"), one("b", 0.106, 0.1224, 2), info("a"), one("a", 0.100, 0.120, 1), kRule,
                                    false);
  EXPECT_EQ(m.problems[0].speedup->why, "the framework got faster; LibTorch's time held");
  // LibTorch +6% (slower by the rule), the framework +2% (same): named from LibTorch's side.
  const Comparison t = compare_runs(info("a"), one("a", 0.100, 0.120, 1), info("b"), one("b", 0.102, 0.1272, 2), kRule,
                                    false);
  ASSERT_EQ(t.problems[0].find(ImplKind::framework)->time->verdict, Verdict::same);
  ASSERT_EQ(t.problems[0].find(ImplKind::torch)->time->verdict, Verdict::slower);
  ASSERT_EQ(t.problems[0].speedup->verdict, SpeedupVerdict::same);
  EXPECT_EQ(t.problems[0].speedup->why, "LibTorch got slower; the framework's time held");
}

TEST(Match, BrokenAndFixedResults) {
  RunResults a = suite("a", "2026-11-20T01:00:00Z", 1), b = suite("b", "2026-11-21T01:00:00Z", 2);
  b.problems[1].impls[0] = failed_impl(ImplKind::framework, Status::incorrect, "output 0 element 3: 1.5 vs 1.25");
  a.problems[3].impls[0] = failed_impl(ImplKind::framework, Status::failed, "CUDA error: out of memory");
  const Comparison c = compare_runs(info("a"), a, info("b"), b, kRule, false);
  const ImplDelta* gelu = c.problems[1].find(ImplKind::framework);
  EXPECT_EQ(gelu->status_change, StatusChange::broke);
  EXPECT_FALSE(gelu->time.has_value());
  EXPECT_EQ(gelu->message, "output 0 element 3: 1.5 vs 1.25");
  EXPECT_EQ(c.problems[3].find(ImplKind::framework)->status_change, StatusChange::fixed);
  EXPECT_EQ(regression_ids(c), std::vector<std::string>{"activation/gelu/fp32/4096x4096"});
  EXPECT_FALSE(c.problems[1].speedup.has_value());
}

TEST(Match, ARerunConfirmsOrClearsTheFlags) {
  const RunResults base = suite("a", "2026-11-20T01:00:00Z", 1);
  const RunResults cur = suite("b", "2026-11-21T01:00:00Z", 2, 1.25);
  RunResults still = suite("b", "2026-11-21T02:00:00Z", 3, 1.25), gone = suite("b", "2026-11-21T02:00:00Z", 4);
  still.problems.resize(1), gone.problems.resize(1);  // the re-run has only relu

  Comparison held = compare_runs(info("a"), base, info("b"), cur, kRule, false);
  apply_rerun(held, base, info("r"), still);
  EXPECT_TRUE(has_regression(held));
  EXPECT_EQ(held.problems[0].find(ImplKind::framework)->rerun_time->verdict, Verdict::slower);

  Comparison flaky = compare_runs(info("a"), base, info("b"), cur, kRule, false);
  apply_rerun(flaky, base, info("r"), gone);
  EXPECT_FALSE(has_regression(flaky));
  EXPECT_EQ(flagged_ids(flaky).size(), 1u);  // still listed as flagged, not as a regression

  RunResults empty = gone;
  empty.problems.clear();
  Comparison missing = compare_runs(info("a"), base, info("b"), cur, kRule, false);
  apply_rerun(missing, base, info("r"), empty);
  EXPECT_TRUE(has_regression(missing));  // not re-run: it stands
  EXPECT_TRUE(missing.problems[0].find(ImplKind::framework)->rerun_missing);
}

TEST(Match, BenchmarkFilterSelectsExactlyTheFlaggedProblems) {
  EXPECT_EQ(benchmark_filter({}), "");
  EXPECT_EQ(benchmark_filter({"activation/relu/fp32/4096x4096", "norm/layer_norm/bf16/32x128x768"}),
            "^(activation/relu/fp32/4096x4096|norm/layer_norm/bf16/32x128x768)(/|$)");
  EXPECT_EQ(benchmark_filter({"a/b.c/fp32/1"}), "^(a/b\\.c/fp32/1)(/|$)");
  // What Google Benchmark matches: the run name, with the suffixes UseManualTime and Iterations add
  // (the H100's nightly re-run found nothing with a '$' right after the id).
  const std::regex f(benchmark_filter({"activation/relu/fp32/4096x4096"}));
  EXPECT_TRUE(std::regex_search("activation/relu/fp32/4096x4096/iterations:1/manual_time", f));
  EXPECT_TRUE(std::regex_search("activation/relu/fp32/4096x4096", f));
  EXPECT_FALSE(std::regex_search("activation/relu/fp32/4096x40960/iterations:1/manual_time", f));
  // Over the limit: whole ops.
  EXPECT_EQ(benchmark_filter({"activation/relu/fp32/1", "activation/relu/bf16/2", "element/add/fp32/3"}, 2),
            "^(activation/relu/|element/add/)");
}

TEST(Match, GeomeanChangePerCategory) {
  RunResults a = run("a", "2026-11-20T01:00:00Z"), b = run("b", "2026-11-21T01:00:00Z");
  a.problems = {problem("add", Category{"element"}, {4096}, DType::f32, 1.0, 1.0, 1),
                problem("mul", Category{"element"}, {4096}, DType::f32, 1.1, 1.0, 2)};
  b.problems = {problem("add", Category{"element"}, {4096}, DType::f32, 1.1, 1.0, 1),
                problem("mul", Category{"element"}, {4096}, DType::f32, 1.0, 1.0, 2)};
  const Comparison c = compare_runs(info("a"), a, info("b"), b, kRule, false);
  const auto cats = category_changes(c);
  ASSERT_EQ(cats.size(), 1u);
  EXPECT_EQ(cats[0].category, Category{"element"});
  EXPECT_NEAR(*cats[0].framework_ratio, 1.0, 1e-9);  // +10% and -9.09% cancel
  EXPECT_NEAR(*cats[0].torch_ratio, 1.0, 1e-9);
  EXPECT_EQ(cats[0].slower, 1);
  EXPECT_EQ(cats[0].faster, 1);
}

// --- writers -----------------------------------------------------------------------------------------------

Comparison slower_relu() {
  const RunResults a = suite("aaa", "2026-11-20T01:00:00Z", 1), b = suite("bbb", "2026-11-21T03:04:05Z", 2, 1.25, 0.8);
  return compare_runs(info("base/ops_a.json"), a, info("cur/ops_b.json"), b, kRule, false);
}

TEST(Writers, ConsoleListsWhatChangedRegressionsFirst) {
  std::ostringstream os;
  write_console(slower_relu(), os);
  const std::string out = os.str();
  const auto relu = out.find("SLOWER   activation/relu/fp32/4096x4096"), add = out.find("faster   element/add/fp32/4096x4096");
  ASSERT_NE(relu, std::string::npos) << out;
  ASSERT_NE(add, std::string::npos) << out;
  EXPECT_LT(relu, add);
  EXPECT_NE(out.find("result: 1 regression of the framework"), std::string::npos) << out;
}

TEST(Writers, MarkdownStatesTheRuleAndTheLists) {
  std::ostringstream os;
  write_markdown(slower_relu(), os);
  const std::string md = os.str();
  for (const char* s : {"# opbench comparison: bbb against aaa", "**Outcome: 1 regression of the framework**",
                        "## The rule", "Mann–Whitney U", "## Change per category", "## Regressions: the framework got slower",
                        "| activation/relu/fp32/4096x4096 | framework |", "## LibTorch and vendor libraries",
                        "| element/add/fp32/4096x4096 | torch |", "LibTorch got faster"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
}

TEST(Writers, JsonCarriesVerdictsFlagsAndTheRerunFilter) {
  const nlohmann::json j = to_json(slower_relu());
  EXPECT_EQ(j.at("schema"), "opbench-compare");
  EXPECT_EQ(j.at("regression"), true);
  EXPECT_EQ(j.at("flagged"), nlohmann::json::array({"activation/relu/fp32/4096x4096"}));
  EXPECT_EQ(j.at("rerun_filter"), "^(activation/relu/fp32/4096x4096)(/|$)");
  EXPECT_EQ(j.at("summary").at("framework").at("slower"), 1);
  EXPECT_EQ(j.at("summary").at("torch").at("faster"), 1);
  EXPECT_EQ(j.at("results").size(), 8u);  // 4 problems x (framework, LibTorch)
  const auto& r0 = j.at("results").at(0);
  EXPECT_EQ(r0.at("time").at("verdict"), "slower");
  EXPECT_NEAR(r0.at("time").at("change").get<double>(), 0.25, 0.02);
  EXPECT_EQ(j.at("categories").size(), 3u);
}

TEST(Writers, FilesAreNamedAfterTheCurrentRun) {
  const Comparison c = slower_relu();
  EXPECT_EQ(report_stem(c), "compare_20261121-030405");
  const fs::path dir = fs::temp_directory_path() / ("opbench_compare_" + std::to_string(::getpid()));
  opbench::reports::remove_tree(dir.string());
  const auto paths = write_comparison(c, dir.string(), true, true);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "compare_20261121-030405.md"));
  EXPECT_TRUE(fs::exists(dir / "compare_20261121-030405.json"));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().filename().string()[0], '.') << "temporary left";
  opbench::reports::remove_tree(dir.string());
}

// --- reading reports, finding a baseline ---------------------------------------------------------------

void save(const RunResults& r, const fs::path& p) { std::ofstream(p) << reports::to_json(r).dump(1); }

TEST(Baseline, LoadRefusesOtherSchemasAndBrokenFiles) {
  const fs::path dir = fs::temp_directory_path() / ("opbench_load_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "old.json") << R"({"schema_version": 1, "context": {}, "results": []})";
  std::ofstream(dir / "broken.json") << "{ not json";
  try {
    load_report((dir / "old.json").string());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_report((dir / "broken.json").string()), InputError);
  EXPECT_THROW(load_report((dir / "absent.json").string()), InputError);
  opbench::reports::remove_tree(dir.string());
}

TEST(Baseline, ChoosesTheComparableReportWithMostProblemsInCommonThenTheNewest) {
  const fs::path dir = fs::temp_directory_path() / ("opbench_find_" + std::to_string(::getpid()));
  opbench::reports::remove_tree(dir.string());
  fs::create_directories(dir);
  const RunResults cur = suite("cur", "2026-11-22T00:00:00Z", 9);
  RunResults partial = suite("p", "2026-11-21T00:00:00Z", 1);
  partial.problems.resize(2);
  save(partial, dir / "ops_20261121-000000.json");                            // newest, 2 in common
  save(suite("full", "2026-11-19T00:00:00Z", 2), dir / "ops_20261119-000000.json");  // 4 in common
  save(suite("full2", "2026-11-20T00:00:00Z", 3), dir / "ops_20261120-000000.json"); // 4, newer: chosen
  save(suite("x", "2026-11-21T05:00:00Z", 4, 1, 1, "NVIDIA A100-SXM4-80GB"), dir / "ops_20261121-050000.json");
  RunResults tf32 = suite("t", "2026-11-21T06:00:00Z", 5);
  tf32.context.tf32 = true;
  save(tf32, dir / "ops_20261121-060000.json");
  save(cur, dir / "ops_20261122-000000.json");  // the current run itself
  std::ofstream(dir / "ops_20261123-000000.json") << "{}";  // unreadable: skipped

  const auto choice = find_baseline({dir.string()}, cur, (dir / "ops_20261122-000000.json").string(), false);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(fs::path(choice->path).filename(), "ops_20261120-000000.json");
  EXPECT_EQ(choice->shared, 4);
  const auto any_gpu = find_baseline({dir.string()}, suite("c", "2026-11-22T00:00:00Z", 9, 1, 1, "NVIDIA A100-SXM4-80GB"),
                                     "elsewhere.json", false);
  ASSERT_TRUE(any_gpu.has_value());
  EXPECT_EQ(fs::path(any_gpu->path).filename(), "ops_20261121-050000.json");
  EXPECT_FALSE(find_baseline({(dir / "nope").string()}, cur, "c.json", false).has_value());
  opbench::reports::remove_tree(dir.string());
}

TEST(Baseline, FindsTheBestNInOrder) {
  const fs::path dir = fs::temp_directory_path() / ("opbench_findn_" + std::to_string(::getpid()));
  opbench::reports::remove_tree(dir.string());
  fs::create_directories(dir);
  const RunResults cur = suite("cur", "2026-11-22T00:00:00Z", 9);
  save(suite("a", "2026-11-19T00:00:00Z", 2), dir / "ops_20261119-000000.json");
  save(suite("b", "2026-11-20T00:00:00Z", 3), dir / "ops_20261120-000000.json");
  save(suite("c", "2026-11-21T00:00:00Z", 4), dir / "ops_20261121-000000.json");
  const auto two = find_baselines({dir.string(), dir.string()}, cur, "cur.json", false, 2);  // a folder twice: once
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(fs::path(two[0].path).filename(), "ops_20261121-000000.json");
  EXPECT_EQ(fs::path(two[1].path).filename(), "ops_20261120-000000.json");
  EXPECT_EQ(find_baselines({dir.string()}, cur, "cur.json", false, 10).size(), 3u);
  opbench::reports::remove_tree(dir.string());
}

// Two processes of the same code: one measured relu at 1.00, the other 6% slower (a between-process
// shift, as the H100 shows on small kernels). A current run in the slow state is "slower" against the
// lucky process alone, and not against the two pooled; a real 20% regression stays slower.
TEST(Baseline, PoolingTwoBaselineProcessesAbsorbsTheShiftBetweenThem) {
  const RunResults lucky = suite("a", "2026-11-20T01:00:00Z", 1);
  const RunResults other = suite("a", "2026-11-20T02:00:00Z", 2, 1.06);
  const RunResults cur = suite("a", "2026-11-20T03:00:00Z", 3, 1.06);
  const Comparison alone = compare_runs(info("lucky"), lucky, info("cur"), cur, kRule, false);
  EXPECT_EQ(alone.problems[0].find(ImplKind::framework)->time->verdict, Verdict::slower);

  RunResults pooled = lucky;
  pool_baselines(pooled, {other});
  const TimeStats& t = *pooled.problems[0].find(ImplKind::framework)->pure;
  EXPECT_EQ(t.samples, 40);
  EXPECT_EQ(t.samples_ms.size(), 40u);
  EXPECT_EQ(t.stop_reason, "pooled: the samples of 2 reports");
  EXPECT_GT(t.median_ms, lucky.problems[0].impls[0].pure->median_ms);
  EXPECT_LT(t.median_ms, other.problems[0].impls[0].pure->median_ms);
  const Comparison both = compare_runs(info("lucky"), pooled, info("cur"), cur, kRule, false);
  EXPECT_NE(both.problems[0].find(ImplKind::framework)->time->verdict, Verdict::slower);
  EXPECT_FALSE(has_regression(both));

  const RunResults regressed = suite("b", "2026-11-21T03:00:00Z", 4, 1.20);
  const Comparison real = compare_runs(info("lucky"), pooled, info("cur"), regressed, kRule, false);
  EXPECT_EQ(real.problems[0].find(ImplKind::framework)->time->verdict, Verdict::slower);
}

TEST(Baseline, PoolingSkipsResultsAPoolReportLacksOrFailed) {
  RunResults base = suite("a", "2026-11-20T01:00:00Z", 1);
  RunResults other = suite("a", "2026-11-20T02:00:00Z", 2);
  other.problems.resize(1);                                                      // relu only
  other.problems[0].impls[1] = failed_impl(ImplKind::torch, Status::failed, "x");  // its LibTorch failed
  const TimeStats torch_before = *base.problems[0].impls[1].pure;
  pool_baselines(base, {other});
  EXPECT_EQ(base.problems[0].impls[0].pure->samples, 40);                  // pooled
  EXPECT_EQ(base.problems[0].impls[1].pure->samples, torch_before.samples);  // unchanged
  EXPECT_EQ(base.problems[0].impls[1].pure->median_ms, torch_before.median_ms);
  EXPECT_EQ(base.problems[1].impls[0].pure->samples, 20);                  // not in the pool report
}

// --- the committed reports the CLI test uses ---------------------------------------------------------------

struct DataFile {
  const char* name;
  RunResults run;
};

std::vector<DataFile> data_files() {
  RunResults rerun_ok = suite("bbb222", "2026-11-21T04:00:00Z", 300), rerun_slow = suite("bbb222", "2026-11-21T04:00:00Z", 400, 1.25);
  rerun_ok.problems.resize(1), rerun_slow.problems.resize(1);
  return {{"compare_baseline.json", suite("aaa111", "2026-11-20T03:00:00Z", 100)},
          {"compare_current_same.json", suite("bbb222", "2026-11-21T03:00:00Z", 200)},
          {"compare_current_slower.json", suite("bbb222", "2026-11-21T03:00:00Z", 200, 1.25, 0.8)},
          {"compare_rerun_same.json", rerun_ok},
          {"compare_rerun_slower.json", rerun_slow},
          {"compare_other_gpu.json", suite("ccc333", "2026-11-21T03:00:00Z", 500, 1, 1, "NVIDIA A100-SXM4-80GB")}};
}

TEST(CompareData, CommittedReportsMatchTheirGenerator) {
  for (const DataFile& f : data_files()) {
    const fs::path path = fs::path(OPBENCH_TEST_DATA) / f.name;
    if (std::getenv("OPBENCH_UPDATE_GOLDEN")) {
      std::ofstream(path) << reports::to_json(f.run).dump(1) << "\n";
      continue;
    }
    // The measured fields, not the bytes: derived figures may change format without touching these.
    const RunResults got = load_report(path.string());
    ASSERT_EQ(got.problems.size(), f.run.problems.size()) << f.name;
    EXPECT_EQ(got.context.device.name, f.run.context.device.name);
    EXPECT_EQ(got.context.git_commit, f.run.context.git_commit);
    for (std::size_t i = 0; i < got.problems.size(); ++i) {
      EXPECT_EQ(got.problems[i].id(), f.run.problems[i].id());
      for (ImplKind k : {ImplKind::framework, ImplKind::torch})
        EXPECT_NEAR(got.problems[i].find(k)->pure->median_ms, f.run.problems[i].find(k)->pure->median_ms, 1e-9)
            << f.name << " " << got.problems[i].id() << " (OPBENCH_UPDATE_GOLDEN=1 rewrites the data)";
    }
  }
}

TEST(CompareData, TheCommittedPairsGiveTheVerdictsTheCliTestExpects) {
  const auto files = data_files();
  const Comparison same = compare_runs(info("b"), files[0].run, info("c"), files[1].run, kRule, false);
  EXPECT_FALSE(has_regression(same));
  const Comparison slower = compare_runs(info("b"), files[0].run, info("c"), files[2].run, kRule, false);
  EXPECT_EQ(regression_ids(slower), std::vector<std::string>{"activation/relu/fp32/4096x4096"});
}

}  // namespace
