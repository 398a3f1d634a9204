#include "src/timing/timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <stdexcept>

#include "src/core/cuda_check.hpp"
#include "src/model/stats.hpp"
#include "src/timing/graph.hpp"
#include "src/timing/sampler.hpp"
#include "src/timing/stopping.hpp"

namespace opbench {

TimingConfig fast_timing(TimingConfig c) {
  c.warmup_ms = 10;
  c.rel_precision = 0.02;
  c.min_samples = 8;
  c.max_samples = 150;
  c.min_time_ms = 1;
  c.timeout_ms = 100;
  return c;
}

std::string describe_flush(const TimingConfig& c) {
  if (!c.l2_cold) return "none (warm)";
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return "write then read a buffer of 2 x L2 before each sample, outside the timed region";
  }
  return fmt::format("write then read a {:.0f} MiB buffer (2 x L2) before each sample, outside the timed region",
                     2.0 * l2 / (1 << 20));
}

std::string describe_stopping(const TimingConfig& c) {
  return fmt::format(
      "interleaved rounds until every median's 95% confidence interval (order statistics) is within "
      "±{:g}%, after at least {} samples and {:g} ms; at most {} rounds or {:g} ms per mode; samples whose SM "
      "clock is below {:g}% of the maximum are dropped; a problem whose set is more than {:g}x off its warm-up "
      "estimate, or whose ratio to the first implementation moves between the halves of the run, is measured "
      "again whole (up to {} times)",
      100 * c.rel_precision, c.min_samples, c.min_time_ms, c.max_samples, c.timeout_ms, 100 * c.clock_threshold,
      kEstimateFactor, 2);
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxRemeasures = 2;
constexpr double kGraphWorkMs = 0.5;  // work per replay when graph_launches is 0
constexpr int kMinGraphLaunches = 10, kMaxGraphLaunches = 1000;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// One sample of implementation j in the mode being measured.
using SampleOne = std::function<Sample(std::size_t)>;

struct Rounds {
  std::vector<SampleSet> sets;  // by implementation
  StopReason reason = StopReason::keep_going;
  Stability stability;
  int remeasured = 0;
  std::vector<std::string> remeasure_why;
};

// The loop of one problem: warm-up, interleaved rounds, stability check, again if unstable.
class ProblemTimer {
 public:
  ProblemTimer(const std::vector<Launch>& launches, const TimingConfig& c, Sampler& sampler,
               std::vector<LaunchState>& pure_state, double max_clock_mhz, const std::vector<std::string>& names)
      : launches_(launches), c_(c), sampler_(sampler), pure_state_(pure_state), names_(names) {
    clock_.max_clock_mhz = max_clock_mhz;
    clock_.threshold = c.clock_threshold;
    rule_ = {c.rel_precision, c.min_samples, c.max_samples, c.min_time_ms, c.timeout_ms};
  }

  // Pure samples of every implementation in turn for warmup_ms and at least two rounds: the clocks come
  // up after the host-side work before it (the gate, allocations). Returns each implementation's
  // estimate, the median of its samples in the second half of the warm-up (0 if none was kept).
  std::vector<double> warm_up() {
    const std::size_t k = launches_.size();
    std::vector<std::vector<double>> seen(k);
    const auto t0 = Clock::now();
    for (int round = 0; round < 2 || ms_since(t0) < c_.warmup_ms; ++round)
      for (std::size_t j = 0; j < k; ++j) {
        const Sample x = sampler_.device(launches_[j], pure_state_[j]);
        if (x.kept) seen[j].push_back(x.ms);
      }
    std::vector<double> est(k, 0.0);
    for (std::size_t j = 0; j < k; ++j)
      if (!seen[j].empty()) est[j] = median_of({seen[j].begin() + long(seen[j].size() / 2), seen[j].end()});
    return est;
  }

  // Measures the `active` implementations with `one` until the stopping rule says so; the whole
  // measurement (warm-up included) is taken again when it is unstable, up to kMaxRemeasures times.
  // Only pure samples are comparable with the warm-up's estimates (`check_estimates`).
  Rounds measure(const std::vector<std::size_t>& active, const SampleOne& one, bool check_estimates) {
    Rounds r;
    for (int attempt = 0;; ++attempt) {
      const std::vector<double> est = warm_up();
      r.sets.assign(launches_.size(), SampleSet{});
      r.reason = sample_rounds(active, one, r.sets);
      std::vector<std::vector<double>> eff;
      std::vector<double> estimates;
      std::vector<std::string> names;
      for (std::size_t j : active) {
        eff.push_back(r.sets[j].effective());
        estimates.push_back(check_estimates ? est[j] : 0.0);
        names.push_back(name(j));
      }
      r.stability = check_stability(eff, estimates, c_.rel_precision, names);
      r.remeasured = attempt;
      if (r.stability.stable || attempt == kMaxRemeasures) return r;
      r.remeasure_why.push_back(r.stability.why);
    }
  }

  std::string name(std::size_t j) const {
    return j < names_.size() ? names_[j] : fmt::format("implementation {}", j);
  }

 private:
  StopReason sample_rounds(const std::vector<std::size_t>& active, const SampleOne& one, std::vector<SampleSet>& sets) {
    std::vector<std::vector<double>> eff(active.size());
    const auto t0 = Clock::now();
    for (int rounds = 1;; ++rounds) {
      for (std::size_t a = 0; a < active.size(); ++a) {
        const std::size_t j = active[a];
        const Sample x = one(j);
        if (x.kept)
          sets[j].add(x.ms, x.clock_mhz, clock_);
        else
          ++sets[j].handshake_dropped;
        eff[a] = sets[j].effective();
      }
      const StopReason why = decide_stop(eff, rounds, ms_since(t0), rule_);
      if (why != StopReason::keep_going) return why;
    }
  }

  const std::vector<Launch>& launches_;
  const TimingConfig& c_;
  Sampler& sampler_;
  std::vector<LaunchState>& pure_state_;
  const std::vector<std::string>& names_;
  ClockRule clock_;
  StopRule rule_;
};

// The statistics of implementation j, with the reason sampling stopped and everything that qualifies it.
std::optional<TimeStats> finish(const Rounds& r, std::size_t j, const LaunchState* st, const TimingConfig& c,
                                double max_clock_mhz) {
  const SampleSet& set = r.sets[j];
  if (set.taken.empty()) return std::nullopt;
  TimeStats t = summarize(set, c.outlier_filter, c.rel_precision);
  const std::vector<double> eff = set.effective();
  const MedianInterval mi = median_interval(eff);
  std::string why = mi.exists ? fmt::format("{}: median ±{:.2f}% after {} samples", stop_reason_name(r.reason),
                                            100 * mi.rel_half_width(), eff.size())
                              : fmt::format("{}: {} samples, too few for a confidence interval",
                                            stop_reason_name(r.reason), eff.size());
  if (r.reason != StopReason::precision) why += fmt::format(" (target ±{:g}%)", 100 * c.rel_precision);
  if (r.remeasured > 0) {
    why += fmt::format("; measured again {}x:", r.remeasured);
    for (const std::string& w : r.remeasure_why) why += " " + w + ";";
    why.pop_back();
  }
  if (!r.stability.stable) why += "; still unstable: " + r.stability.why;
  if (set.mostly_throttled())
    why += fmt::format("; SM clock below {:g}% of its {:.0f} MHz maximum on {} of {} samples: all kept",
                       100 * c.clock_threshold, max_clock_mhz, set.throttled(), set.taken.size());
  if (set.handshake_dropped > 0)
    why += fmt::format("; {} samples dropped (the launch was not queued before the stream was released)",
                       set.handshake_dropped);
  const bool gap = st && st->handshake == Handshake::none && c.hold_stream;
  if (st && !c.hold_stream) why += "; timed as issued: host launch gaps included";
  if (st && st->handshake == Handshake::delay)
    why += "; synchronizes inside its launch: timed behind a delay kernel, not the handshake";
  if (gap) why += "; synchronizes on every call: includes host time after its synchronization";
  t.stop_reason = why;
  t.remeasured = r.remeasured;
  t.reliable = t.reliable && r.stability.stable && !gap;
  return t;
}

int graph_launches_for(double estimate_ms, const TimingConfig& c) {
  if (c.graph_launches > 0) return c.graph_launches;
  if (estimate_ms <= 0) return kMaxGraphLaunches;
  return int(std::clamp(std::lround(kGraphWorkMs / estimate_ms), long(kMinGraphLaunches), long(kMaxGraphLaunches)));
}

void add_notes(std::vector<std::string>& to, const std::vector<std::string>& from, const char* mode) {
  for (const std::string& n : from) to.push_back(fmt::format("{}: {}", mode, n));
}

}  // namespace

