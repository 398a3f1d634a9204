#include "reports/rows.hpp"

#include <fmt/format.h>

#include "reports/format.hpp"

namespace opbench::reports {
namespace {

bool reliable(const ImplResult& r) {
  return (!r.pure || r.pure->reliable) && (!r.real || r.real->reliable) && (!r.graph || r.graph->reliable);
}

// Why a timed implementation has no speedup: the baseline is missing, or its answer is not one to
// measure against (a speedup over a wrong result rewards nothing).
std::string missing_baseline(const ImplRow* torch) {
  if (!torch) return "no LibTorch row";
  switch (torch->verdict) {
    case Status::incorrect: return "LibTorch incorrect: no speedup against a wrong result";
    case Status::failed: return "LibTorch failed";
    case Status::not_supported: return "LibTorch not supported";
    case Status::ok: break;
  }
  return "LibTorch not timed";
}

ImplRow impl_row(const RunContext& c, const ProblemResult& p, const Placement& pl, const ImplResult& r) {
  ImplRow m;
  m.result = &r;
  m.impl = r.impl;
  m.verdict = verdict(r);
  m.reliable = reliable(r);
  if (m.verdict == Status::ok || m.verdict == Status::incorrect) m.time_ms = r.time_ms();
  if (!m.timed()) return m;

  m.inference_speed = 1000.0 / m.time_ms;
  const double seconds = m.time_ms * 1e-3;
  if (p.bytes > 0) {
    m.gbps = p.bytes / seconds / 1e9;
    if (c.device.theoretical_gbps > 0) m.pct_of_theoretical = 100.0 * *m.gbps / c.device.theoretical_gbps;
    if (c.device.measured_copy_gbps > 0) m.pct_of_copy = 100.0 * *m.gbps / c.device.measured_copy_gbps;
  }
  if (p.flops > 0) {
    m.tflops = p.flops / seconds / 1e12;
    const double peak = peak_tflops(c.device, p.dtype, c.tf32);
    if (peak > 0) m.pct_of_peak = 100.0 * *m.tflops / peak;
  }
  // % of the roof the roofline puts the problem under, also for a launch-bound row: how far from it
  // the launch floor keeps it.
  if (pl.roof_bound == Bound::compute && m.tflops) m.pct_of_roof = 100.0 * *m.tflops / pl.compute.tflops;
  if (pl.roof_bound == Bound::memory && m.gbps) m.pct_of_roof = 100.0 * *m.gbps / pl.memory.gbps;
  if (pl.roof_bound == Bound::memory && m.gbps && pl.memory_at_size.gbps > 0)
    m.pct_of_size_roof = 100.0 * *m.gbps / pl.memory_at_size.gbps;
  if (m.time_ms < kLaunchFloorMs) m.bound = Bound::launch;
  else m.bound = pl.roof_bound;
  return m;
}

}  // namespace

Status verdict(const ImplResult& r) {
  if (r.status == Status::ok && r.verify.checked && !r.verify.correct) return Status::incorrect;
  return r.status;
}

std::string verdict_detail(const ImplResult& r) {
  std::string d = r.message;
  const Verification& v = r.verify;
  if (verdict(r) == Status::incorrect && v.checked) {
    std::string found = fmt::format("{} elements beyond tolerance of the fp64 oracle (max abs err {})", v.mismatches,
                                    fmt_err(v.oracle_max_abs_err));
    if (!v.first_mismatch.empty()) found += "; first: " + v.first_mismatch;
    d = d.empty() ? found : d + "; " + found;
  }
  return d;
}

const ImplRow* ProblemRow::find(ImplKind k) const {
  for (const auto& r : impls)
    if (r.impl == k) return &r;
  return nullptr;
}

const ImplRow* ProblemRow::vendor() const {
  for (const auto& r : impls)
    if (is_vendor(r.impl)) return &r;
  return nullptr;
}

ProblemRow build_row(const RunContext& c, const ProblemResult& p) {
  ProblemRow row;
  row.problem = &p;
  row.placement = place(c, p);
  for (const auto& r : p.impls) row.impls.push_back(impl_row(c, p, row.placement, r));

  const ImplRow* torch = row.torch();
  const bool baseline = torch && torch->verdict == Status::ok && torch->timed();
  for (ImplRow& m : row.impls) {
    if (!m.timed() || m.verdict != Status::ok) continue;
    if (baseline) m.speedup = torch->time_ms / m.time_ms;
    else m.no_speedup = missing_baseline(torch);
  }

  if (const ImplRow* fw = row.framework()) {
    row.verdict = fw->verdict;
    ImplRow& f = row.impls[std::size_t(fw - row.impls.data())];
    if (f.verdict == Status::incorrect) f.grade = Grade::critical;
    else if (f.verdict == Status::ok && f.speedup) f.grade = grade_for(*f.speedup);
    const ImplRow* v = row.vendor();
    if (v && v->verdict == Status::ok && v->timed() && f.verdict == Status::ok && f.timed())
      row.pct_of_vendor = 100.0 * v->time_ms / f.time_ms;
  }
  return row;
}

ReportRows build_rows(const RunResults& results) {
  ReportRows rows;
  rows.results = &results;
  rows.problems.reserve(results.problems.size());
  for (const auto& p : results.problems) rows.problems.push_back(build_row(results.context, p));
  return rows;
}

}  // namespace opbench::reports
