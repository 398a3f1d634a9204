// The comparison as Markdown: the two runs, the outcome, the rule, counts, the change per category, then
// the lists a reader acts on: regressions, improvements, LibTorch and vendor changes (news about the
// speedup, not about our kernels), status changes, unsure results with why, and what is missing.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/format.hpp"
#include "src/compare/compare_report.hpp"

namespace opbench::compare {
namespace {

using reports::kDash;
using reports::write_md_table;

constexpr std::size_t kMaxListed = 200;  // rows per list; the JSON report has every one

std::string p_text(const TimingDelta& d) { return d.p_value ? fmt::format("{:.1e}", *d.p_value) : kDash; }

std::string rerun_cell(const Comparison& c, const ImplDelta& d) {
  if (!c.rerun) return "not re-run";
  if (d.rerun_missing) return "missing from the re-run (counts)";
  if (d.rerun_status && *d.rerun_status != Status::ok) return std::string("re-run ") + status_name(*d.rerun_status);
  if (!d.rerun_time) return kDash;
  return fmt::format("{} {}", verdict_name(d.rerun_time->verdict), fmt_change(d.rerun_time->ratio));
}

void context_table(const Comparison& c, std::ostream& os) {
  std::vector<const RunInfo*> runs = {&c.baseline};
  std::vector<std::string> header = {"", "Baseline"};
  for (std::size_t k = 0; k < c.baseline_pool.size(); ++k) {
    runs.push_back(&c.baseline_pool[k]);
    header.push_back(fmt::format("Baseline pool {}", k + 1));
  }
  runs.push_back(&c.current);
  header.push_back("Current");
  if (c.rerun) {
    runs.push_back(&*c.rerun);
    header.push_back("Re-run of the flagged results");
  }
  auto row = [&](const std::string& what, auto get) {
    std::vector<std::string> r = {what};
    for (const RunInfo* ri : runs) {
      const std::string v = get(*ri);
      r.push_back(v.empty() ? kDash : v);
    }
    return r;
  };
  std::vector<std::vector<std::string>> rows = {
      row("Report", [](const RunInfo& r) { return r.path; }),
      row("Commit", [](const RunInfo& r) { return r.context.git_commit; }),
      row("Date (UTC)", [](const RunInfo& r) { return r.context.timestamp; }),
      row("GPU", [](const RunInfo& r) { return r.context.device.name; }),
      row("Driver", [](const RunInfo& r) { return r.context.device.driver_version; }),
      row("LibTorch", [](const RunInfo& r) { return r.context.device.torch_version; }),
      row("cuBLAS / cuDNN",
          [](const RunInfo& r) { return r.context.device.cublas_version + " / " + r.context.device.cudnn_version; }),
      row("Settings", [](const RunInfo& r) { return settings_text(r.context); }),
      row("Command", [](const RunInfo& r) { return r.context.command_line; }),
  };
  write_md_table(os, header, std::string(header.size(), 'l'), rows);
}

void time_list(const Comparison& c, std::ostream& os, const std::vector<std::pair<const ProblemDelta*, const ImplDelta*>>& rows,
               bool with_rerun) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t i = 0; i < rows.size() && i < kMaxListed; ++i) {
    const auto& [p, d] = rows[i];
    std::vector<std::string> r = {p->id, impl_name(d->impl), d->baseline ? fmt_timing(*d->baseline) : kDash,
                                  d->current ? fmt_timing(*d->current) : kDash,
                                  d->time ? fmt_change(d->time->ratio) : kDash, d->time ? p_text(*d->time) : kDash};
    if (with_rerun) r.push_back(rerun_cell(c, *d));
    out.push_back(std::move(r));
  }
  std::vector<std::string> header = {"Problem", "Impl", "Baseline ms [q1, q3]", "Current ms [q1, q3]", "Change", "U test p"};
  if (with_rerun) header.push_back("Re-run");
  write_md_table(os, header, with_rerun ? "llrrrrl" : "llrrrr", out);
  if (rows.size() > kMaxListed) os << fmt::format("… and {} more (all in the JSON report).\n\n", rows.size() - kMaxListed);
}

void id_list(std::ostream& os, const std::vector<std::string>& ids) {
  for (std::size_t i = 0; i < ids.size() && i < kMaxListed; ++i) os << "- " << ids[i] << "\n";
  if (ids.size() > kMaxListed) os << fmt::format("- … and {} more (all in the JSON report)\n", ids.size() - kMaxListed);
  os << "\n";
}

}  // namespace

