// The rule that turns two timings of one result into a verdict: same, faster, slower or unsure.
//
// The change is the ratio of medians, current / baseline. Noise decides how much of it to believe
// (nvbench's robust compare: intervals that must separate; Google Benchmark's compare.py and asv: a
// Mann-Whitney U test on the samples; asv and nvbench: a minimum effect):
//
//   slower  ratio >= 1 + threshold,        the [q1, q3] intervals do not overlap, the U test on
//   faster  ratio <= 1 / (1 + threshold),  samples_ms gives p < alpha, and the medians differ by at
//                                          least min_change_ms (1 us: the timer's between-process floor)
//   same    the 95% interval of the ratio (from order-statistic intervals of the two medians) lies
//           inside [1 / (1 + threshold), 1 + threshold], and neither timing is marked unreliable
//   unsure  anything else, with the reason: too few samples, no samples in a report, SM clocks that
//           differ by more than max_clock_diff, overlapping intervals, a change the U test does not
//           support, or an interval too wide to rule out a change of the threshold's size. And, judged per
//           problem (compare_runs), a framework change that LibTorch's time on the same problem made too,
//           the same way and by the rule, while the speedup stayed within the threshold.
//
// Faster and slower are mirror images (ratio r one way is 1/r the other way), so swapping the two
// reports swaps faster and slower and nothing else.
#pragma once
#include <optional>
#include <string>

#include "opbench/result.hpp"

namespace opbench::compare {

enum class Verdict { same, faster, slower, unsure };
const char* verdict_name(Verdict v);

// Why a verdict is unsure, as a kind the reports can count (TimingDelta::reason has the figures).
enum class UnsureCause {
  none,             // the verdict is not unsure
  not_timed,        // a side has no timing
  no_samples,       // a report carries no samples_ms
  few_samples,      // fewer than Rule::min_samples on a side
  clocks_differ,    // mean SM clocks further apart than Rule::max_clock_diff
  overlap,          // a large change, but the [q1, q3] intervals overlap
  test_too_weak,    // a large change, but too few samples for the U test to reach alpha at all
  not_significant,  // a large change the U test does not support
  unreliable,       // a small change, but a timing is marked unreliable
  wide_interval,    // a small change, but the ratio's interval does not rule out a threshold-size one
  below_floor,      // a large relative change, but smaller in time than a median moves between processes
  reference_moved,  // the framework's change beyond the threshold, but LibTorch's time on the same problem moved
                    // the same way in the same run, as much or more (compare_runs: the machine's state)
};
const char* unsure_cause_name(UnsureCause c);   // "overlap", ...
const char* unsure_cause_text(UnsureCause c);   // "the [q1, q3] intervals overlap", ...

struct Rule {
  double threshold = 0.05;      // minimum effect: slower from a ratio of 1.05, faster from 1 / 1.05
  double alpha = 0.002;         // U test significance (asv's default: thousands of results are compared)
  int min_samples = 8;          // per side; below it neither the U test nor the intervals mean much
  double max_clock_diff = 0.05; // mean SM clocks of the two timings may differ by this fraction
  // Smallest change in time (ms) that can be slower or faster. The median of a small kernel moves
  // between processes (allocation addresses, the library's choices) by more than its samples spread
  // within one: on the H100, three back-to-back suites of one build had framework medians under 20 us
  // move by up to 0.9 us between processes that the pooled baseline and the re-run did not absorb (the
  // first-dim fp32 reductions; notes/methodology.md). A change smaller than this is not a verdict.
  double min_change_ms = 0.001;
  double confidence = 0.95;     // of each median's interval
};

// One implementation's timing, baseline against current.
struct TimingDelta {
  Verdict verdict = Verdict::unsure;
  double ratio = 0;                // current median / baseline median; 0 when not computed
  double ratio_lo = 0, ratio_hi = 0;  // the ratio's interval (0 when not computed)
  std::optional<double> p_value;   // Mann-Whitney U, two-sided
  bool intervals_overlap = true;   // [q1, q3] of the two timings
  UnsureCause cause = UnsureCause::none;
  std::string reason;              // why unsure, with the figures; empty for the other verdicts

  double change() const { return ratio > 0 ? ratio - 1 : 0; }  // +0.07: 7% slower
};

TimingDelta judge(const TimeStats& baseline, const TimeStats& current, const Rule& rule);

// The rule in words, with the settings filled in, for the reports.
std::string rule_text(const Rule& rule);

}  // namespace opbench::compare
