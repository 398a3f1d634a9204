// Charts: drawn by scripts/plots/plot_report.py from the committed small test report (tests/data), published
// with the report set, embedded in its Markdown with relative links; and, when Python or matplotlib is
// missing or the script fails, a report that says why and a write that still succeeds.
//
// These tests need the interpreter CMake chose (a python3 with matplotlib; scripts/common.sh installs
// python3-matplotlib). Without one, the first test fails and says so.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "report_test_files.hpp"
#include "reports/json_writer.hpp"
#include "reports/report_files.hpp"

#ifndef OPBENCH_TEST_DATA
#error "OPBENCH_TEST_DATA must name tests/data"
#endif

using namespace opbench;
using namespace opbench::reports;
using opbench::testing::listing;
using opbench::testing::read_file;
using opbench::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kStem = "ops_20251122-103500";

std::string data_path(const std::string& name) { return std::string(OPBENCH_TEST_DATA) + "/" + name; }

// The committed small report, read back as bench_ops would have it in memory.
RunResults small_report() { return from_json(nlohmann::json::parse(read_file(data_path("report_small.json")))); }

// A PNG: the 8-byte signature, then the IHDR chunk with the image's width and height.
::testing::AssertionResult is_png(const fs::path& p) {
  const std::string b = read_file(p.string());
  if (b.size() < 24 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || b.compare(12, 4, "IHDR") != 0)
    return ::testing::AssertionFailure() << p << " is not a PNG";
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return v;
  };
  const std::uint32_t w = be32(16), h = be32(20);
  if (w < 300 || h < 200 || b.size() < 10000)
    return ::testing::AssertionFailure() << p << " is too small to be a chart: " << w << "x" << h << ", " << b.size()
                                         << " bytes";
  return ::testing::AssertionSuccess();
}

// Every "](folder/file.png)" image link of a Markdown text.
std::vector<std::string> image_links(const std::string& md) {
  std::vector<std::string> links;
  const std::regex link(R"(!\[[^\]]*\]\(([^)]+\.png)\))");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator(); ++it)
    links.push_back((*it)[1]);
  return links;
}

std::string skip_line(const std::string& md) {
  const auto at = md.find("Charts skipped:");
  return at == std::string::npos ? std::string() : md.substr(at, md.find('\n', at) - at);
}

void expect_no_temporaries(const fs::path& dir) {
  for (const auto& name : listing(dir)) EXPECT_NE(name[0], '.') << "temporary left: " << name;
}

// An interpreter that cannot import matplotlib: the build's own python3 without its site-packages.
std::string python_without_matplotlib(const fs::path& dir) {
  const fs::path wrapper = dir / "python-without-site";
  std::ofstream(wrapper) << "#!/bin/sh\nexec '" << default_python() << "' -S \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  return wrapper.string();
}

ChartSettings with_python(const std::string& python) {
  ChartSettings s;
  s.python = python;
  return s;
}

}  // namespace

