#include "reports/report_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "reports/format.hpp"
#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "reports/summary.hpp"

namespace fs = std::filesystem;

namespace opbench::reports {
namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw ReportWriteError(fmt::format("cannot write report {}: {}", path, std::strerror(err)));
}

void ensure_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ReportWriteError(fmt::format("cannot create report folder {}: {}", dir, ec.message()));
  if (!fs::is_directory(dir, ec)) fail(dir, ENOTDIR);
}

// The content in a hidden temporary next to `path` (same file system, so rename is atomic).
std::string write_temp(const std::string& path, const std::string& content) {
  const fs::path p(path);
  std::string tmpl = (p.parent_path() / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(path, errno);
  auto bail = [&](int err) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    fail(path, err);
  };
  // mkstemp creates 0600; reports are meant to be read by everyone who can read the folder.
  if (::fchmod(fd, 0644) != 0) bail(errno);
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) bail(errno);
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0) bail(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    fail(path, err);
  }
  return tmpl;
}

struct Pending {
  std::string path, content, temp;
};

// All temporaries first, then the renames: a failure part-way removes everything this call created.
void commit(std::vector<Pending>& files) {
  auto cleanup = [&](std::size_t renamed) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (i < renamed) ::unlink(files[i].path.c_str());
      else if (!files[i].temp.empty()) ::unlink(files[i].temp.c_str());
    }
  };
  try {
    for (auto& f : files) f.temp = write_temp(f.path, f.content);
  } catch (...) {
    cleanup(0);
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(files[i].temp.c_str(), files[i].path.c_str()) != 0) {
      const int err = errno;
      cleanup(i);
      fail(files[i].path, err);
    }
  }
}

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
                         const std::vector<std::pair<std::string, std::string>>& unreadable, const std::string& trend) {
  std::ostringstream os;
  os << "# opbench benchmark reports\n\n"
     << "Each bench_ops run writes ops_<YYYYmmdd-HHMMSS>.md and .json here (the newest also as latest.md and "
        "latest.json) and rewrites this index.\n\n";
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
  // The trend across runs and the latest comparison: trend.md, which `bench_ops history append` writes
  // from history.jsonl beside it (the index does not read the history's format itself).
  if (!trend.empty()) os << trend << (trend.back() == '\n' ? "" : "\n");
  if (!entries.empty()) {
    os << "## All reports (newest first)\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& e : entries) {
      std::string cats;
      for (const auto& cs : e.summary.categories) cats += (cats.empty() ? "" : ", ") + std::string(category_name(cs.category));
      std::vector<std::string> row = {date_text(e.results.context.timestamp), link(e), e.results.context.device.name,
                                      cats.empty() ? kDash : cats, std::to_string(e.summary.problems),
                                      fmt_speedup(e.summary.geomean_speedup)};
      for (int g = 0; g < 5; ++g) row.push_back(std::to_string(e.summary.grades[g]));
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

void write_file_atomic(const std::string& path, const std::string& content) {
  std::vector<Pending> files{{path, content, {}}};
  commit(files);
}

std::vector<std::string> write_reports(const RunResults& results, const std::string& dir, bool markdown, bool json,
                                       const std::string& stem) {
  ensure_dir(dir);
  std::vector<std::pair<std::string, std::string>> outputs;  // (extension, content)
  if (markdown) {
    std::ostringstream md;
    write_markdown(results, md);
    outputs.emplace_back(".md", md.str());
  }
  if (json) outputs.emplace_back(".json", to_json(results).dump(2) + "\n");

  std::vector<Pending> files;
  for (const auto& [ext, content] : outputs) files.push_back({(fs::path(dir) / (stem + ext)).string(), content, {}});
  if (stem != "latest")
    for (const auto& [ext, content] : outputs) files.push_back({(fs::path(dir) / ("latest" + ext)).string(), content, {}});
  commit(files);

  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  return paths;
}

void refresh_index(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(dir, ENOTDIR);
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
      e.summary = summarize(e.results);
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
  std::string trend;
  if (fs::exists(fs::path(dir) / "trend.md", ec)) {
    try {
      trend = read_text(fs::path(dir) / "trend.md");
    } catch (const std::exception& ex) {
      unreadable.emplace_back("trend.md", ex.what());
    }
  }
  write_file_atomic((fs::path(dir) / "README.md").string(), render_index(entries, unreadable, trend));
}

}  // namespace opbench::reports
