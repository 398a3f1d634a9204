#include "src/compare/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/compare/rank_stats.hpp"

namespace opbench::compare {
namespace {

std::size_t sample_count(const TimeStats& t) { return t.samples_ms.size(); }

std::string pct(double fraction) { return fmt::format("{:+.1f}%", fraction * 100); }

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::unsure: return "unsure";
  }
  return "?";
}

const char* unsure_cause_name(UnsureCause c) {
  switch (c) {
    case UnsureCause::none: return "none";
    case UnsureCause::not_timed: return "not_timed";
    case UnsureCause::no_samples: return "no_samples";
    case UnsureCause::few_samples: return "few_samples";
    case UnsureCause::clocks_differ: return "clocks_differ";
    case UnsureCause::overlap: return "overlap";
    case UnsureCause::test_too_weak: return "test_too_weak";
    case UnsureCause::not_significant: return "not_significant";
    case UnsureCause::unreliable: return "unreliable";
    case UnsureCause::wide_interval: return "wide_interval";
    case UnsureCause::below_floor: return "below_floor";
    case UnsureCause::reference_moved: return "reference_moved";
  }
  return "?";
}

const char* unsure_cause_text(UnsureCause c) {
  switch (c) {
    case UnsureCause::none: return "";
    case UnsureCause::not_timed: return "not timed on both sides";
    case UnsureCause::no_samples: return "a report has no samples";
    case UnsureCause::few_samples: return "too few samples";
    case UnsureCause::clocks_differ: return "SM clocks differ";
    case UnsureCause::overlap: return "a change beyond the threshold, but the [q1, q3] intervals overlap";
    case UnsureCause::test_too_weak: return "a change beyond the threshold, but too few samples for the U test";
    case UnsureCause::not_significant: return "a change beyond the threshold the U test does not support";
    case UnsureCause::unreliable: return "a change below the threshold, but a timing is marked unreliable";
    case UnsureCause::wide_interval: return "a change below the threshold, but too noisy to rule out one above it";
    case UnsureCause::below_floor: return "a change beyond the threshold, but smaller in time than medians move between processes";
    case UnsureCause::reference_moved:
      return "a change beyond the threshold, but LibTorch's time moved the same way in the same run and the "
             "speedup held or moved in the framework's favour";
  }
  return "?";
}

