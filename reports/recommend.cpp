#include "reports/recommend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/format.hpp"
#include "reports/roofline.hpp"

namespace opbench::reports {
namespace {

// The rules read the framework and LibTorch rows of each problem; a missing row reads as untimed.
struct Row {
  const ProblemRow* row;
  const ProblemResult* p;
  Status status;  // the framework's verdict
  ImplRow fw, torch;
};

std::vector<Row> rows_of(const ReportRows& rows) {
  std::vector<Row> out;
  for (const ProblemRow& r : rows.problems) {
    Row x{&r, r.problem, r.verdict, {}, {}};
    if (const ImplRow* fw = r.framework()) x.fw = *fw;
    if (const ImplRow* t = r.torch()) x.torch = *t;
    out.push_back(x);
  }
  return out;
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

Recommendation incorrect_references(const std::vector<Row>& rows) {
  Recommendation rec{"Reference results beyond tolerance of the fp64 oracle",
                     "These LibTorch or vendor outputs differ from the fp64 oracle beyond the op's tolerance. It is "
                     "not the framework's ❌, but their column cannot be trusted, and no speedup is reported against "
                     "an incorrect LibTorch. Check the op's tolerance derivation for this dtype and shape, or report "
                     "the library's result upstream.",
                     {}};
  for (const auto& r : rows) {
    for (const ImplRow& m : r.row->impls) {
      if (m.impl == ImplKind::framework || m.verdict != Status::incorrect) continue;
      const Verification& v = m.result->verify;
      std::string item = fmt::format("{} [{}]:", problem_label(*r.p), impl_label(m.impl));
      if (v.checked) {
        item += fmt::format(" max abs err {} vs the fp64 oracle (rel L2 {}); {} elements beyond atol {:g} + rtol "
                            "{:g}·|ref|",
                            fmt_err(v.oracle_max_abs_err), fmt_err(v.oracle_rel_l2_err), v.mismatches,
                            v.tolerance.atol, v.tolerance.rtol);
        if (!v.first_mismatch.empty()) item += "; first: " + v.first_mismatch;
      }
      if (!m.result->message.empty()) item += "; " + m.result->message;
      rec.items.push_back(item);
    }
  }
  return rec;
}

Recommendation failed(const std::vector<Row>& rows) {
  Recommendation rec{"Implementations that produced no result",
                     "These rows failed (or, for the framework, are not supported), so their problems have no "
                     "speedup or no reference. A vendor library that refuses a problem is not listed: that is no "
                     "fault.",
                     {}};
  for (const auto& r : rows) {
    if (!r.p->find(ImplKind::framework))
      rec.items.push_back(problem_label(*r.p) + " [framework]: no result recorded");
    for (const ImplRow& m : r.row->impls) {
      const bool listed = m.verdict == Status::failed ||
                          (m.verdict == Status::not_supported && m.impl == ImplKind::framework);
      if (!listed) continue;
      const std::string& msg = m.result->message;
      rec.items.push_back(fmt::format("{} [{}]: {}{}{}", problem_label(*r.p), impl_label(m.impl),
                                      status_name(m.verdict), msg.empty() ? "" : ": ", msg));
    }
  }
  return rec;
}

Recommendation slower_than_torch(const std::vector<Row>& rows) {
  const double goal = goal_speedup();
  std::map<Category, std::vector<const Row*>> by_category;
  int n = 0;
  for (const auto& r : rows)
    if (r.status == Status::ok && r.fw.speedup && *r.fw.speedup < goal) by_category[r.p->category].push_back(&r), ++n;
  Recommendation rec{fmt::format("Slower than {:.2f}x LibTorch", goal),
                     fmt::format("{} correct problem(s) run below {:.2f}x LibTorch's speed, the project's floor. "
                                 "Grouped by category, slowest first:", n, goal),
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
      fmt::format("These problems finish in under {:.0f} µs, where the fixed cost of a kernel (its launch on the GPU, "
                  "a wave's ramp-up and drain) is most of the time: neither roof limits them, so a faster kernel "
                  "body gains little. Fuse them with neighbouring ops or capture call sequences in CUDA graphs.",
                  kLaunchFloorMs * 1000),
      {}};
  // One item per op and dtype: a category run has dozens of small problems of each op.
  std::map<std::pair<std::string, int>, std::vector<const Row*>> groups;
  std::vector<std::pair<std::string, int>> order;
  for (const auto& r : rows) {
    if (r.status != Status::ok || r.fw.bound != Bound::launch) continue;
    const auto key = std::make_pair(r.p->op, int(r.p->dtype));
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& g = groups[key];
    const Row& r = *g.front();
    if (g.size() == 1) {
      rec.items.push_back(fmt::format("{} ({}): {} ms, {} GB/s = {} of its roof; LibTorch {} ms", problem_label(*r.p),
                                      size_class_name(r.p->size_class), fmt_ms(r.fw.time_ms), fmt_gbps(r.fw.gbps),
                                      fmt_pct(r.fw.pct_of_roof), r.torch.timed() ? fmt_ms(r.torch.time_ms) : kDash));
      continue;
    }
    std::string shapes;
    double t_lo = 1e300, t_hi = 0, th_lo = 1e300, th_hi = 0;
    for (const Row* x : g) {
      shapes += (shapes.empty() ? "" : ", ") + shape_str(x->p->shape);
      t_lo = std::min(t_lo, x->fw.time_ms), t_hi = std::max(t_hi, x->fw.time_ms);
      if (x->torch.timed()) th_lo = std::min(th_lo, x->torch.time_ms), th_hi = std::max(th_hi, x->torch.time_ms);
    }
    std::string item = fmt::format("{} {}: {} problems ({}): {}–{} ms", r.p->op, dtype_name(r.p->dtype), g.size(),
                                   shapes, fmt_ms(t_lo), fmt_ms(t_hi));
    if (th_hi > 0) item += fmt::format("; LibTorch {}–{} ms", fmt_ms(th_lo), fmt_ms(th_hi));
    rec.items.push_back(item);
  }
  return rec;
}

Recommendation low_bandwidth(const ReportRows& report, const std::vector<Row>& rows) {
  const DeviceInfo& d = report.context().device;
  Recommendation rec{
      "Low bandwidth on large memory-bound problems",
      fmt::format("Problems this large can saturate device memory, yet these reach under {:.0f}% of their memory roof "
                  "(the measured copy, {} GB/s, for ops that write as much as they read; the measured read sweep, "
                  "{} GB/s, for ops that only read); where LibTorch reaches more on the same problem there is "
                  "headroom. Check for 16-byte vector loads, enough blocks in flight for the {} SMs, and extra "
                  "passes over the data. Below a few hundred MB the roof sweeps themselves fall short of their "
                  "roofs (the ramp-up and drain of a cold start): \"at its size\" is the share of what they "
                  "reach moving the same bytes.",
                  kLowBandwidthRoofPct, fmt_gbps(d.measured_copy_gbps), fmt_gbps(d.measured_read_gbps), d.sm_count),
      {}};
  for (const auto& r : rows) {
    const ProblemResult& p = *r.p;
    if (r.status != Status::ok || (p.size_class != SizeClass::large && p.size_class != SizeClass::very_large))
      continue;
    // Compute-bound rows are judged by TFLOP/s, launch-bound ones by the rule above.
    if (r.fw.bound != Bound::memory || !r.fw.pct_of_roof || *r.fw.pct_of_roof >= kLowBandwidthRoofPct) continue;
    std::string item = fmt::format("{} ({}): {} GB/s = {} of its roof ({} GB/s)", problem_label(p),
                                   size_class_name(p.size_class), fmt_gbps(r.fw.gbps), fmt_pct(r.fw.pct_of_roof),
                                   fmt_gbps(r.row->placement.memory.gbps));
    if (r.fw.pct_of_size_roof) item += fmt::format(", {} at its size", fmt_pct(r.fw.pct_of_size_roof));
    if (r.torch.pct_of_roof)
      item += fmt::format("; LibTorch {} GB/s = {}", fmt_gbps(r.torch.gbps), fmt_pct(r.torch.pct_of_roof));
    rec.items.push_back(item);
  }
  return rec;
}

// An op with a twin (OpDef::twin_of: add_bcast_row's is add) reads less than its twin on the same
// output shape, so it should never take longer.
Recommendation slow_broadcasts(const std::vector<Row>& rows) {
  Recommendation rec{"Broadcasts slower than their same-shape twin",
                     "A broadcast operand is one row or column reused across the output, so these ops move fewer "
                     "bytes than the plain op of the same shape; taking longer points at the broadcast index "
                     "arithmetic or at uncoalesced reads of the broadcast operand.",
                     {}};
  for (const auto& b : rows) {
    if (b.p->twin_of.empty() || b.status != Status::ok || !b.fw.timed()) continue;
    const std::string& base = b.p->twin_of;
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
      const std::pair<const char*, const std::optional<TimeStats>*> modes[] = {
          {"pure", &impl.pure}, {"real", &impl.real}, {"graph", &impl.graph}};
      for (const auto& [mode, stats] : modes) {
        if (!*stats || (*stats)->reliable) continue;
        const TimeStats& t = **stats;
        rec.items.push_back(fmt::format("{} [{}, {}]: median {} ms, cv {} over {} samples ({} outliers removed)",
                                        problem_label(*r.p), impl_label(impl.impl), mode, fmt_ms(t.median_ms),
                                        fmt_pct(t.cv * 100), t.samples, t.outliers));
      }
    }
  }
  return rec;
}

// The correct, timed rows for which `above(problem, row)` holds, grouped by op, dtype and implementation in
// the order they first appear: the shared shape of the "above a peak" explanations below.
struct RowGroup {
  std::string key;  // "op dtype [implementation]"
  std::vector<std::pair<const ProblemResult*, const ImplRow*>> members;
  // The least and greatest of f over the members.
  template <class F>
  std::pair<double, double> range(F&& f) const {
    double lo = 1e300, hi = -1e300;
    for (const auto& [p, m] : members) lo = std::min(lo, f(*p, *m)), hi = std::max(hi, f(*p, *m));
    return {lo, hi};
  }
  std::string count() const { return fmt::format("{} problem{}", members.size(), members.size() == 1 ? "" : "s"); }
};

template <class Above>
std::vector<RowGroup> group_rows(const ReportRows& report, Above&& above) {
  std::vector<RowGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const ProblemRow& row : report.problems)
    for (const ImplRow& m : row.impls) {
      if (m.verdict != Status::ok || !above(*row.problem, m)) continue;
      const std::string key =
          fmt::format("{} {} [{}]", row.problem->op, dtype_name(row.problem->dtype), impl_label(m.impl));
      auto [it, fresh] = index.try_emplace(key, groups.size());
      if (fresh) groups.push_back({key, {}});
      groups[it->second].members.emplace_back(row.problem, &m);
    }
  return groups;
}

// Rows faster than the memory's theoretical peak: their outputs fit in L2, and a kernel ends when its
// stores reach L2, so with a clean cold L2 part of its writes reach HBM after it (notes/methodology.md,
// "Roofs").
Recommendation above_theoretical(const ReportRows& report) {
  const DeviceInfo& d = report.context().device;
  Recommendation rec{
      "Bandwidth above the theoretical peak: outputs still in L2",
      fmt::format("These results count more bytes per second than the memory's theoretical {} GB/s. Their outputs "
                  "fit in the {:.0f} MB L2: a kernel ends when its stores reach L2, and after the clean cold flush "
                  "part of them is written back to HBM only after it ends (ncu's gpu__time_duration ends at the same "
                  "point). Their times are what the calls take; their GB/s and % of roof count bytes not yet written, "
                  "so compare them by time, or at sizes whose outputs exceed L2.",
                  fmt_gbps(d.theoretical_gbps), d.l2_mb),
      {}};
  if (d.theoretical_gbps <= 0) return rec;
  const auto groups = group_rows(report, [&](const ProblemResult&, const ImplRow& m) {
    return m.gbps && *m.gbps > d.theoretical_gbps;
  });
  for (const RowGroup& g : groups) {
    const auto [gbps_lo, gbps_hi] = g.range([](const ProblemResult&, const ImplRow& m) { return *m.gbps; });
    const auto [out_lo, out_hi] = g.range([](const ProblemResult& p, const ImplRow&) { return p.bytes_written / 1e6; });
    rec.items.push_back(fmt::format("{}: {}, {}–{} GB/s, outputs {:.1f}–{:.1f} MB", g.key, g.count(),
                                    fmt_gbps(gbps_lo), fmt_gbps(gbps_hi), out_lo, out_hi));
  }
  return rec;
}

// Rows with more FLOPs per second than the datasheet peak of the unit their dtype names: the implementation did
// the work on another unit (the framework's fp32 GEMMs as 3xTF32 on TF32 tensor cores). With the kernel the
// group's first row ran.
Recommendation above_compute_peak(const ReportRows& report) {
  const RunContext& c = report.context();
  Recommendation rec{
      "Compute above the dtype's peak: another unit did the work",
      "These results count more FLOP/s than the datasheet peak of the unit their dtype names (fp32 without --tf32: the "
      "FMA pipes). The implementation did the work on another unit; the framework's fp32 GEMMs run as 3xTF32, three "
      "TF32 tensor-core products of split operands at fp32 accuracy (kernels/matmul/matmul.hpp). Their times are what "
      "the calls take; their TFLOP/s, % of peak and % of roof count the problem's FLOPs against the dtype's unit.",
      {}};
  const auto peak = [&](const ProblemResult& p) { return peak_tflops(c.device, p.dtype, c.tf32); };
  const auto groups = group_rows(report, [&](const ProblemResult& p, const ImplRow& m) {
    return peak(p) > 0 && m.tflops && *m.tflops > peak(p);
  });
  for (const RowGroup& g : groups) {
    const auto [lo, hi] = g.range([](const ProblemResult&, const ImplRow& m) { return *m.tflops; });
    const auto& [p, m] = g.members.front();
    const std::string kernel = m->result ? m->result->kernel : std::string();
    rec.items.push_back(fmt::format("{}: {}, {:.1f}–{:.1f} TFLOP/s against a {:.1f} TFLOP/s peak{}", g.key,
                                    g.count(), lo, hi, peak(*p), kernel.empty() ? "" : "; kernel: " + kernel));
  }
  return rec;
}

}  // namespace

std::vector<Recommendation> recommend(const ReportRows& report) {
  const std::vector<Row> rows = rows_of(report);
  std::vector<Recommendation> out;
  add_if_any(out, incorrect(rows));
  add_if_any(out, incorrect_references(rows));
  add_if_any(out, failed(rows));
  add_if_any(out, slower_than_torch(rows));
  add_if_any(out, launch_bound(rows));
  add_if_any(out, low_bandwidth(report, rows));
  add_if_any(out, slow_broadcasts(rows));
  add_if_any(out, unreliable(rows));
  add_if_any(out, above_theoretical(report));
  add_if_any(out, above_compute_peak(report));
  return out;
}

}  // namespace opbench::reports
