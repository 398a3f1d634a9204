// The comparison as JSON: the two runs, the rule, counts, per-category geomeans, every matched result
// with its verdict and reason, the flagged problems with the filter that re-runs them, and what is
// missing. No samples: the run reports have them.
#include <fmt/format.h>

#include <map>

#include "src/compare/compare_report.hpp"

namespace opbench::compare {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json run_json(const RunInfo& r) {
  const RunContext& c = r.context;
  return {{"path", r.path},
          {"git_commit", c.git_commit},
          {"timestamp", c.timestamp},
          {"command_line", c.command_line},
          {"gpu", c.device.name},
          {"driver_version", c.device.driver_version},
          {"runtime_version", c.device.runtime_version},
          {"torch_version", c.device.torch_version},
          {"cublas_version", c.device.cublas_version},
          {"cudnn_version", c.device.cudnn_version},
          {"timing_mode", c.timing_mode},
          {"device_timer", c.device_timer},
          {"l2_mode", c.l2_mode},
          {"tf32", c.tf32}};
}

json pool_json(const Comparison& c) {
  json a = json::array();
  for (const RunInfo& r : c.baseline_pool) a.push_back(run_json(r));
  return a;
}

json timing_json(const std::optional<TimingBrief>& t) {
  if (!t) return nullptr;
  return {{"median_ms", t->median_ms}, {"q1_ms", t->q1_ms},       {"q3_ms", t->q3_ms},
          {"samples", t->samples},     {"sm_clock_mhz", t->sm_clock_mhz}, {"reliable", t->reliable}};
}

json delta_json(const TimingDelta& d) {
  return {{"verdict", verdict_name(d.verdict)},
          {"ratio", d.ratio},
          {"change", d.change()},
          {"ratio_interval", d.ratio_lo > 0 ? json::array({d.ratio_lo, d.ratio_hi}) : json(nullptr)},
          {"p_value", opt(d.p_value)},
          {"intervals_overlap", d.intervals_overlap},
          {"unsure_cause", d.cause == UnsureCause::none ? json(nullptr) : json(unsure_cause_name(d.cause))},
          {"reason", d.reason}};
}

json counts_json(const CategoryChange& cc) {
  return {{"problems", cc.problems},
          {"framework_timed", cc.framework_timed},
          {"framework_change", cc.framework_ratio ? json(*cc.framework_ratio - 1) : json(nullptr)},
          {"torch_change", cc.torch_ratio ? json(*cc.torch_ratio - 1) : json(nullptr)},
          {"speedup_change", cc.speedup_ratio ? json(*cc.speedup_ratio - 1) : json(nullptr)},
          {"slower", cc.slower},
          {"faster", cc.faster},
          {"same", cc.same},
          {"unsure", cc.unsure},
          {"broke", cc.broke},
          {"fixed", cc.fixed}};
}

// Verdict counts per implementation kind, and for the speedup.
json summary_json(const Comparison& c) {
  json out = json::object();
  for (ImplKind k : {ImplKind::framework, ImplKind::torch, ImplKind::cudnn, ImplKind::cublas}) {
    int matched = 0, broke = 0, fixed = 0, not_compared = 0;
    std::map<std::string, int> verdicts = {{"same", 0}, {"faster", 0}, {"slower", 0}, {"unsure", 0}};
    for (const auto& p : c.problems)
      if (const ImplDelta* d = p.find(k)) {
        ++matched;
        broke += d->status_change == StatusChange::broke;
        fixed += d->status_change == StatusChange::fixed;
        if (d->time) ++verdicts[verdict_name(d->time->verdict)];
        else if (d->status_change != StatusChange::broke && d->status_change != StatusChange::fixed) ++not_compared;
      }
    if (matched == 0) continue;
    json j = {{"matched", matched}, {"broke", broke}, {"fixed", fixed}, {"not_compared", not_compared}};
    for (const auto& [v, n] : verdicts) j[v] = n;
    out[impl_name(k)] = j;
  }
  std::map<std::string, int> sp = {{"same", 0}, {"better", 0}, {"worse", 0}, {"unsure", 0}};
  for (const auto& p : c.problems)
    if (p.speedup) ++sp[speedup_verdict_name(p.speedup->verdict)];
  out["speedup"] = sp;
  out["only_baseline"] = c.only_baseline.size();
  out["only_current"] = c.only_current.size();
  return out;
}

}  // namespace

