// The comparison's outputs: a console table of what changed, a Markdown report and a JSON report (one
// file per format, as the run reports). Files are named compare_<current run's UTC start>.md / .json and
// written whole or not at all (reports::write_file_atomic).
#pragma once
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "src/compare/comparison.hpp"

namespace opbench::compare {

inline constexpr int kCompareSchemaVersion = 1;

void write_console(const Comparison& c, std::ostream& os);
void write_markdown(const Comparison& c, std::ostream& os);
nlohmann::json to_json(const Comparison& c);

// "compare_20261122-114252" from the current run's timestamp ("compare" when it has none).
std::string report_stem(const Comparison& c);

// Writes <dir>/<stem>.md and/or .json; returns the paths. Throws reports::ReportWriteError.
std::vector<std::string> write_comparison(const Comparison& c, const std::string& dir, bool markdown, bool json);

// --- shared by the writers -------------------------------------------------------------------------
std::string fmt_change(double ratio);             // 1.073 -> "+7.3%", 0 -> "—"
std::string fmt_timing(const TimingBrief& t);     // "0.0452 [0.0450, 0.0455]"
std::string run_label(const RunInfo& r);          // "ops_20261122-114252.json (commit 0123abc, 2026-11-22 11:42)"
std::string settings_text(const RunContext& c);   // "pure timing, cold L2, TF32 off"

}  // namespace opbench::compare
