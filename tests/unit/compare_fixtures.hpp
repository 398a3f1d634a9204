// Synthetic runs for the comparison and history tests: timing samples drawn from a seeded generator of
// our own (xorshift + Box-Muller, so the same numbers on every standard library), summarized the way
// the timer summarizes them, and whole reports built from the C++ structs.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::compare::testing {

class Draws {
 public:
  explicit Draws(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double uniform() {  // (0, 1)
    s_ ^= s_ << 13, s_ ^= s_ >> 7, s_ ^= s_ << 17;
    return (double(s_ >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform()); }

 private:
  uint64_t s_;
};

// n samples around `median` ms with a relative spread `noise` (lognormal: timings are skewed).
inline std::vector<double> draw(double median, double noise, int n, uint64_t seed) {
  Draws d(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * std::exp(noise * d.normal()));
  return v;
}

inline double quantile(std::vector<double> s, double q) {
  std::sort(s.begin(), s.end());
  const double pos = q * double(s.size() - 1);
  const std::size_t lo = std::size_t(pos), hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
}

// The statistics the timer writes for these samples.
inline TimeStats stats_of(const std::vector<double>& samples, double sm_clock_mhz = 1980) {
  TimeStats t;
  if (samples.empty()) return t;
  t.samples_ms = samples;
  t.samples = int(samples.size());
  t.median_ms = quantile(samples, 0.5), t.q1_ms = quantile(samples, 0.25), t.q3_ms = quantile(samples, 0.75);
  t.min_ms = *std::min_element(samples.begin(), samples.end());
  t.max_ms = *std::max_element(samples.begin(), samples.end());
  double sum = 0, var = 0;
  for (double x : samples) sum += x;
  t.mean_ms = sum / double(samples.size());
  for (double x : samples) var += (x - t.mean_ms) * (x - t.mean_ms);
  t.stddev_ms = samples.size() > 1 ? std::sqrt(var / double(samples.size() - 1)) : 0;
  t.cv = t.stddev_ms / t.mean_ms;
  t.reliable = t.cv <= 0.10;
  t.sm_clock_mhz = sm_clock_mhz;
  t.stop_reason = "precision";
  return t;
}

inline TimeStats timing(double median, double noise, int n, uint64_t seed) { return stats_of(draw(median, noise, n, seed)); }

inline ImplResult impl(ImplKind k, double median, double noise, int n, uint64_t seed) {
  ImplResult r;
  r.impl = k;
  r.pure = timing(median, noise, n, seed);
  r.verify.checked = r.verify.correct = true;
  r.verify.tolerance = {1e-5, 1.3e-6};
  return r;
}

inline ImplResult failed_impl(ImplKind k, Status s, const std::string& why) {
  ImplResult r;
  r.impl = k, r.status = s, r.message = why;
  r.verify.checked = s == Status::incorrect;
  return r;
}

// A problem with a framework and a LibTorch row (medians in ms; a 1% spread, 40 samples).
inline ProblemResult problem(const std::string& op, Category c, Shape shape, DType t, double fw_ms, double torch_ms,
                             uint64_t seed, int n = 40, double noise = 0.01) {
  ProblemResult p;
  p.op = op, p.category = c, p.shape = std::move(shape), p.dtype = t, p.size_class = SizeClass::large;
  double elems = 1;
  for (auto d : p.shape) elems *= double(d);
  p.bytes = 2 * elems * 4;
  p.impls = {impl(ImplKind::framework, fw_ms, noise, n, seed), impl(ImplKind::torch, torch_ms, noise, n, seed + 7777)};
  return p;
}

inline RunResults run(const std::string& commit, const std::string& timestamp,
                      const std::string& gpu = "NVIDIA H100 80GB HBM3", const std::string& driver = "580.65.06") {
  RunResults r;
  DeviceInfo& d = r.context.device;
  d.name = gpu, d.driver_version = driver;
  d.compute_major = 9, d.compute_minor = 0, d.sm_count = 132, d.sm_clock_mhz = 1980, d.mem_clock_mhz = 2619;
  d.bus_width_bits = 5120, d.l2_mb = 50, d.memory_gb = 79.1, d.theoretical_gbps = 3352.3;
  d.measured_copy_gbps = 3010.5, d.measured_read_gbps = 3190.25;
  d.runtime_version = "13.0", d.cublas_version = "13.0.0", d.cudnn_version = "9.19.0", d.torch_version = "2.11.0";
  r.context.command_line = "bench_ops --category activation,element,reduction --dtype fp32";
  r.context.git_commit = commit, r.context.timestamp = timestamp;
  r.context.timing_mode = "pure", r.context.l2_mode = "cold";
  r.context.l2_flush = "write then read a 100 MB buffer";
  r.context.stopping = "median known to 0.5% (95% confidence), 10-1000 samples, 0.5 s per problem";
  return r;
}

// The four problems of the committed CLI reports (tests/data/compare_*.json), each timed with 20
// samples. `relu_factor` scales the framework's relu, `add_torch_factor` LibTorch's add; `seed` picks
// the draws (another seed: the same code measured again).
inline RunResults suite(const std::string& commit, const std::string& timestamp, uint64_t seed, double relu_factor = 1,
                        double add_torch_factor = 1, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  RunResults r = run(commit, timestamp, gpu);
  const Shape s = {4096, 4096};
  r.problems = {problem("relu", Category{"activation"}, s, DType::f32, 0.0452 * relu_factor, 0.0461, seed + 1, 20),
                problem("gelu", Category{"activation"}, s, DType::f32, 0.0468, 0.0470, seed + 2, 20),
                problem("add", Category{"element"}, s, DType::f32, 0.0671, 0.0680 * add_torch_factor, seed + 3, 20),
                problem("sum", Category{"reduction"}, s, DType::f32, 0.0231, 0.0240, seed + 4, 20)};
  return r;
}

}  // namespace opbench::compare::testing
