// The history of runs: one compact JSON line per run in docs/benchmark/history.jsonl (date, commit, GPU,
// driver, geomean speedup per category, grade counts, the framework's median per problem, and a
// digest of the comparison made that night), the trend page rendered from it (trend.md, which the
// report index embeds), and an export for github-action-benchmark.
//
// Size: a full suite's medians are ~100 kB a line, so only the newest `keep_medians` records of each
// GPU and settings keep them; older records keep their geomeans and grade counts (a few hundred bytes).
#pragma once
#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::compare {

inline constexpr int kHistorySchemaVersion = 1;
inline constexpr int kDefaultKeepMedians = 60;  // about two months of nightly runs
inline constexpr int kDefaultTrendRuns = 10;

struct CategoryPoint {
  std::string category;
  int problems = 0;
  std::optional<double> geomean_speedup;
};

// What the night's comparison found (from a bench_ops compare JSON report).
struct ComparisonPoint {
  std::string baseline_commit, baseline_date, report;
  int same = 0, faster = 0, slower = 0, unsure = 0, broke = 0, fixed = 0;  // framework verdicts
  std::vector<std::string> regressions;   // confirmed
  std::vector<std::string> improvements;  // framework faster
};

struct HistoryRecord {
  std::string date, commit, gpu, driver, torch, settings, report;
  int problems = 0, correct = 0, incorrect = 0, failed = 0;
  std::optional<double> geomean_speedup;
  std::vector<CategoryPoint> categories;
  std::array<int, 5> grades{};                 // indexed by Grade
  std::map<std::string, double> framework_ms;  // problem id -> framework median (4 significant digits)
  std::optional<ComparisonPoint> comparison;

  std::string series() const { return gpu + " — " + settings; }  // records of one series are comparable
};

HistoryRecord make_record(const RunResults& run, const std::string& report_name);
// Reads the digest of a bench_ops compare JSON report; throws InputError on another file.
ComparisonPoint comparison_point(const nlohmann::json& compare_report, const std::string& report_name);

nlohmann::json to_json(const HistoryRecord& r);
HistoryRecord record_from_json(const nlohmann::json& j);

// Every record of the file, oldest first; a missing file is an empty history. Throws InputError
// naming the line on a malformed one.
std::vector<HistoryRecord> read_history(const std::string& path);
// Appends `record`, drops the medians of all but the newest `keep_medians` records of its series and
// rewrites the file atomically. Returns the records now in the file.
std::vector<HistoryRecord> append_history(const std::string& path, const HistoryRecord& record, int keep_medians);

// The trend page: per series, the last `runs` runs (geomean speedup per category, grades, the
// framework's time against the run before it) and what the latest comparison found.
std::string render_trend(const std::vector<HistoryRecord>& records, int runs);

// github-action-benchmark's "customSmallerIsBetter" input: one entry per timed framework and LibTorch
// result ({name, unit, value, range, extra}).
nlohmann::json github_benchmark_json(const RunResults& run);

}  // namespace opbench::compare
