#include "reports/recommend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/format.hpp"
#include "reports/metrics.hpp"

namespace opbench::reports {
namespace {

// Every row the rules look at, with its framework figures computed once.
struct Row {
  const ProblemResult* p;
  Status status;
  Metrics fw;     // framework row (time 0 when it has none)
  Metrics torch;  // LibTorch row
};

std::vector<Row> rows_of(const RunResults& results) {
  std::vector<Row> rows;
  for (const auto& p : results.problems) {
    Row r{&p, problem_status(p), {}, {}};
    if (const ImplResult* fw = p.find(ImplKind::framework)) r.fw = compute_metrics(results.context, p, *fw);
    if (const ImplResult* t = p.find(ImplKind::torch)) r.torch = compute_metrics(results.context, p, *t);
    rows.push_back(r);
  }
  return rows;
}

void add_if_any(std::vector<Recommendation>& out, Recommendation r) {
  if (!r.items.empty()) out.push_back(std::move(r));
}

Recommendation incorrect(const std::vector<Row>& rows) {
  Recommendation rec{"Fix incorrect results first",
                     "The framework's output differs from LibTorch beyond tolerance on these problems; they are "
                     "graded ❌ whatever their speed, and no timing of them means anything until they pass.",
                     {}};
  for (const auto& r : rows) {
    if (r.status != Status::incorrect) continue;
    const Verification& v = r.p->framework_verify();
    std::string item = problem_label(*r.p) + ":";
    if (v.checked) {
      item += fmt::format(" max abs err {} (rel {}) vs LibTorch, {} vs the fp64 oracle (rel L2 {}); {} elements "
                          "beyond atol {:g} + rtol {:g}·|ref|",
                          fmt_err(v.max_abs_err), fmt_err(v.max_rel_err), fmt_err(v.oracle_max_abs_err),
                          fmt_err(v.oracle_rel_l2_err), v.mismatches, v.tolerance.atol, v.tolerance.rtol);
      if (!v.first_mismatch.empty()) item += "; first: " + v.first_mismatch;
    }
    const ImplResult* fw = r.p->find(ImplKind::framework);
    if (fw && !fw->message.empty()) item += "; " + fw->message;
    rec.items.push_back(item);
  }
  return rec;
}

Recommendation failed(const std::vector<Row>& rows) {
  Recommendation rec{"Implementations that produced no result",
                     "These rows failed or are not supported, so their problems have no speedup or no reference.",
                     {}};
  for (const auto& r : rows) {
    if (!r.p->find(ImplKind::framework))
      rec.items.push_back(problem_label(*r.p) + " [framework]: no result recorded");
    for (const auto& impl : r.p->impls) {
      if (impl.status != Status::failed && impl.status != Status::not_supported) continue;
      rec.items.push_back(fmt::format("{} [{}]: {}{}{}", problem_label(*r.p), impl_name(impl.impl),
                                      status_name(impl.status), impl.message.empty() ? "" : ": ", impl.message));
    }
  }
  return rec;
}

Recommendation slower_than_torch(const std::vector<Row>& rows) {
  std::map<Category, std::vector<const Row*>> by_category;
  int n = 0;
  for (const auto& r : rows)
    if (r.status == Status::ok && r.fw.speedup && *r.fw.speedup < kSlowSpeedup)
      by_category[r.p->category].push_back(&r), ++n;
  Recommendation rec{fmt::format("Slower than {:.2f}x LibTorch", kSlowSpeedup),
                     fmt::format("{} correct problem(s) run below {:.2f}x LibTorch's speed, the project's floor. "
                                 "Grouped by category, slowest first:", n, kSlowSpeedup),
                     {}};
  for (auto& [cat, list] : by_category) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Row* a, const Row* b) { return *a->fw.speedup < *b->fw.speedup; });
    std::string item = fmt::format("{}:", category_name(cat));
    for (std::size_t i = 0; i < list.size(); ++i)
      item += fmt::format("{} {} {} ({} ms vs LibTorch {} ms)", i ? ";" : "", problem_label(*list[i]->p),
                          fmt_speedup(*list[i]->fw.speedup), fmt_ms(list[i]->fw.time_ms),
                          fmt_ms(list[i]->torch.time_ms));
    rec.items.push_back(item);
  }
  return rec;
}

