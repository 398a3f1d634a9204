// What the three comparison writers share: number formats, run labels, file names, atomic files.
#include "src/compare/compare_report.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "reports/format.hpp"
#include "reports/report_files.hpp"

namespace opbench::compare {

std::string fmt_change(double ratio) {
  if (!(ratio > 0)) return reports::kDash;
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string fmt_timing(const TimingBrief& t) {
  return fmt::format("{} [{}, {}]", reports::fmt_ms(t.median_ms), reports::fmt_ms(t.q1_ms), reports::fmt_ms(t.q3_ms));
}

std::string run_label(const RunInfo& r) {
  const std::string name = std::filesystem::path(r.path).filename().string();
  std::string when = r.context.timestamp;
  if (auto t = when.find('T'); t != std::string::npos) when[t] = ' ';
  if (when.size() >= 16) when = when.substr(0, 16);  // to the minute
  return fmt::format("{} (commit {}, {})", name, r.context.git_commit.empty() ? reports::kDash : r.context.git_commit,
                     when.empty() ? reports::kDash : when);
}

std::string settings_text(const RunContext& c) {
  // The events timed every report before the device timer existed: their text (and the history series
  // it names) stays as it was; another timer is named.
  const std::string timer = c.device_timer == "events" || c.device_timer.empty() ? "" : " (" + c.device_timer + " timer)";
  return fmt::format("{} timing{}, {} L2, TF32 {}", c.timing_mode.empty() ? "pure" : c.timing_mode, timer,
                     c.l2_mode.empty() ? "cold" : c.l2_mode, c.tf32 ? "on" : "off");
}

std::string report_stem(const Comparison& c) {
  // "2026-11-22T11:42:52Z" -> "20261122-114252"
  std::string digits;
  for (char ch : c.current.context.timestamp)
    if (ch >= '0' && ch <= '9') digits += ch;
  if (digits.size() < 14) return "compare";
  return "compare_" + digits.substr(0, 8) + "-" + digits.substr(8, 6);
}

std::vector<std::string> write_comparison(const Comparison& c, const std::string& dir, bool markdown, bool json) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw reports::ReportWriteError(fmt::format("cannot create folder {}: {}", dir, ec.message()));
  const std::string stem = (std::filesystem::path(dir) / report_stem(c)).string();
  std::vector<std::string> paths;
  if (markdown) {
    std::ostringstream md;
    write_markdown(c, md);
    reports::write_file_atomic(stem + ".md", md.str());
    paths.push_back(stem + ".md");
  }
  if (json) {
    try {
      reports::write_file_atomic(stem + ".json", to_json(c).dump(1) + "\n");
    } catch (...) {
      for (const auto& p : paths) std::filesystem::remove(p, ec);  // both formats or neither
      throw;
    }
    paths.push_back(stem + ".json");
  }
  return paths;
}

}  // namespace opbench::compare
