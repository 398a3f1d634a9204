// The console view: one line per run, the counts, a table of what changed (regressions first), the
// change per category, why results came out unsure, what is missing, and the outcome.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/format.hpp"
#include "src/compare/compare_report.hpp"

namespace opbench::compare {
namespace {

constexpr std::size_t kMaxRows = 60;  // the rest is in the Markdown and JSON reports

struct Row {
  int rank;  // 0 regression, 1 flagged but not confirmed, 2 framework faster, 3 other implementations
  const ProblemDelta* p;
  const ImplDelta* d;
};

std::string verdict_word(const Comparison& c, const ImplDelta& d) {
  if (d.status_change == StatusChange::broke) return "BROKE";
  if (d.status_change == StatusChange::fixed) return "fixed";
  const Verdict v = d.time->verdict;
  if (d.impl == ImplKind::framework && v == Verdict::slower) return is_regression(c, d) ? "SLOWER" : "slower?";
  return verdict_name(v);
}

std::string rerun_text(const Comparison& c, const ImplDelta& d) {
  if (!c.rerun || !is_flagged(d)) return "";
  if (d.rerun_missing) return "not in the re-run";
  if (d.rerun_status && *d.rerun_status != Status::ok) return std::string("re-run: ") + status_name(*d.rerun_status);
  if (!d.rerun_time) return "";
  return fmt::format("re-run: {} {}", verdict_name(d.rerun_time->verdict), fmt_change(d.rerun_time->ratio));
}

}  // namespace

void write_console(const Comparison& c, std::ostream& os) {
  os << "baseline: " << run_label(c.baseline) << "\n";
  for (const RunInfo& r : c.baseline_pool) os << "  pooled:  " << run_label(r) << "\n";
  os << "current:  " << run_label(c.current) << "\n";
  if (c.rerun) os << "re-run:   " << run_label(*c.rerun) << "\n";
  os << fmt::format("{}, {}; threshold {:.3g}%, U test alpha {}\n", c.current.context.device.name,
                    settings_text(c.current.context), c.rule.threshold * 100, c.rule.alpha);
  for (const auto& n : c.notes) os << "note: " << n << "\n";

  const CategoryChange all = overall_change(c);
  os << fmt::format("\nframework: {} same, {} faster, {} slower, {} unsure, {} broke, {} fixed (of {} matched problems)\n",
                    all.same, all.faster, all.slower, all.unsure, all.broke, all.fixed, all.problems);

  std::vector<Row> rows;
  for (const ProblemDelta& p : c.problems)
    for (const ImplDelta& d : p.impls) {
      const bool status = d.status_change == StatusChange::broke || d.status_change == StatusChange::fixed;
      const bool moved = d.time && (d.time->verdict == Verdict::slower || d.time->verdict == Verdict::faster);
      if (!status && !moved) continue;
      int rank = 3;
      if (d.impl == ImplKind::framework) rank = is_regression(c, d) ? 0 : is_flagged(d) ? 1 : 2;
      rows.push_back({rank, &p, &d});
    }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.rank < b.rank; });
  if (rows.empty()) {
    os << "\nNothing changed beyond the threshold.\n";
  } else {
    os << fmt::format("\n{:<8} {:<46} {:<10} {:>12} {:>12} {:>8} {:>8}  {}\n", "verdict", "problem", "impl",
                      "baseline ms", "current ms", "change", "p", c.rerun ? "re-run" : "");
    for (std::size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
      const ImplDelta& d = *rows[i].d;
      const std::string b = d.baseline ? reports::fmt_ms(d.baseline->median_ms) : status_name(d.baseline_status);
      const std::string cur = d.current ? reports::fmt_ms(d.current->median_ms) : status_name(d.current_status);
      const std::string change = d.time ? fmt_change(d.time->ratio) : reports::kDash;
      const std::string p = d.time && d.time->p_value ? fmt::format("{:.1e}", *d.time->p_value) : reports::kDash;
      os << fmt::format("{:<8} {:<46} {:<10} {:>12} {:>12} {:>8} {:>8}  {}\n", verdict_word(c, d), rows[i].p->id,
                        impl_name(d.impl), b, cur, change, p, rerun_text(c, d));
    }
    if (rows.size() > kMaxRows) os << fmt::format("... and {} more (see the report)\n", rows.size() - kMaxRows);
  }

  os << fmt::format("\n{:<12} {:>8} {:>11} {:>11} {:>9}   {}\n", "category", "problems", "framework", "LibTorch",
                    "speedup", "framework verdicts (same/faster/slower/unsure)");
  auto ratio = [](const std::optional<double>& r) { return r ? fmt_change(*r) : std::string(reports::kDash); };
  for (const CategoryChange& cc : category_changes(c))
    os << fmt::format("{:<12} {:>8} {:>11} {:>11} {:>9}   {}/{}/{}/{}\n", category_name(cc.category), cc.problems,
                      ratio(cc.framework_ratio), ratio(cc.torch_ratio), ratio(cc.speedup_ratio), cc.same, cc.faster,
                      cc.slower, cc.unsure);

  std::map<UnsureCause, int> causes;
  for (const ProblemDelta& p : c.problems)
    if (const ImplDelta* f = p.find(ImplKind::framework); f && f->time && f->time->verdict == Verdict::unsure)
      ++causes[f->time->cause];
  if (!causes.empty()) {
    os << "\nunsure (framework):";
    for (const auto& [cause, n] : causes) os << fmt::format(" {} {};", n, unsure_cause_text(cause));
    os << "\n";
  }
  if (!c.only_baseline.empty() || !c.only_current.empty())
    os << fmt::format("missing: {} results only in the baseline, {} only in the current run\n", c.only_baseline.size(),
                      c.only_current.size());

  const auto regressions = regression_ids(c);
  if (regressions.empty())
    os << "\nresult: no regression"
       << (c.rerun && !flagged_ids(c).empty() ? " (the flagged results did not hold on the re-run)" : "") << "\n";
  else
    os << fmt::format("\nresult: {} regression{} of the framework{}\n", regressions.size(),
                      regressions.size() == 1 ? "" : "s", c.rerun ? ", confirmed on the re-run" : "");
}

}  // namespace opbench::compare