TimingDelta judge(const TimeStats& base, const TimeStats& cur, const Rule& rule) {
  TimingDelta d;
  if (!(base.median_ms > 0) || !(cur.median_ms > 0)) {
    d.cause = UnsureCause::not_timed;
    d.reason = "not timed on both sides";
    return d;
  }
  d.ratio = cur.median_ms / base.median_ms;
  const double slow_at = 1 + rule.threshold, fast_at = 1 / slow_at;

  // Evidence we cannot weigh: say so rather than guess.
  if (sample_count(base) == 0 || sample_count(cur) == 0) {
    d.cause = UnsureCause::no_samples;
    d.reason = fmt::format("{} report has no samples (samples_ms): re-run it with this bench_ops",
                           sample_count(base) == 0 ? "the baseline" : "the current");
    return d;
  }
  if (int(sample_count(base)) < rule.min_samples || int(sample_count(cur)) < rule.min_samples) {
    d.cause = UnsureCause::few_samples;
    d.reason = fmt::format("too few samples ({} vs {}; {} needed a side)", sample_count(base), sample_count(cur),
                           rule.min_samples);
    return d;
  }
  if (base.sm_clock_mhz > 0 && cur.sm_clock_mhz > 0) {
    const double clock = cur.sm_clock_mhz / base.sm_clock_mhz - 1;
    // Clocks apart explain a change in their own direction only (a lower clock slows a kernel, never speeds it
    // up): faster at a lower clock, or slower at a higher one, goes on to the tests below. A kernel that draws
    // more power runs at lower clocks by itself (the fp32 GEMMs on tensor cores: ~1800 against ~1975 MHz).
    const bool against_the_clock = (clock < 0 && d.ratio <= fast_at) || (clock > 0 && d.ratio >= slow_at);
    if (std::fabs(clock) > rule.max_clock_diff && !against_the_clock) {
      d.cause = UnsureCause::clocks_differ;
      d.reason = fmt::format("SM clocks differ: {:.0f} vs {:.0f} MHz ({}); the change may be the clock's",
                             base.sm_clock_mhz, cur.sm_clock_mhz, pct(clock));
      return d;
    }
  }

  const Interval mb = median_interval(base.samples_ms, rule.confidence);
  const Interval mc = median_interval(cur.samples_ms, rule.confidence);
  d.ratio_lo = mc.lo / mb.hi;
  d.ratio_hi = mc.hi / mb.lo;
  d.intervals_overlap = !(cur.q1_ms > base.q3_ms || cur.q3_ms < base.q1_ms);
  const UTest u = mann_whitney_u(base.samples_ms, cur.samples_ms);
  d.p_value = u.p_value;

  if (d.ratio >= slow_at || d.ratio <= fast_at) {
    const std::string change = pct(d.change());
    const double moved_ms = std::fabs(cur.median_ms - base.median_ms);
    if (moved_ms < rule.min_change_ms) {
      d.cause = UnsureCause::below_floor;
      d.reason = fmt::format("{} but only {:.2f} us, below the {:.2g} us a median moves between processes", change,
                             moved_ms * 1e3, rule.min_change_ms * 1e3);
    } else if (d.intervals_overlap) {
      d.cause = UnsureCause::overlap;
      d.reason = fmt::format("{} but the [q1, q3] intervals overlap", change);
    } else if (u_test_min_p(int(sample_count(base)), int(sample_count(cur))) >= rule.alpha) {
      d.cause = UnsureCause::test_too_weak;
      d.reason = fmt::format("{} but too few samples for the U test to reach p < {}", change, rule.alpha);
    } else if (u.p_value >= rule.alpha) {
      d.cause = UnsureCause::not_significant;
      d.reason = fmt::format("{} but the U test does not support it (p = {:.2g})", change, u.p_value);
    } else {
      d.verdict = d.ratio > 1 ? Verdict::slower : Verdict::faster;
    }
    return d;
  }
  // A change below the threshold is "same" only when the measurement could have seen one that large.
  if (!base.reliable || !cur.reliable) {
    d.cause = UnsureCause::unreliable;
    d.reason = fmt::format("{}, but the {} timing is marked unreliable (cv {:.0f}%)", pct(d.change()),
                           !base.reliable ? "baseline" : "current", 100 * (!base.reliable ? base.cv : cur.cv));
  } else if (d.ratio_lo < fast_at || d.ratio_hi > slow_at) {
    d.cause = UnsureCause::wide_interval;
    d.reason = fmt::format("{}, but the ratio's interval [{:.3f}, {:.3f}] does not rule out a {:.0f}% change",
                           pct(d.change()), d.ratio_lo, d.ratio_hi, rule.threshold * 100);
  } else {
    d.verdict = Verdict::same;
  }
  return d;
}

std::string rule_text(const Rule& r) {
  const double t = r.threshold * 100;
  return fmt::format(
      "The change is the ratio of medians, current / baseline. **slower**: ratio ≥ {0:.4g} (+{1:.3g}%), "
      "**faster**: ratio ≤ 1/{0:.4g} ({2:.3g}%), in both cases only when the [q1, q3] intervals of the two "
      "timings do not overlap, a two-sided Mann–Whitney U test on the samples gives p < {3}, and the medians "
      "differ by at least {7:.3g} µs. **same**: the "
      "{4:.0f}% interval of the ratio (from order-statistic intervals of both medians) lies within "
      "[1/{0:.4g}, {0:.4g}] and neither timing is marked unreliable. **unsure**: everything else, with the "
      "reason (fewer than {5} samples a side, mean SM clocks more than {6:.3g}% apart unless the change goes "
      "against them — faster at the lower clock or slower at the higher —, overlapping "
      "intervals, a change the U test does not support, a change smaller in time than {7:.3g} µs, or an interval "
      "too wide to rule out a {1:.3g}% change). A framework change that is slower or faster by these tests is "
      "**unsure** too when LibTorch's time on the same problem is slower or faster the same way and the speedup "
      "stays within [1/{0:.4g}, {0:.4g}] or moves in the framework's favour (LibTorch moved more): both sides "
      "moved with the machine, not with the code.",
      1 + r.threshold, t, -100 * (1 - 1 / (1 + r.threshold)), r.alpha, r.confidence * 100, r.min_samples,
      r.max_clock_diff * 100, r.min_change_ms * 1e3);
}

}  // namespace opbench::compare
