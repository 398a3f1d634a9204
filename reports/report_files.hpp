// Report files on disk: a run's Markdown and JSON, and the index (README.md) of every run in a folder.
//
// Naming, as bench_ops uses it: each run writes <dir>/ops_<YYYYmmdd-HHMMSS>.md and .json (stem from the
// run's UTC start time), and write_reports also writes the same content to latest.md and latest.json, so
// that a fixed link always shows the newest run. refresh_index lists only ops_*.json, never latest.*.
//
// Every file is written whole or not at all: the content goes to a hidden temporary file in the same
// folder, is flushed to disk, and is renamed over the final name; a reader never sees half a report.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::reports {

class ReportWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates `dir` if needed and writes <stem>.md (if markdown) and <stem>.json (if json), plus latest.md /
// latest.json copies unless stem is "latest". Returns the paths written. On any failure nothing it
// started is left behind (temporaries removed, files it already renamed in this call removed) and it
// throws ReportWriteError naming the path and the system's reason.
std::vector<std::string> write_reports(const RunResults& results, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem);

// Rewrites <dir>/README.md: the latest run's summary and category breakdown, the trend (<dir>/trend.md,
// written by `bench_ops history append`, when there is one), then every ops_*.json in the folder,
// newest first (by context.timestamp). Files that cannot be read are listed as such.
// Throws ReportWriteError when the index cannot be written.
void refresh_index(const std::string& dir);

// Before a run: checks, creating nothing, that `dir` (or the nearest existing part of its path) is a
// writable folder, so an unwritable --output-dir is reported before any GPU time is spent. Throws
// ReportWriteError.
void check_writable(const std::string& dir);

// Writes `content` to `path` atomically (temporary file + fsync + rename); throws ReportWriteError.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace opbench::reports