json to_json(const Comparison& c) {
  json results = json::array(), speedups = json::array(), cats = json::array(), faster = json::array();
  json impls_only_baseline = json::array(), impls_only_current = json::array();
  for (const ProblemDelta& p : c.problems) {
    for (ImplKind k : p.only_baseline) impls_only_baseline.push_back({{"id", p.id}, {"implementation", impl_name(k)}});
    for (ImplKind k : p.only_current) impls_only_current.push_back({{"id", p.id}, {"implementation", impl_name(k)}});
    for (const ImplDelta& d : p.impls) {
      json r = {{"id", p.id},
                {"category", category_name(p.category)},
                {"operation", p.op},
                {"dtype", dtype_name(p.dtype)},
                {"shape", p.shape},
                {"implementation", impl_name(d.impl)},
                {"baseline_status", status_name(d.baseline_status)},
                {"current_status", status_name(d.current_status)},
                {"status_change", status_change_name(d.status_change)},
                {"message", d.message},
                {"baseline", timing_json(d.baseline)},
                {"current", timing_json(d.current)},
                {"time", d.time ? delta_json(*d.time) : json(nullptr)},
                {"flagged", is_flagged(d)},
                {"regression", is_regression(c, d)}};
      if (c.rerun && is_flagged(d))
        r["rerun"] = {{"status", d.rerun_status ? json(status_name(*d.rerun_status)) : json(nullptr)},
                      {"missing", d.rerun_missing},
                      {"time", d.rerun_time ? delta_json(*d.rerun_time) : json(nullptr)}};
      results.push_back(std::move(r));
      if (d.impl == ImplKind::framework && d.time && d.time->verdict == Verdict::faster) faster.push_back(p.id);
    }
    if (p.speedup)
      speedups.push_back({{"id", p.id},
                          {"baseline", p.speedup->baseline},
                          {"current", p.speedup->current},
                          {"change", p.speedup->ratio() - 1},
                          {"verdict", speedup_verdict_name(p.speedup->verdict)},
                          {"why", p.speedup->why}});
  }
  for (const CategoryChange& cc : category_changes(c)) {
    json j = counts_json(cc);
    j["category"] = category_name(cc.category);
    cats.push_back(std::move(j));
  }
  const std::vector<std::string> flagged = flagged_ids(c);
  return {{"schema", "opbench-compare"},
          {"schema_version", kCompareSchemaVersion},
          {"baseline", run_json(c.baseline)},
          {"baseline_pool", pool_json(c)},
          {"current", run_json(c.current)},
          {"rerun", c.rerun ? run_json(*c.rerun) : json(nullptr)},
          {"rule",
           {{"threshold", c.rule.threshold},
            {"alpha", c.rule.alpha},
            {"min_samples", c.rule.min_samples},
            {"min_change_ms", c.rule.min_change_ms},
            {"max_clock_diff", c.rule.max_clock_diff},
            {"confidence", c.rule.confidence},
            {"text", rule_text(c.rule)}}},
          {"ignore_device", c.ignore_device},
          {"notes", c.notes},
          {"regression", has_regression(c)},
          {"regressions", regression_ids(c)},
          {"flagged", flagged},
          {"rerun_filter", benchmark_filter(flagged)},
          {"framework_faster", faster},
          {"summary", summary_json(c)},
          {"overall", counts_json(overall_change(c))},
          {"categories", cats},
          {"results", results},
          {"speedups", speedups},
          {"only_baseline", c.only_baseline},
          {"only_current", c.only_current},
          {"implementations_only_baseline", impls_only_baseline},
          {"implementations_only_current", impls_only_current}};
}

}  // namespace opbench::compare
