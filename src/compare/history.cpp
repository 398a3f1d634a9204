#include "src/compare/history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "opbench/grade.hpp"
#include "reports/format.hpp"
#include "reports/report_files.hpp"
#include "reports/summary.hpp"
#include "src/compare/compare_report.hpp"
#include "src/compare/comparison.hpp"

namespace opbench::compare {
namespace {

using nlohmann::json;

// Four significant digits: far below run-to-run noise, and a short line. The division by an exact
// power of ten gives the double nearest the decimal, so the JSON prints it short.
double round_sig4(double x) {
  if (!(x > 0)) return x;
  const int e = int(std::floor(std::log10(x)));
  if (e <= 3) {
    const double scale = std::pow(10.0, 3 - e);
    return std::round(x * scale) / scale;
  }
  const double scale = std::pow(10.0, e - 3);
  return std::round(x / scale) * scale;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> opt_from(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

std::string short_date(const std::string& iso) {  // "2026-11-22T11:42:52Z" -> "2026-11-22 11:42"
  std::string s = iso;
  if (auto t = s.find('T'); t != std::string::npos) s[t] = ' ';
  return s.size() >= 16 ? s.substr(0, 16) : s;
}

std::string short_commit(const std::string& c) { return c.empty() ? reports::kDash : c.substr(0, 12); }

std::string speedup_cell(const std::optional<double>& s) { return s ? fmt::format("{:.2f}x", *s) : reports::kDash; }

// Geomean of this run's framework medians over the previous run's, over the problems both have.
std::string time_vs(const HistoryRecord& cur, const HistoryRecord* prev) {
  if (!prev || cur.framework_ms.empty() || prev->framework_ms.empty()) return reports::kDash;
  double log_sum = 0;
  int n = 0;
  for (const auto& [id, ms] : cur.framework_ms) {
    const auto it = prev->framework_ms.find(id);
    if (it == prev->framework_ms.end() || !(it->second > 0) || !(ms > 0)) continue;
    log_sum += std::log(ms / it->second);
    ++n;
  }
  if (n == 0) return reports::kDash;
  return fmt::format("{} ({} problems)", fmt_change(std::exp(log_sum / n)), n);
}

}  // namespace

HistoryRecord make_record(const RunResults& run, const std::string& report_name) {
  const RunContext& c = run.context;
  HistoryRecord r;
  r.date = c.timestamp, r.commit = c.git_commit, r.gpu = c.device.name, r.driver = c.device.driver_version;
  r.torch = c.device.torch_version, r.settings = settings_text(c), r.report = report_name;
  const reports::Summary s = reports::build_report(run).summary;
  r.problems = s.problems, r.correct = s.correct, r.incorrect = s.incorrect, r.failed = s.failed;
  r.geomean_speedup = s.geomean_speedup;
  for (int g = 0; g < 5; ++g) r.grades[std::size_t(g)] = s.grades[std::size_t(g)];
  for (const auto& cs : s.categories) r.categories.push_back({category_name(cs.category), cs.problems, cs.geomean});
  for (const auto& p : run.problems)
    if (const ImplResult* fw = p.find(ImplKind::framework); fw && fw->status == Status::ok && fw->time_ms() > 0)
      r.framework_ms[p.id()] = round_sig4(fw->time_ms());
  return r;
}

ComparisonPoint comparison_point(const json& j, const std::string& report_name) {
  if (!j.is_object() || j.value("schema", "") != "opbench-compare")
    throw InputError(report_name + " is not a bench_ops compare report (JSON)");
  try {
    ComparisonPoint p;
    p.report = report_name;
    p.baseline_commit = j.at("baseline").at("git_commit");
    p.baseline_date = j.at("baseline").at("timestamp");
    const json& fw = j.at("summary").at("framework");
    p.same = fw.at("same"), p.faster = fw.at("faster"), p.slower = fw.at("slower"), p.unsure = fw.at("unsure");
    p.broke = fw.at("broke"), p.fixed = fw.at("fixed");
    p.regressions = j.at("regressions").get<std::vector<std::string>>();
    p.improvements = j.at("framework_faster").get<std::vector<std::string>>();
    return p;
  } catch (const json::exception& e) {
    throw InputError(report_name + ": not a compare report this bench_ops reads: " + e.what());
  }
}

json to_json(const HistoryRecord& r) {
  // Categories as an object (name -> figures, what the trend chart reads) and their order in the report
  // (a JSON object's keys come back sorted).
  json cats = json::object(), grades = json::object(), order = json::array();
  for (const auto& c : r.categories) {
    cats[c.category] = {{"problems", c.problems}, {"geomean_speedup", opt(c.geomean_speedup)}};
    order.push_back(c.category);
  }
  for (int g = 0; g < 5; ++g) grades[grade_name(Grade(g))] = r.grades[std::size_t(g)];
  json j = {{"schema_version", kHistorySchemaVersion},
            {"date", r.date},
            {"commit", r.commit},
            {"gpu", r.gpu},
            {"driver", r.driver},
            {"torch", r.torch},
            {"settings", r.settings},
            {"report", r.report},
            {"problems", r.problems},
            {"correct", r.correct},
            {"incorrect", r.incorrect},
            {"failed", r.failed},
            {"geomean_speedup", opt(r.geomean_speedup)},
            {"categories", cats},
            {"category_order", order},
            {"grades", grades}};
  if (r.comparison) {
    const ComparisonPoint& c = *r.comparison;
    j["comparison"] = {{"baseline_commit", c.baseline_commit}, {"baseline_date", c.baseline_date},
                       {"report", c.report},   {"same", c.same},       {"faster", c.faster},
                       {"slower", c.slower},   {"unsure", c.unsure},   {"broke", c.broke},
                       {"fixed", c.fixed},     {"regressions", c.regressions}, {"improvements", c.improvements}};
  }
  if (!r.framework_ms.empty()) j["framework_ms"] = r.framework_ms;
  return j;
}

HistoryRecord record_from_json(const json& j) {
  if (j.value("schema_version", 0) != kHistorySchemaVersion)
    throw std::runtime_error(fmt::format("history schema {} (this bench_ops reads {})", j.value("schema_version", 0),
                                         kHistorySchemaVersion));
  HistoryRecord r;
  r.date = j.at("date"), r.commit = j.at("commit"), r.gpu = j.at("gpu"), r.driver = j.at("driver");
  r.torch = j.at("torch"), r.settings = j.at("settings"), r.report = j.at("report");
  r.problems = j.at("problems"), r.correct = j.at("correct"), r.incorrect = j.at("incorrect"), r.failed = j.at("failed");
  r.geomean_speedup = opt_from(j, "geomean_speedup");
  const json& cats = j.at("categories");
  std::vector<std::string> order = j.value("category_order", std::vector<std::string>{});
  for (const auto& [name, c] : cats.items())
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  for (const std::string& name : order)
    if (cats.contains(name))
      r.categories.push_back({name, cats.at(name).at("problems"), opt_from(cats.at(name), "geomean_speedup")});
  for (int g = 0; g < 5; ++g) r.grades[std::size_t(g)] = j.at("grades").value(grade_name(Grade(g)), 0);
  if (j.contains("framework_ms")) r.framework_ms = j.at("framework_ms").get<std::map<std::string, double>>();
  if (j.contains("comparison")) {
    const json& c = j.at("comparison");
    ComparisonPoint p;
    p.baseline_commit = c.at("baseline_commit"), p.baseline_date = c.at("baseline_date"), p.report = c.at("report");
    p.same = c.at("same"), p.faster = c.at("faster"), p.slower = c.at("slower"), p.unsure = c.at("unsure");
    p.broke = c.at("broke"), p.fixed = c.at("fixed");
    p.regressions = c.at("regressions").get<std::vector<std::string>>();
    p.improvements = c.at("improvements").get<std::vector<std::string>>();
    r.comparison = p;
  }
  return r;
}

std::vector<HistoryRecord> read_history(const std::string& path) {
  std::vector<HistoryRecord> out;
  std::ifstream in(path);
  if (!in) return out;  // no history yet
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.push_back(record_from_json(json::parse(line)));
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{} line {}: {}\nFix or remove that line (each line is one run).", path, n, e.what()));
    }
  }
  return out;
}

std::vector<HistoryRecord> append_history(const std::string& path, const HistoryRecord& record, int keep_medians) {
  std::vector<HistoryRecord> all = read_history(path);
  all.push_back(record);
  int kept = 0;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->series() != record.series() || it->framework_ms.empty()) continue;
    if (++kept > keep_medians) it->framework_ms.clear();
  }
  std::string text;
  for (const auto& r : all) text += to_json(r).dump() + "\n";
  reports::write_file_atomic(path, text);
  return all;
}