void write_markdown(const Comparison& c, std::ostream& os) {
  os << fmt::format("# opbench comparison: {} against {}\n\n",
                    c.current.context.git_commit.empty() ? "current" : c.current.context.git_commit,
                    c.baseline.context.git_commit.empty() ? "baseline" : c.baseline.context.git_commit);
  context_table(c, os);

  const auto regressions = regression_ids(c), flagged = flagged_ids(c);
  if (regressions.empty())
    os << "**Outcome: no regression.**"
       << (c.rerun && !flagged.empty()
               ? fmt::format(" {} flagged result(s) did not hold on the re-run.", flagged.size())
               : std::string())
       << "\n\n";
  else
    os << fmt::format("**Outcome: {} regression{} of the framework** (slower or broken{}).\n\n", regressions.size(),
                      regressions.size() == 1 ? "" : "s", c.rerun ? ", confirmed on a re-run" : "; not re-run");
  for (const auto& n : c.notes) os << "- Note: " << n << "\n";
  if (!c.notes.empty()) os << "\n";

  os << "## The rule\n\n" << rule_text(c.rule)
     << " A regression is a framework result that got slower or broke (ok before, incorrect or failed now)"
     << (c.rerun ? ", and still is on the re-run of the flagged problems." : ".")
     << " LibTorch and vendor results are judged by the same rule; their changes move the speedup but are "
        "not regressions of ours.\n\n";

  os << "## Summary\n\n";
  std::vector<std::vector<std::string>> sum;
  for (ImplKind k : {ImplKind::framework, ImplKind::torch, ImplKind::cudnn, ImplKind::cublas}) {
    int n = 0, same = 0, faster = 0, slower = 0, unsure = 0, broke = 0, fixed = 0;
    for (const auto& p : c.problems)
      if (const ImplDelta* d = p.find(k)) {
        ++n;
        broke += d->status_change == StatusChange::broke, fixed += d->status_change == StatusChange::fixed;
        if (!d->time) continue;
        same += d->time->verdict == Verdict::same, faster += d->time->verdict == Verdict::faster;
        slower += d->time->verdict == Verdict::slower, unsure += d->time->verdict == Verdict::unsure;
      }
    if (n == 0) continue;
    sum.push_back({impl_name(k), std::to_string(n), std::to_string(same), std::to_string(faster), std::to_string(slower),
                   std::to_string(unsure), std::to_string(broke), std::to_string(fixed)});
  }
  write_md_table(os, {"Implementation", "Matched", "Same", "Faster", "Slower", "Unsure", "Broke", "Fixed"}, "lrrrrrrr", sum);
  std::map<SpeedupVerdict, int> sp;
  for (const auto& p : c.problems)
    if (p.speedup) ++sp[p.speedup->verdict];
  os << fmt::format("Speedup over LibTorch: {} same, {} better, {} worse, {} unsure. Results only in the baseline: "
                    "{}; only in the current run: {}.\n\n",
                    sp[SpeedupVerdict::same], sp[SpeedupVerdict::better], sp[SpeedupVerdict::worse],
                    sp[SpeedupVerdict::unsure], c.only_baseline.size(), c.only_current.size());

  os << "## Change per category\n\nGeometric means of current / baseline over the problems timed on both sides "
        "(framework time, LibTorch time, speedup), and the framework's verdicts.\n\n";
  auto ratio = [](const std::optional<double>& r) { return r ? fmt_change(*r) : std::string(kDash); };
  std::vector<std::vector<std::string>> cats;
  auto cat_row = [&](const std::string& name, const CategoryChange& cc) {
    cats.push_back({name, std::to_string(cc.problems), ratio(cc.framework_ratio), ratio(cc.torch_ratio),
                    ratio(cc.speedup_ratio), std::to_string(cc.same), std::to_string(cc.faster),
                    std::to_string(cc.slower), std::to_string(cc.unsure), std::to_string(cc.broke)});
  };
  for (const CategoryChange& cc : category_changes(c)) cat_row(category_name(cc.category), cc);
  cat_row("**all**", overall_change(c));
  write_md_table(os, {"Category", "Problems", "Framework time", "LibTorch time", "Speedup", "Same", "Faster", "Slower",
                      "Unsure", "Broke"},
                 "lrrrrrrrrr", cats);

  using Pair = std::pair<const ProblemDelta*, const ImplDelta*>;
  std::vector<Pair> regress, not_held, faster, others, unsure;
  std::vector<std::vector<std::string>> status_rows;
  for (const ProblemDelta& p : c.problems)
    for (const ImplDelta& d : p.impls) {
      if (d.status_change == StatusChange::broke || d.status_change == StatusChange::fixed)
        status_rows.push_back({p.id, impl_name(d.impl), status_name(d.baseline_status), status_name(d.current_status),
                               d.impl == ImplKind::framework && d.status_change == StatusChange::broke ? rerun_cell(c, d) : kDash,
                               d.message});
      if (d.impl == ImplKind::framework) {
        if (is_regression(c, d) && d.time) regress.push_back({&p, &d});
        else if (is_flagged(d) && d.time) not_held.push_back({&p, &d});
        else if (d.time && d.time->verdict == Verdict::faster) faster.push_back({&p, &d});
        else if (d.time && d.time->verdict == Verdict::unsure) unsure.push_back({&p, &d});
      } else if (d.time && (d.time->verdict == Verdict::faster || d.time->verdict == Verdict::slower)) {
        others.push_back({&p, &d});
      }
    }
  auto by_change = [](const Pair& a, const Pair& b) { return a.second->time->ratio > b.second->time->ratio; };
  std::stable_sort(regress.begin(), regress.end(), by_change);
  std::stable_sort(faster.begin(), faster.end(), [&](const Pair& a, const Pair& b) { return by_change(b, a); });

  os << "## Regressions: the framework got slower\n\n";
  if (regress.empty()) os << "None.\n\n";
  else time_list(c, os, regress, true);
  if (c.rerun) {
    os << "## Flagged, but not confirmed on the re-run\n\n";
    if (not_held.empty()) os << "None.\n\n";
    else time_list(c, os, not_held, true);
  }
  os << "## Improvements: the framework got faster\n\n";
  if (faster.empty()) os << "None.\n\n";
  else time_list(c, os, faster, false);

  os << "## LibTorch and vendor libraries\n\nTheir changes move the speedup without any change of ours.\n\n";
  if (others.empty()) os << "No change beyond the threshold.\n\n";
  else time_list(c, os, others, false);

  std::vector<std::vector<std::string>> sp_rows;
  for (const auto& p : c.problems)
    if (p.speedup && (p.speedup->verdict == SpeedupVerdict::worse || p.speedup->verdict == SpeedupVerdict::better))
      sp_rows.push_back({p.id, reports::fmt_speedup(p.speedup->baseline), reports::fmt_speedup(p.speedup->current),
                         fmt_change(p.speedup->ratio()), speedup_verdict_name(p.speedup->verdict), p.speedup->why});
  os << "## Speedup changes\n\n";
  if (sp_rows.empty()) {
    os << "None beyond the threshold.\n\n";
  } else {
    if (sp_rows.size() > kMaxListed) sp_rows.resize(kMaxListed);
    write_md_table(os, {"Problem", "Baseline", "Current", "Change", "Verdict", "Why"}, "lrrrll", sp_rows);
  }

  if (!status_rows.empty()) {
    os << "## Status changes\n\n";
    write_md_table(os, {"Problem", "Impl", "Baseline", "Current", "Re-run", "Message"}, "llllll", status_rows);
  }

  os << "## Unsure (framework)\n\n";
  if (unsure.empty()) {
    os << "None.\n\n";
  } else {
    std::map<UnsureCause, int> causes;
    for (const auto& [p, d] : unsure) ++causes[d->time->cause];
    for (const auto& [cause, n] : causes) os << fmt::format("- {}: {}\n", unsure_cause_text(cause), n);
    os << "\n";
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < unsure.size() && i < kMaxListed; ++i) {
      const auto& [p, d] = unsure[i];
      rows.push_back({p->id, fmt_timing(*d->baseline), fmt_timing(*d->current), fmt_change(d->time->ratio), d->time->reason});
    }
    write_md_table(os, {"Problem", "Baseline ms [q1, q3]", "Current ms [q1, q3]", "Change", "Why"}, "lrrrl", rows);
    if (unsure.size() > kMaxListed) os << fmt::format("… and {} more (all in the JSON report).\n\n", unsure.size() - kMaxListed);
  }

  // Whole problems, then single implementations (a vendor row that appeared or went away).
  std::vector<std::string> only_b = c.only_baseline, only_c = c.only_current;
  for (const auto& p : c.problems) {
    for (ImplKind k : p.only_baseline) only_b.push_back(p.id + " (" + impl_name(k) + " only)");
    for (ImplKind k : p.only_current) only_c.push_back(p.id + " (" + impl_name(k) + " only)");
  }
  if (!only_b.empty()) {
    os << "## Only in the baseline\n\n";
    id_list(os, only_b);
  }
  if (!only_c.empty()) {
    os << "## Only in the current run\n\n";
    id_list(os, only_c);
  }
}

}  // namespace opbench::compare
