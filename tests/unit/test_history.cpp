// The history of runs without a GPU: a record from a report, the round trip through JSON lines,
// appending with the medians of old runs dropped, a malformed line named, the trend page, the digest
// of a comparison, and the github-action-benchmark export.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reports/file_set.hpp"
#include "reports/json_writer.hpp"
#include "reports/report_files.hpp"
#include "src/compare/compare_report.hpp"
#include "src/compare/comparison.hpp"
#include "src/compare/history.hpp"
#include "tests/unit/compare_fixtures.hpp"

using namespace opbench;
using namespace opbench::compare;
using namespace opbench::compare::testing;
namespace fs = std::filesystem;

namespace {

class HistoryFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opbench_history_" + std::to_string(::getpid()));
    opbench::reports::remove_tree(dir_.string());
    fs::create_directories(dir_);
  }
  void TearDown() override { opbench::reports::remove_tree(dir_.string()); }
  std::string path() const { return (dir_ / "history.jsonl").string(); }
  fs::path dir_;
};

TEST(HistoryRecord, FromAReport) {
  RunResults r = suite("abc123", "2026-11-21T03:00:00Z", 1);
  r.problems[1].impls[0] = failed_impl(ImplKind::framework, Status::failed, "out of memory");
  const HistoryRecord h = make_record(r, "ops_20261121-030000.json");
  EXPECT_EQ(h.commit, "abc123");
  EXPECT_EQ(h.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.driver, "580.65.06");
  EXPECT_EQ(h.settings, "pure timing, cold L2, TF32 off");  // the events: the series of older reports
  RunResults by_cupti = r;
  by_cupti.context.device_timer = "cupti";  // another clock, another series
  EXPECT_EQ(make_record(by_cupti, "x.json").settings, "pure timing (cupti timer), cold L2, TF32 off");
  EXPECT_EQ(h.report, "ops_20261121-030000.json");
  EXPECT_EQ(h.problems, 4);
  EXPECT_EQ(h.failed, 1);
  ASSERT_EQ(h.categories.size(), 3u);  // activation, element, reduction: the order the run met them
  EXPECT_EQ(h.categories[0].category, "activation");
  EXPECT_EQ(h.framework_ms.size(), 3u);  // the failed one has no median
  const double relu = r.problems[0].find(ImplKind::framework)->time_ms();
  EXPECT_NEAR(h.framework_ms.at("activation/relu/fp32/4096x4096"), relu, relu * 5e-4);  // 4 significant digits
  int graded = 0;
  for (int g : h.grades) graded += g;
  EXPECT_EQ(graded, 3);
}

TEST(HistoryRecord, RoundTripsThroughJson) {
  HistoryRecord h = make_record(suite("abc", "2026-11-21T03:00:00Z", 1), "ops_x.json");
  h.comparison = ComparisonPoint{"old", "2026-11-20T03:00:00Z", "compare_x.md", 10, 1, 2, 3, 0, 1,
                                 {"activation/relu/fp32/4096x4096"}, {"element/add/fp32/4096x4096"}};
  const std::string line = to_json(h).dump();
  EXPECT_EQ(line.find('\n'), std::string::npos);  // one line
  const HistoryRecord back = record_from_json(nlohmann::json::parse(line));
  EXPECT_EQ(to_json(back).dump(), line);
  ASSERT_TRUE(back.comparison.has_value());
  EXPECT_EQ(back.comparison->regressions, h.comparison->regressions);
}

TEST_F(HistoryFile, AppendKeepsMediansOnlyForTheNewestRunsOfASeries) {
  EXPECT_TRUE(read_history(path()).empty());  // no file yet: an empty history
  for (int i = 0; i < 4; ++i)
    append_history(path(), make_record(suite("c" + std::to_string(i), "2026-11-2" + std::to_string(i) + "T03:00:00Z", i), "r"), 2);
  // Another GPU is another series: its medians do not count against the H100's.
  append_history(path(), make_record(suite("x", "2026-11-25T03:00:00Z", 9, 1, 1, "NVIDIA A100-SXM4-80GB"), "r"), 2);
  const auto all = read_history(path());
  ASSERT_EQ(all.size(), 5u);
  EXPECT_TRUE(all[0].framework_ms.empty());
  EXPECT_TRUE(all[1].framework_ms.empty());
  EXPECT_FALSE(all[2].framework_ms.empty());
  EXPECT_FALSE(all[3].framework_ms.empty());
  EXPECT_FALSE(all[4].framework_ms.empty());
  EXPECT_TRUE(all[0].geomean_speedup.has_value());  // the aggregates stay
  std::ifstream in(path());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 5);
}