std::string render_trend(const std::vector<HistoryRecord>& records, int runs) {
  std::ostringstream os;
  os << "## Trend\n\n";
  if (records.empty()) {
    os << "No runs in the history yet (bench_ops history append, or scripts/nightly.sh).\n\n";
    return os.str();
  }
  os << "From history.jsonl: the last runs of each GPU and settings, newest first. Geomean speedup over LibTorch "
        "per category; the framework's time against the run before it (geomean over the problems both ran).\n\n";
  std::vector<std::string> series;  // newest first
  for (auto it = records.rbegin(); it != records.rend(); ++it)
    if (std::find(series.begin(), series.end(), it->series()) == series.end()) series.push_back(it->series());

  for (const std::string& s : series) {
    std::vector<const HistoryRecord*> recs;  // newest first
    for (auto it = records.rbegin(); it != records.rend(); ++it)
      if (it->series() == s) recs.push_back(&*it);
    std::vector<std::string> cats;
    for (std::size_t i = 0; i < recs.size() && int(i) < runs; ++i)
      for (const auto& c : recs[i]->categories)
        if (std::find(cats.begin(), cats.end(), c.category) == cats.end()) cats.push_back(c.category);

    os << "### " << s << "\n\n";
    std::vector<std::string> header = {"Date (UTC)", "Commit", "Problems", "All"};
    for (const auto& c : cats) header.push_back(c);
    for (int g = 0; g < 5; ++g) header.push_back(grade_symbol(Grade(g)));
    header.push_back("Framework time vs run before");
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < recs.size() && int(i) < runs; ++i) {
      const HistoryRecord& r = *recs[i];
      const HistoryRecord* prev = nullptr;
      for (std::size_t k = i + 1; k < recs.size() && !prev; ++k)
        if (!recs[k]->framework_ms.empty()) prev = recs[k];
      std::vector<std::string> row = {short_date(r.date), short_commit(r.commit), std::to_string(r.problems),
                                      speedup_cell(r.geomean_speedup)};
      for (const auto& c : cats) {
        std::string cell = reports::kDash;
        for (const auto& rc : r.categories)
          if (rc.category == c) cell = speedup_cell(rc.geomean_speedup);
        row.push_back(cell);
      }
      for (int g = 0; g < 5; ++g) row.push_back(std::to_string(r.grades[std::size_t(g)]));
      row.push_back(time_vs(r, prev));
      rows.push_back(std::move(row));
    }
    std::string align = "llrr" + std::string(cats.size() + 5, 'r') + "r";
    reports::write_md_table(os, header, align, rows);

    const HistoryRecord* last = nullptr;
    for (const HistoryRecord* r : recs)
      if (r->comparison) {
        last = r;
        break;
      }
    if (last) {
      const ComparisonPoint& c = *last->comparison;
      os << fmt::format("Latest comparison ({}): commit {} against {}: {} slower, {} faster, {} same, {} unsure, {} "
                        "broke, {} fixed; {}. Report: {}.\n",
                        short_date(last->date), short_commit(last->commit), short_commit(c.baseline_commit), c.slower,
                        c.faster, c.same, c.unsure, c.broke, c.fixed,
                        c.regressions.empty() ? "no regression"
                                              : fmt::format("**{} regression{}**", c.regressions.size(),
                                                            c.regressions.size() == 1 ? "" : "s"),
                        c.report.empty() ? reports::kDash : c.report);
      auto list = [&os](const char* title, const std::vector<std::string>& ids) {
        if (ids.empty()) return;
        os << "\n" << title << ": ";
        for (std::size_t i = 0; i < ids.size() && i < 10; ++i) os << (i ? ", " : "") << "`" << ids[i] << "`";
        if (ids.size() > 10) os << fmt::format(" and {} more", ids.size() - 10);
        os << "\n";
      };
      list("Regressions", c.regressions);
      list("Faster", c.improvements);
      os << "\n";
    }
  }
  return os.str();
}

json github_benchmark_json(const RunResults& run) {
  json out = json::array();
  const std::string commit = run.context.git_commit;
  for (const auto& p : run.problems)
    for (ImplKind k : {ImplKind::framework, ImplKind::torch}) {
      const ImplResult* r = p.find(k);
      if (!r || r->status != Status::ok || !(r->time_ms() > 0)) continue;
      // The headline timing, as ImplResult::time_ms chooses it.
      const TimeStats* t = r->pure && r->pure->samples > 0 ? &*r->pure : r->graph && r->graph->samples > 0 ? &*r->graph : &*r->real;
      out.push_back({{"name", p.id() + " " + impl_name(k)},
                     {"unit", "ms"},
                     {"value", r->time_ms()},
                     {"range", fmt::format("± {:.4g}", (t->q3_ms - t->q1_ms) / 2)},
                     {"extra", fmt::format("median of {} samples, [q1, q3] = [{:.4g}, {:.4g}] ms, commit {}", t->samples,
                                           t->q1_ms, t->q3_ms, commit.empty() ? "unknown" : commit)}});
    }
  return out;
}

}  // namespace opbench::compare
