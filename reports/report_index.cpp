// The index of a report folder (README.md): the latest run first, the trend over the recorded history,
// then every run, newest first.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "reports/file_set.hpp"
#include "reports/format.hpp"
#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "reports/report_files.hpp"

namespace fs = std::filesystem;

namespace opbench::reports {
namespace {

// Written by bench_ops sessions: one JSON object per run ("timestamp", "git_commit", "gpu",
// "categories": {name: {"geomean_speedup": x, ...}}).
constexpr const char* kHistoryFile = "history.jsonl";
constexpr const char* kHistoryCharts = "history_charts";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error(std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct IndexEntry {
  std::string stem;
  RunResults results;
  Summary summary;
  bool has_md = false;
};

std::string date_text(std::string ts) {  // "2025-11-22T10:35:00Z" -> "2025-11-22 10:35:00 UTC"
  if (auto t = ts.find('T'); t != std::string::npos) ts[t] = ' ';
  if (!ts.empty() && ts.back() == 'Z') ts.replace(ts.size() - 1, 1, " UTC");
  return ts;
}

std::string link(const IndexEntry& e) {
  return e.has_md ? fmt::format("[{0}]({0}.md)", e.stem) : fmt::format("[{0}]({0}.json) (no .md)", e.stem);
}

std::string render_index(const std::vector<IndexEntry>& entries,
                         const std::vector<std::pair<std::string, std::string>>& unreadable, const ChartSet* trend,
                         const std::string& trend_md) {
  std::ostringstream os;
  os << "# opbench benchmark reports\n\n"
     << "Each bench_ops run writes ops_<YYYYmmdd-HHMMSS>.md and .json here, with its charts in "
        "ops_<YYYYmmdd-HHMMSS>_charts/ (the newest also as latest.md and latest.json), and rewrites this index.\n\n";
  if (entries.empty()) {
    os << "No reports yet.\n\n";
  } else {
    const IndexEntry& latest = entries.front();
    const RunContext& c = latest.results.context;
    os << "## Latest run: " << link(latest) << "\n\n"
       << date_text(c.timestamp) << ", " << c.device.name << ", commit " << (c.git_commit.empty() ? kDash : c.git_commit)
       << "\n\n### Performance summary\n\n";
    write_summary_table(latest.summary, os);
    os << "### Category breakdown\n\n";
    write_category_table(latest.summary, os);
  }
  // The trend table and the latest comparison: trend.md, which `bench_ops history append` writes (src/compare).
  if (!trend_md.empty()) os << trend_md << (trend_md.back() == '\n' ? "\n" : "\n\n");
  if (trend) {
    os << "## Geomean speedup over the recorded runs\n\n";
    if (trend->drawn())
      for (const Chart& c : trend->charts)
        os << "![" << c.title << "](" << trend->folder << '/' << c.file << ")\n\n" << c.caption << "\n\n";
    else
      os << "Chart skipped: " << trend->skipped << ".\n\n";
  }
  if (!entries.empty()) {
    os << "## All reports (newest first)\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& e : entries) {
      std::string cats;
      for (const auto& cs : e.summary.categories) cats += (cats.empty() ? "" : ", ") + std::string(category_name(cs.category));
      std::vector<std::string> row = {date_text(e.results.context.timestamp), link(e), e.results.context.device.name,
                                      cats.empty() ? kDash : cats, std::to_string(e.summary.problems),
                                      fmt_speedup(e.summary.geomean_speedup)};
      for (Grade g : kAllGrades) row.push_back(std::to_string(e.summary.grades[int(g)]));
      rows.push_back(std::move(row));
    }
    write_md_table(os, {"Date", "Report", "GPU", "Categories", "Problems", "Geomean speedup", "🟢", "🟡", "🟠", "🔴", "❌"},
                   "llllrrrrrrr", rows);
  }
  if (!unreadable.empty()) {
    os << "## Unreadable report files\n\n";
    for (const auto& [name, why] : unreadable) os << "- " << name << ": " << why << '\n';
    os << '\n';
  }
  return os.str();
}

}  // namespace

void refresh_index(const std::string& dir, const ChartSettings& charts) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw ReportWriteError(fmt::format("cannot write report {}: {}", dir, std::strerror(ENOTDIR)));
  std::vector<IndexEntry> entries;
  std::vector<std::pair<std::string, std::string>> unreadable;
  std::set<std::string> names;
  for (const auto& de : fs::directory_iterator(dir, ec)) names.insert(de.path().filename().string());
  if (ec) throw ReportWriteError(fmt::format("cannot list report folder {}: {}", dir, ec.message()));

  for (const auto& name : names) {
    const bool is_report = name.size() > 9 && name.rfind("ops_", 0) == 0 &&
                           name.compare(name.size() - 5, 5, ".json") == 0;
    if (!is_report) continue;
    const std::string stem = name.substr(0, name.size() - 5);
    try {
      IndexEntry e;
      e.stem = stem;
      e.results = from_json(nlohmann::json::parse(read_text(fs::path(dir) / name)));
      e.summary = build_report(e.results).summary;  // the summary holds no pointer into the results
      e.has_md = names.count(stem + ".md") > 0;
      entries.push_back(std::move(e));
    } catch (const std::exception& ex) {
      unreadable.emplace_back(name, ex.what());
    }
  }
  // ISO 8601 UTC timestamps sort as text; the stem breaks ties the same way.
  std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
    if (a.results.context.timestamp != b.results.context.timestamp)
      return a.results.context.timestamp > b.results.context.timestamp;
    return a.stem > b.stem;
  });

  FileSet set;
  std::optional<ChartSet> trend;
  if (names.count(kHistoryFile)) {
    const std::string folder = (fs::path(dir) / kHistoryCharts).string();
    const std::string temp = make_temp_folder(folder);
    try {
      trend = draw_history_chart((fs::path(dir) / kHistoryFile).string(), goal_speedup(), temp, charts);
    } catch (...) {
      remove_tree(temp);
      throw;
    }
    trend->folder = kHistoryCharts;
    if (trend->drawn()) set.add_folder(folder, temp);
    else remove_tree(temp);
  }
  std::string trend_md;
  if (names.count("trend.md")) {
    try {
      trend_md = read_text(fs::path(dir) / "trend.md");
    } catch (const std::exception& ex) {
      unreadable.emplace_back("trend.md", ex.what());
    }
  }
  set.add_file((fs::path(dir) / "README.md").string(),
               render_index(entries, unreadable, trend ? &*trend : nullptr, trend_md));
  set.commit();
}

}  // namespace opbench::reports