Recommendation launch_bound(const std::vector<Row>& rows) {
  Recommendation rec{
      "Launch-bound small problems",
      fmt::format("These problems finish in under {:.0f} µs yet use under {:.0f}% of the measured copy bandwidth: "
                  "launch and tail latency dominate, not data movement, so a faster kernel body gains little. "
                  "Fuse them with neighbouring ops or capture call sequences in CUDA graphs.",
                  kLaunchBoundMs * 1000, kLaunchBoundCopyPct),
      {}};
  // One item per op and dtype: a category run has dozens of small problems of each op.
  std::map<std::pair<std::string, int>, std::vector<const Row*>> groups;
  std::vector<std::pair<std::string, int>> order;
  for (const auto& r : rows) {
    if (r.status != Status::ok || !r.fw.timed() || r.fw.time_ms >= kLaunchBoundMs) continue;
    if (!r.fw.copy_efficiency || *r.fw.copy_efficiency >= kLaunchBoundCopyPct) continue;
    const auto key = std::make_pair(r.p->op, int(r.p->dtype));
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& g = groups[key];
    const Row& r = *g.front();
    if (g.size() == 1) {
      rec.items.push_back(fmt::format("{} ({}): {} ms, {} GB/s = {} of measured copy; LibTorch {} ms",
                                      problem_label(*r.p), size_class_name(r.p->size_class), fmt_ms(r.fw.time_ms),
                                      fmt_gbps(r.fw.throughput_gbps), fmt_pct(r.fw.copy_efficiency),
                                      r.torch.timed() ? fmt_ms(r.torch.time_ms) : kDash));
      continue;
    }
    std::string shapes;
    double t_lo = 1e300, t_hi = 0, c_lo = 1e300, c_hi = 0, th_lo = 1e300, th_hi = 0;
    for (const Row* x : g) {
      shapes += (shapes.empty() ? "" : ", ") + shape_str(x->p->shape);
      t_lo = std::min(t_lo, x->fw.time_ms), t_hi = std::max(t_hi, x->fw.time_ms);
      c_lo = std::min(c_lo, *x->fw.copy_efficiency), c_hi = std::max(c_hi, *x->fw.copy_efficiency);
      if (x->torch.timed()) th_lo = std::min(th_lo, x->torch.time_ms), th_hi = std::max(th_hi, x->torch.time_ms);
    }
    std::string item = fmt::format("{} {}: {} problems ({}): {}–{} ms, {}–{} of measured copy", r.p->op,
                                   dtype_name(r.p->dtype), g.size(), shapes, fmt_ms(t_lo), fmt_ms(t_hi),
                                   fmt_pct(c_lo), fmt_pct(c_hi));
    if (th_hi > 0) item += fmt::format("; LibTorch {}–{} ms", fmt_ms(th_lo), fmt_ms(th_hi));
    rec.items.push_back(item);
  }
  return rec;
}

