#include "reports/report_files.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "reports/file_set.hpp"

namespace fs = std::filesystem;

namespace opbench::reports {
namespace {

void ensure_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ReportWriteError(fmt::format("cannot create report folder {}: {}", dir, ec.message()));
  if (!fs::is_directory(dir, ec))
    throw ReportWriteError(fmt::format("cannot write report {}: {}", dir, std::strerror(ENOTDIR)));
}

// Draws the charts of `json_text` into `folder` (a hidden temporary folder). The script reads the
// report from a hidden temporary file beside it, removed afterwards.
ChartSet draw_into(const std::string& folder, const std::string& json_text, const ChartSettings& settings) {
  if (!settings.enabled) return ChartSet{{}, {}, "charts were not asked for"};
  const std::string input = folder + ".report.json";
  write_file_atomic(input, json_text);
  ChartSet set = draw_report_charts(input, folder, settings);
  ::unlink(input.c_str());
  return set;
}

}  // namespace

void check_writable(const std::string& dir) {
  // Leaves nothing behind: the folder, or the nearest part of its path that exists, must be a folder
  // in which an entry can be created (probed by creating and removing one: permission bits alone miss
  // read-only and pseudo file systems such as /proc, and say yes to root everywhere).
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) throw ReportWriteError(fmt::format("cannot use report folder {}: {}", dir, ec.message()));
  while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  if (!fs::is_directory(p, ec))
    throw ReportWriteError(fmt::format("cannot create report folder {}: {} is not a folder", dir, p.string()));
  std::string probe = (p / ".opbench-probe-XXXXXX").string();
  const bool exists = fs::equivalent(p, fs::absolute(dir, ec), ec);
  bool ok = false;
  if (exists) {
    const int fd = ::mkstemp(probe.data());
    if (fd >= 0) {
      ::close(fd);
      ::unlink(probe.c_str());
      ok = true;
    }
  } else if (::mkdtemp(probe.data()) != nullptr) {
    ::rmdir(probe.c_str());
    ok = true;
  }
  if (!ok)
    throw ReportWriteError(fmt::format("cannot {} report folder {}: {}: {}", exists ? "write" : "create", dir,
                                       p.string(), std::strerror(errno)));
}

std::vector<std::string> write_reports(const Report& report, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem, const ChartSettings& charts) {
  ensure_dir(dir);
  const fs::path d(dir);
  const std::string json_text = to_json(report).dump(2) + "\n";
  FileSet set;
  std::string md_text;
  if (markdown) {
    // The charts are drawn from the JSON (the same figures the report shows) before the Markdown that
    // embeds them is rendered, so that it links only what exists, or says why there is nothing.
    const std::string folder_name = stem + "_charts";
    const std::string temp = make_temp_folder((d / folder_name).string());
    ChartSet drawn;
    try {
      drawn = draw_into(temp, json_text, charts);
    } catch (...) {
      remove_tree(temp);
      throw;
    }
    drawn.folder = folder_name;
    if (drawn.drawn()) set.add_folder((d / folder_name).string(), temp);
    else remove_tree(temp);
    std::ostringstream os;
    write_markdown(report, drawn, os);
    md_text = os.str();
  }
  std::vector<std::string> stems = {stem};
  if (stem != "latest") stems.push_back("latest");
  for (const std::string& s : stems) {
    if (markdown) set.add_file((d / (s + ".md")).string(), md_text);
    if (json) set.add_file((d / (s + ".json")).string(), json_text);
  }
  set.commit();
  return set.paths();
}

std::vector<std::string> write_reports(const RunResults& results, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem, const ChartSettings& charts) {
  return write_reports(build_report(results), dir, markdown, json, stem, charts);
}

}  // namespace opbench::reports