std::vector<Measurement> measure(const std::vector<Launch>& launches, const TimingConfig& c, TimingResources& res,
                                 cudaStream_t s, const std::vector<std::string>& names) {
  const std::size_t k = launches.size();
  std::vector<Measurement> out(k);
  if (k == 0) return out;
  if (c.graph && (s == nullptr || s == cudaStreamLegacy))
    throw std::invalid_argument("graph timing needs a created stream: the legacy default stream cannot be captured");

  Sampler sampler(res, c.l2_cold, s);
  std::vector<LaunchState> pure_state(k);
  for (std::size_t j = 0; j < k; ++j) {
    pure_state[j].enqueue_ms = sampler.prime(launches[j]);
    if (!c.hold_stream) pure_state[j].handshake = Handshake::none;
  }
  ProblemTimer timer(launches, c, sampler, pure_state, res.max_clock_mhz(), names);
  std::vector<std::size_t> all(k);
  for (std::size_t j = 0; j < k; ++j) all[j] = j;

  if (c.pure) {
    const Rounds r = timer.measure(all, [&](std::size_t j) { return sampler.device(launches[j], pure_state[j]); }, true);
    for (std::size_t j = 0; j < k; ++j) out[j].pure = finish(r, j, &pure_state[j], c, res.max_clock_mhz());
  }

  if (c.graph) {
    const std::vector<double> est = timer.warm_up();
    std::vector<std::optional<CapturedGraph>> graphs(k);
    std::vector<std::size_t> captured;
    for (std::size_t j = 0; j < k; ++j) {
      try {
        graphs[j].emplace(launches[j], graph_launches_for(est[j], c), s);
        out[j].graph_launches = graphs[j]->launches();
        captured.push_back(j);
      } catch (const GraphCaptureError& e) {
        out[j].graph_error = e.what();
      }
    }
    std::vector<LaunchState> graph_state(k);
    auto one = [&](std::size_t j) {
      const CapturedGraph& g = *graphs[j];
      Sample x = sampler.device([&g](cudaStream_t st) { g.replay(st); }, graph_state[j]);
      x.ms /= g.launches();
      return x;
    };
    if (!captured.empty()) {
      const Rounds r = timer.measure(captured, one, false);
      for (std::size_t j : captured) out[j].graph = finish(r, j, &graph_state[j], c, res.max_clock_mhz());
    }
    for (std::size_t j = 0; j < k; ++j) add_notes(out[j].notes, graph_state[j].notes, "graph");
  }

  if (c.real) {
    const Rounds r = timer.measure(all, [&](std::size_t j) { return sampler.host(launches[j]); }, false);
    for (std::size_t j = 0; j < k; ++j) out[j].real = finish(r, j, nullptr, c, res.max_clock_mhz());
  }

  for (std::size_t j = 0; j < k; ++j) {
    add_notes(out[j].notes, pure_state[j].notes, "pure");
    const bool asked = c.pure;
    if (asked && !out[j].pure)
      out[j].notes.push_back("pure: no sample kept (every launch was queued after the stream was released)");
  }
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  return out;
}

}  // namespace opbench
