#include "src/timing/stopping.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "src/model/stats.hpp"

namespace opbench {

bool ClockRule::throttled(double clock_mhz) const {
  // An unknown clock (0) is not evidence of throttling: the sample is kept.
  return max_clock_mhz > 0 && clock_mhz > 0 && clock_mhz < threshold * max_clock_mhz;
}

void SampleSet::add(double ms, double clock_mhz, const ClockRule& rule) {
  taken.push_back({ms, clock_mhz, rule.throttled(clock_mhz)});
}

int SampleSet::throttled() const {
  return int(std::count_if(taken.begin(), taken.end(), [](const TakenSample& t) { return t.throttled; }));
}

bool SampleSet::mostly_throttled() const { return 2 * throttled() > int(taken.size()); }

std::vector<double> SampleSet::effective() const {
  const bool all = mostly_throttled();
  std::vector<double> v;
  v.reserve(taken.size());
  for (const TakenSample& t : taken)
    if (all || !t.throttled) v.push_back(t.ms);
  return v;
}

double SampleSet::mean_clock_mhz() const {
  const bool all = mostly_throttled();
  double sum = 0;
  int n = 0;
  for (const TakenSample& t : taken)
    if ((all || !t.throttled) && t.clock_mhz > 0) sum += t.clock_mhz, ++n;
  return n ? sum / n : 0.0;
}

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::keep_going: return "keep_going";
    case StopReason::precision: return "precision";
    case StopReason::max_samples: return "max_samples";
    case StopReason::timeout: return "timeout";
  }
  return "?";
}

StopReason decide_stop(const std::vector<std::vector<double>>& sets, int rounds, double elapsed_ms,
                       const StopRule& rule) {
  if (sets.empty()) return StopReason::precision;
  bool precise = elapsed_ms >= rule.min_time_ms;
  for (const std::vector<double>& s : sets) {
    if (!precise) break;
    precise = int(s.size()) >= rule.min_samples && median_interval(s).rel_half_width() <= rule.rel_precision;
  }
  if (precise) return StopReason::precision;
  if (rounds >= rule.max_samples) return StopReason::max_samples;
  if (elapsed_ms >= rule.timeout_ms && (rounds >= rule.min_samples || elapsed_ms >= rule.hard_timeout_ms))
    return StopReason::timeout;
  return StopReason::keep_going;
}

namespace {

std::string name_of(const std::vector<std::string>& names, std::size_t j) {
  return j < names.size() ? names[j] : fmt::format("impl {}", j);
}

}  // namespace

Stability check_stability(const std::vector<std::vector<double>>& sets, const std::vector<double>& estimates,
                          double rel_precision, const std::vector<std::string>& names) {
  Stability out;
  auto fail = [&](std::string why) {
    if (!out.why.empty()) out.why += "; ";
    out.why += why;
    out.stable = false;
  };
  for (std::size_t j = 0; j < sets.size(); ++j) {
    const double est = j < estimates.size() ? estimates[j] : 0.0;
    if (est <= 0 || sets[j].empty()) continue;
    const double ratio = median_of(sets[j]) / est;
    if (ratio > kEstimateFactor || ratio < 1 / kEstimateFactor)
      fail(fmt::format("{} measured {:.2f}x its warm-up estimate", name_of(names, j), ratio));
  }
  if (sets.empty()) return out;
  auto halves = [](const std::vector<double>& s) {
    const std::size_t h = s.size() / 2;
    return std::make_pair(median_interval({s.begin(), s.begin() + long(h)}),
                          median_interval({s.begin() + long(h), s.end()}));
  };
  const std::vector<double>& base = sets[0];
  if (int(base.size()) < 2 * kMinHalfSamples) return out;
  const auto [b1, b2] = halves(base);
  for (std::size_t j = 1; j < sets.size(); ++j) {
    if (int(sets[j].size()) < 2 * kMinHalfSamples) continue;
    const auto [x1, x2] = halves(sets[j]);
    if (b1.median <= 0 || b2.median <= 0 || x1.median <= 0) continue;
    const double r1 = x1.median / b1.median, r2 = x2.median / b2.median;
    const double moved = std::abs(r2 / r1 - 1);
    // The four relative half-widths added up: the ratio moved further than any combination of the
    // halves' own 95% intervals allows. (Added in quadrature they would give a 95% test, which sends
    // about one problem in ten with two libraries back by chance alone: a whole re-measurement each.)
    double noise = 0;
    for (const MedianInterval* m : {&b1, &b2, &x1, &x2}) noise += m->rel_half_width();
    if (moved > std::max(2 * rel_precision, noise))
      fail(fmt::format("{} / {} moved from {:.3f} to {:.3f} between the halves of the run", name_of(names, j),
                       name_of(names, 0), r1, r2));
  }
  return out;
}

TimeStats summarize(const SampleSet& set, bool outlier_filter, double rel_precision) {
  const std::vector<double> eff = set.effective();
  TimeStats st = compute_stats(eff, outlier_filter);
  st.throttled_samples = set.throttled();
  st.sm_clock_mhz = set.mean_clock_mhz();
  st.reliable = !eff.empty() && median_interval(eff).rel_half_width() <= rel_precision;
  return st;
}

}  // namespace opbench