TEST(Charts, DrawnFromTheCommittedSmallReportAndLinked) {
  const RunResults results = small_report();
  TempDir tmp;
  const auto paths = write_reports(build_report(results), tmp.path.string(), true, true, kStem);
  const std::string md = read_file((tmp.path / (kStem + ".md")).string());
  ASSERT_TRUE(fs::is_directory(tmp.path / (kStem + "_charts")))
      << "no charts were drawn with " << default_python() << " (" << skip_line(md)
      << "); install python3-matplotlib (scripts/common.sh does) and reconfigure";
  EXPECT_EQ(paths.front(), (tmp.path / (kStem + "_charts")).string());

  // One speedup chart per category with compared problems (in the report's category order), the
  // bandwidth chart and the roofline.
  const std::vector<std::string> expected = {"bandwidth.png",          "roofline.png",
                                             "speedup-activation.png", "speedup-element.png",
                                             "speedup-matmul.png",     "speedup-norm.png",
                                             "speedup-reduction.png"};
  EXPECT_EQ(listing(tmp.path / (kStem + "_charts")), expected);
  for (const auto& f : expected) EXPECT_TRUE(is_png(tmp.path / (kStem + "_charts") / f));

  // The Markdown (and its latest.md copy) links every chart, relative to itself, and nothing else.
  for (const std::string& name : {kStem + ".md", std::string("latest.md")}) {
    const std::string text = read_file((tmp.path / name).string());
    const std::vector<std::string> links = image_links(text);
    std::set<std::string> linked;
    for (const auto& l : links) {
      EXPECT_TRUE(fs::is_regular_file(tmp.path / l)) << name << " links " << l << ", which does not exist";
      EXPECT_EQ(l.rfind(kStem + "_charts/", 0), 0u) << l;
      linked.insert(l.substr(l.find('/') + 1));
    }
    EXPECT_EQ(linked, std::set<std::string>(expected.begin(), expected.end())) << name;
    EXPECT_EQ(skip_line(text), "");
  }
  EXPECT_LT(md.find("![Speedup vs LibTorch: element]"), md.find("![Speedup vs LibTorch: activation]"));
  EXPECT_LT(md.find("## Charts"), md.find("## Detailed results"));
  expect_no_temporaries(tmp.path);
  struct stat st {};
  ASSERT_EQ(::stat((tmp.path / (kStem + "_charts")).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST(Charts, SkippedWithTheReasonWhenMatplotlibIsMissing) {
  TempDir tmp;
  const fs::path out = tmp.path / "reports";
  const ChartSettings s = with_python(python_without_matplotlib(tmp.path));
  const auto paths = write_reports(small_report(), out.string(), true, true, kStem, s);
  EXPECT_EQ(paths.size(), 4u);  // the report set is whole: Markdown and JSON, no chart folder
  EXPECT_EQ(listing(out), (std::vector<std::string>{"latest.json", "latest.md", kStem + ".json", kStem + ".md"}));
  const std::string md = read_file((out / (kStem + ".md")).string());
  EXPECT_EQ(skip_line(md).rfind("Charts skipped: matplotlib is not installed for ", 0), 0u) << skip_line(md);
  EXPECT_NE(md.find("install python3-matplotlib"), std::string::npos);
  EXPECT_TRUE(image_links(md).empty());
  expect_no_temporaries(out);
}

TEST(Charts, SkippedWithTheReasonWhenPythonIsMissing) {
  TempDir tmp;
  write_reports(small_report(), tmp.path.string(), true, false, kStem, with_python("/nonexistent/python3"));
  EXPECT_EQ(skip_line(read_file((tmp.path / (kStem + ".md")).string())),
            "Charts skipped: cannot run /nonexistent/python3: No such file or directory (install python3 and "
            "python3-matplotlib).");
  EXPECT_EQ(listing(tmp.path), (std::vector<std::string>{"latest.md", kStem + ".md"}));
}

TEST(Charts, AFailingOrHangingScriptIsReportedNotFatal) {
  TempDir tmp;
  ChartSettings s;
  s.script = (tmp.path / "broken.py").string();
  std::ofstream(s.script) << "import sys\nprint('drawing...')\nprint('boom: no such column', file=sys.stderr)\n"
                             "sys.exit(1)\n";
  const fs::path out = tmp.path / "out";
  write_reports(small_report(), out.string(), true, false, kStem, s);
  EXPECT_EQ(skip_line(read_file((out / (kStem + ".md")).string())),
            "Charts skipped: the plot script failed (exit 1): boom: no such column.");

  std::ofstream(s.script) << "import time\ntime.sleep(30)\n";
  s.timeout_s = 1;
  write_reports(small_report(), out.string(), true, false, kStem, s);
  EXPECT_EQ(skip_line(read_file((out / (kStem + ".md")).string())),
            "Charts skipped: the plot script took more than 1 s and was stopped.");
  expect_no_temporaries(out);
}

TEST(Charts, ReplaceTheFolderOfAnEarlierRunOfTheSameStem) {
  TempDir tmp;
  const fs::path charts = tmp.path / (kStem + "_charts");
  fs::create_directory(charts);
  std::ofstream(charts / "stale.png") << "from an earlier run";
  write_reports(small_report(), tmp.path.string(), true, true, kStem);
  ASSERT_TRUE(fs::is_directory(charts));
  EXPECT_FALSE(fs::exists(charts / "stale.png"));
  EXPECT_TRUE(is_png(charts / "roofline.png"));
  expect_no_temporaries(tmp.path);
}

TEST(Charts, AFailedSetPutsTheEarlierFolderBack) {
  TempDir tmp;
  const fs::path charts = tmp.path / "ops_z_charts";
  fs::create_directory(charts);
  std::ofstream(charts / "earlier.png") << "earlier";
  // A folder where the JSON should go: the chart folder and the .md are in place when that rename fails.
  fs::create_directories(tmp.path / "ops_z.json" / "keep");
  EXPECT_THROW(write_reports(small_report(), tmp.path.string(), true, true, "ops_z"), ReportWriteError);
  EXPECT_EQ(listing(tmp.path), (std::vector<std::string>{"ops_z.json", "ops_z_charts"}));
  EXPECT_EQ(listing(charts), std::vector<std::string>{"earlier.png"});
}

TEST(Charts, IndexShowsTheTrendOfTheRecordedHistory) {
  TempDir tmp;
  fs::copy_file(data_path("history_small.jsonl"), tmp.path / "history.jsonl");
  write_reports(small_report(), tmp.path.string(), false, true, "ops_a", ChartSettings{false});
  refresh_index(tmp.path.string());
  const std::string index = read_file((tmp.path / "README.md").string());
  EXPECT_NE(index.find("## Geomean speedup over the recorded runs\n\n![Geomean speedup per category over the "
                       "recorded runs](history_charts/trend.png)"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("1 unreadable lines were skipped"), std::string::npos);
  EXPECT_TRUE(is_png(tmp.path / "history_charts" / "trend.png"));
  EXPECT_LT(index.find("## Latest run"), index.find("## Geomean speedup over the recorded runs"));

  refresh_index(tmp.path.string(), with_python(python_without_matplotlib(tmp.path)));
  EXPECT_NE(read_file((tmp.path / "README.md").string()).find("Chart skipped: matplotlib is not installed for "),
            std::string::npos);
  EXPECT_TRUE(is_png(tmp.path / "history_charts" / "trend.png"));  // the last drawn trend stays
  expect_no_temporaries(tmp.path);
}
