#include "src/dist/shard.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "src/model/stats.hpp"

namespace opbench::dist {
namespace {

bool parse_int(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::atoi(s.c_str());
  return true;
}

// Figures of an H100-class GPU; they only set the ratio between memory-bound and compute-bound problems.
constexpr double kBandwidthBytesPerMs = 3.0e12 / 1e3;
constexpr double kLaunchFloorMs = 0.005;       // a launch plus the event pair around it
constexpr double kSamplesPerProblem = 300;     // ~3 implementations x up to 100 samples
constexpr double kProblemOverheadMs = 150;     // setup, fills, the gate with its fp64 oracle, warm-up, budgets

double peak_flops_per_ms(DType t) {
  // Dense peaks: fp32 on CUDA cores; fp16/bf16 on tensor cores (the matmul problems that have FLOPs).
  return (t == DType::f16 || t == DType::bf16 ? 800e12 : 60e12) / 1e3;
}

}  // namespace

std::optional<ShardSpec> parse_shard(const std::string& s) {
  const auto slash = s.find('/');
  ShardSpec spec;
  if (slash == std::string::npos || !parse_int(s.substr(0, slash), spec.index) ||
      !parse_int(s.substr(slash + 1), spec.count) || spec.count < 1 || spec.index >= spec.count)
    return std::nullopt;
  return spec;
}

std::vector<int> assign_shards(const std::vector<CostItem>& items, int shards) {
  std::vector<int> shard_of(items.size(), 0);
  if (shards <= 1) return shard_of;
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a].cost != items[b].cost) return items[a].cost > items[b].cost;
    if (items[a].id != items[b].id) return items[a].id < items[b].id;
    return a < b;  // the same id twice (a caller's mistake) still gets a fixed order
  });
  std::vector<double> load(std::size_t(shards), 0.0);
  for (std::size_t i : order) {
    // min_element returns the first minimum: ties go to the lowest shard index.
    const auto s = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[i] = int(s);
    load[s] += std::max(items[i].cost, 0.0);
  }
  return shard_of;
}

double estimate_problem_ms(double bytes, double flops, DType dtype) {
  const double kernel_ms = kLaunchFloorMs + bytes / kBandwidthBytesPerMs + flops / peak_flops_per_ms(dtype);
  return kProblemOverheadMs + kSamplesPerProblem * kernel_ms;
}

std::map<std::string, double> measured_costs(const RunResults& previous) {
  std::map<std::string, double> out;
  for (const ProblemResult& p : previous.problems) {
    double ms = p.wall_ms;
    if (ms <= 0) {
      // A report without wall times: the time its implementations spent sampling.
      for (const ImplResult& r : p.impls)
        for (const auto* t : {&r.pure, &r.real, &r.graph})
          if (*t) ms += (*t)->median_ms * double((*t)->samples + (*t)->outliers + (*t)->throttled_samples);
    }
    // A replicated report has the problem once per GPU: keep the largest, a safe bound for any of them.
    if (ms > 0) out[p.id()] = std::max(out[p.id()], ms);
  }
  return out;
}

std::vector<double> blend_costs(const std::vector<std::string>& ids, const std::vector<double>& estimates,
                                const std::map<std::string, double>& measured) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (auto it = measured.find(ids[i]); it != measured.end() && estimates[i] > 0)
      ratios.push_back(it->second / estimates[i]);
  const double scale = ratios.empty() ? 1.0 : median_of(ratios);
  std::vector<double> cost(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto it = measured.find(ids[i]);
    cost[i] = it != measured.end() ? it->second : estimates[i] * scale;
  }
  return cost;
}

}  // namespace opbench::dist
