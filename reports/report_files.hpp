// Report files on disk: a run's Markdown, JSON and charts, and the index (README.md) of every run in a
// folder.
//
// Naming, as bench_ops uses it: each run writes <dir>/ops_<YYYYmmdd-HHMMSS>.md and .json (stem from the
// run's UTC start time) and the folder <stem>_charts/ with the PNGs its Markdown embeds (relative links,
// so GitHub renders them); write_reports also writes the same Markdown and JSON to latest.md and
// latest.json, so that a fixed link always shows the newest run (its charts are the run's own folder).
// refresh_index lists only ops_*.json, never latest.*.
//
// Every report set is written whole or not at all (file_set.hpp): Markdown, JSON, the latest copies and
// the chart folder appear together. Charts that cannot be drawn (no python3, no matplotlib) never fail
// the write: the Markdown says why they were skipped.
#pragma once
#include <string>
#include <vector>

#include "opbench/result.hpp"
#include "reports/charts.hpp"
#include "reports/file_set.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {

// Creates `dir` if needed and writes <stem>.md and <stem>_charts/ (if markdown) and <stem>.json (if
// json), plus latest.md / latest.json copies unless stem is "latest". Returns the paths written. On any
// failure nothing it started is left behind and it throws ReportWriteError naming the path and the
// system's reason.
std::vector<std::string> write_reports(const Report& report, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem, const ChartSettings& charts = {});
// For callers that hold only the results (the report is built for this call).
std::vector<std::string> write_reports(const RunResults& results, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem, const ChartSettings& charts = {});

// Rewrites <dir>/README.md: the latest run's summary and category breakdown, the trend of geomean
// speedup per category when <dir>/history.jsonl exists (chart in <dir>/history_charts/; the table and the
// latest comparison from <dir>/trend.md, which `bench_ops history append` writes), then every
// ops_*.json in the folder, newest first (by context.timestamp). Files that cannot be read are listed
// as such. Throws ReportWriteError when the index cannot be written.
void refresh_index(const std::string& dir, const ChartSettings& charts = {});

// Before a run: checks, creating nothing, that `dir` (or the nearest existing part of its path) is a
// writable folder, so an unwritable --output-dir is reported before any GPU time is spent. Throws
// ReportWriteError.
void check_writable(const std::string& dir);

}  // namespace opbench::reports