TEST_F(HistoryFile, AMalformedLineIsNamed) {
  append_history(path(), make_record(suite("a", "2026-11-20T03:00:00Z", 1), "r"), 60);
  std::ofstream(path(), std::ios::app) << "{\"schema_version\": 1, \"date\": \n";
  try {
    read_history(path());
    ADD_FAILURE() << "read a malformed history";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(Trend, ShowsTheLastRunsPerSeriesAndTheLatestComparison) {
  std::vector<HistoryRecord> recs;
  for (int i = 0; i < 3; ++i)
    recs.push_back(make_record(suite("commit" + std::to_string(i), "2026-11-2" + std::to_string(i) + "T03:00:00Z", 10 * i,
                                     i == 2 ? 1.25 : 1.0),
                               "r"));
  recs.back().comparison = ComparisonPoint{"commit1", "2026-11-21T03:00:00Z", "compare_20261122-030000.md", 3, 0, 1, 0, 0, 0,
                                           {"activation/relu/fp32/4096x4096"}, {}};
  recs.push_back(make_record(suite("a100", "2026-11-19T03:00:00Z", 5, 1, 1, "NVIDIA A100-SXM4-80GB"), "r"));
  const std::string md = render_trend(recs, 2);
  EXPECT_NE(md.find("### NVIDIA H100 80GB HBM3 — pure timing, cold L2, TF32 off"), std::string::npos) << md;
  EXPECT_NE(md.find("### NVIDIA A100-SXM4-80GB"), std::string::npos);
  EXPECT_NE(md.find("| activation | element | reduction |"), std::string::npos) << md;
  EXPECT_NE(md.find("commit2"), std::string::npos);
  EXPECT_NE(md.find("commit1"), std::string::npos);
  EXPECT_EQ(md.find("| 2026-11-20 03:00 | commit0"), std::string::npos) << "more runs than asked";  // only 2 shown
  EXPECT_NE(md.find("**1 regression**"), std::string::npos) << md;
  EXPECT_NE(md.find("`activation/relu/fp32/4096x4096`"), std::string::npos);
  EXPECT_NE(md.find("+5."), std::string::npos) << md;  // relu 25% slower over 4 problems: about +5.7% geomean
  EXPECT_NE(render_trend({}, 10).find("No runs in the history yet"), std::string::npos);
}

TEST_F(HistoryFile, TheReportIndexEmbedsTheTrendPage) {
  std::ofstream(dir_ / "ops_20261121-030000.json") << reports::to_json(suite("abc", "2026-11-21T03:00:00Z", 1)).dump();
  const auto all = append_history(path(), make_record(suite("abc", "2026-11-21T03:00:00Z", 1), "ops_20261121-030000.json"), 60);
  std::ofstream(dir_ / "trend.md") << render_trend(all, 10);
  reports::refresh_index(dir_.string());
  std::ifstream in(dir_ / "README.md");
  const std::string index((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto latest = index.find("## Latest run"), trend = index.find("## Trend"), list = index.find("## All reports");
  ASSERT_NE(trend, std::string::npos) << index;
  EXPECT_LT(latest, trend);
  EXPECT_LT(trend, list);
  EXPECT_NE(index.find("| abc |"), std::string::npos) << index;
}

TEST(Trend, ComparisonDigestFromACompareReport) {
  const RunResults a = suite("aaa", "2026-11-20T01:00:00Z", 1), b = suite("bbb", "2026-11-21T01:00:00Z", 2, 1.25);
  const Comparison c = compare_runs({"a.json", {}}, a, {"b.json", {}}, b, Rule{}, false);
  const ComparisonPoint p = comparison_point(to_json(c), "compare_b.md");
  EXPECT_EQ(p.baseline_commit, "aaa");
  EXPECT_EQ(p.slower, 1);
  EXPECT_EQ(p.same, 3);
  EXPECT_EQ(p.regressions, std::vector<std::string>{"activation/relu/fp32/4096x4096"});
  EXPECT_THROW(comparison_point(nlohmann::json{{"schema_version", 2}}, "x.json"), InputError);
}

TEST(Export, GithubActionBenchmarkSmallerIsBetter) {
  const RunResults r = suite("abc", "2026-11-21T03:00:00Z", 1);
  const nlohmann::json j = github_benchmark_json(r);
  ASSERT_EQ(j.size(), 8u);  // 4 problems x (framework, LibTorch)
  EXPECT_EQ(j[0].at("name"), "activation/relu/fp32/4096x4096 framework");
  EXPECT_EQ(j[0].at("unit"), "ms");
  EXPECT_DOUBLE_EQ(j[0].at("value").get<double>(), r.problems[0].find(ImplKind::framework)->time_ms());
  EXPECT_EQ(j[1].at("name"), "activation/relu/fp32/4096x4096 torch");
  EXPECT_NE(j[0].at("range").get<std::string>().find("±"), std::string::npos);
}

}  // namespace