Recommendation low_bandwidth(const RunResults& results, const std::vector<Row>& rows) {
  const DeviceInfo& d = results.context.device;
  Recommendation rec{
      "Low bandwidth on large memory-bound problems",
      fmt::format("Problems this large can saturate device memory, yet these reach under {:.0f}% of the measured "
                  "copy bandwidth ({} GB/s); where LibTorch reaches more on the same problem there is headroom. "
                  "Check for 16-byte vector loads, enough blocks in flight for the {} SMs, and extra passes over "
                  "the data.",
                  kLowBandwidthCopyPct, fmt_gbps(d.measured_copy_gbps), d.sm_count),
      {}};
  for (const auto& r : rows) {
    const ProblemResult& p = *r.p;
    if (r.status != Status::ok || (p.size_class != SizeClass::large && p.size_class != SizeClass::very_large))
      continue;
    // Compute-bound rows (by the roofline; matmul when the peak is unknown) are judged by TFLOP/s instead.
    const std::string bound = bound_name(results.context, p);
    if (bound == "compute-bound" || (bound == "n/a" && p.category == Category{"matmul"})) continue;
    if (!r.fw.copy_efficiency || *r.fw.copy_efficiency >= kLowBandwidthCopyPct) continue;
    std::string item = fmt::format("{} ({}): {} GB/s = {} of measured copy", problem_label(p),
                                   size_class_name(p.size_class), fmt_gbps(r.fw.throughput_gbps),
                                   fmt_pct(r.fw.copy_efficiency));
    if (r.torch.copy_efficiency)
      item += fmt::format("; LibTorch {} GB/s = {}", fmt_gbps(r.torch.throughput_gbps),
                          fmt_pct(r.torch.copy_efficiency));
    rec.items.push_back(item);
  }
  return rec;
}

// "add_bcast_row" is the broadcast twin of "add": it reads a row instead of a whole second operand, so
// on the same output shape it should never take longer.
Recommendation slow_broadcasts(const std::vector<Row>& rows) {
  Recommendation rec{"Broadcasts slower than their same-shape twin",
                     "A broadcast operand is one row or column reused across the output, so these ops move fewer "
                     "bytes than the plain op of the same shape; taking longer points at the broadcast index "
                     "arithmetic or at uncoalesced reads of the broadcast operand.",
                     {}};
  for (const auto& b : rows) {
    const auto pos = b.p->op.find("_bcast");
    if (pos == std::string::npos || b.status != Status::ok || !b.fw.timed()) continue;
    const std::string base = b.p->op.substr(0, pos);
    for (const auto& t : rows) {
      if (t.p->op != base || t.p->shape != b.p->shape || t.p->dtype != b.p->dtype) continue;
      if (t.status != Status::ok || !t.fw.timed() || b.fw.time_ms <= t.fw.time_ms) continue;
      rec.items.push_back(fmt::format("{}: {} ms vs {} {} ms ({:.2f}x the time) while moving {:.1f} MB vs {:.1f} MB",
                                      problem_label(*b.p), fmt_ms(b.fw.time_ms), base, fmt_ms(t.fw.time_ms),
                                      b.fw.time_ms / t.fw.time_ms, b.p->bytes / 1e6, t.p->bytes / 1e6));
    }
  }
  return rec;
}

Recommendation unreliable(const std::vector<Row>& rows) {
  Recommendation rec{"Unreliable timings",
                     "The spread of these timings is above the reliability threshold; rerun them (more repetitions, "
                     "an idle GPU) before trusting their speedups.",
                     {}};
  for (const auto& r : rows) {
    for (const auto& impl : r.p->impls) {
      const std::pair<const char*, const std::optional<TimeStats>*> modes[] = {{"pure", &impl.pure},
                                                                                 {"real", &impl.real}};
      for (const auto& [mode, stats] : modes) {
        if (!*stats || (*stats)->reliable) continue;
        const TimeStats& t = **stats;
        rec.items.push_back(fmt::format("{} [{}, {}]: median {} ms, cv {} over {} samples ({} outliers removed)",
                                        problem_label(*r.p), impl_name(impl.impl), mode, fmt_ms(t.median_ms),
                                        fmt_pct(t.cv * 100), t.samples, t.outliers));
      }
    }
  }
  return rec;
}

}  // namespace

std::vector<Recommendation> recommend(const RunResults& results) {
  const std::vector<Row> rows = rows_of(results);
  std::vector<Recommendation> out;
  add_if_any(out, incorrect(rows));
  add_if_any(out, failed(rows));
  add_if_any(out, slower_than_torch(rows));
  add_if_any(out, launch_bound(rows));
  add_if_any(out, low_bandwidth(results, rows));
  add_if_any(out, slow_broadcasts(rows));
  add_if_any(out, unreliable(rows));
  return out;
}

}  // namespace opbench::reports
