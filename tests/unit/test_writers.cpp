// The report writers against golden files, the JSON round trip, atomic report files and the index.
// Golden files: tests/data/report_small.{md,json} and live_small.txt. After an intended format change,
// regenerate them with OPBENCH_UPDATE_GOLDEN=1 (the tests then skip), read the diff, and commit it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <sstream>

#include "reports/json_writer.hpp"
#include "reports/live_reporter.hpp"
#include "reports/markdown.hpp"
#include "reports/report_files.hpp"

#ifndef OPBENCH_TEST_DATA
#error "OPBENCH_TEST_DATA must name tests/data"
#endif

using namespace opbench;
using namespace opbench::reports;
namespace fs = std::filesystem;

namespace {

TimeStats stats(double median, double cv = 0.02, bool reliable = true) {
  TimeStats t;
  t.median_ms = median, t.min_ms = median * 0.97, t.max_ms = median * 1.05, t.mean_ms = median * 1.01;
  t.stddev_ms = median * cv, t.cv = cv, t.samples = 3, t.outliers = 3, t.reliable = reliable;
  t.q1_ms = median * 0.99, t.q3_ms = median * 1.02, t.samples_ms = {median * 0.99, median, median * 1.02};
  t.sm_clock_mhz = 1980, t.throttled_samples = 1, t.stop_reason = "precision";
  return t;
}

ImplResult timed(ImplKind k, double ms, double memory_mb = 0) {
  ImplResult r;
  r.impl = k, r.pure = stats(ms), r.memory_mb = memory_mb;
  return r;
}

ProblemResult problem(const std::string& op, Category c, Shape shape, SizeClass sc, DType t, double bytes,
                      double torch_ms, double fw_ms) {
  ProblemResult p;
  p.op = op, p.category = c, p.shape = shape, p.size_class = sc, p.dtype = t, p.bytes = bytes;
  p.impls = {timed(ImplKind::framework, fw_ms, bytes / 1e6), timed(ImplKind::torch, torch_ms, bytes / 1e6)};
  p.impls[0].verify.checked = p.impls[0].verify.correct = true;
  p.impls[0].verify.max_abs_err = 2.384185791015625e-07, p.impls[0].verify.max_rel_err = 1.1920928955078125e-07;
  p.impls[0].verify.oracle_max_abs_err = 3.5e-07, p.impls[0].verify.oracle_rel_l2_err = 4.2e-08;
  p.impls[0].verify.tolerance = {1e-5, 1.3e-6};
  p.impls[1].verify.checked = p.impls[1].verify.correct = true;  // LibTorch against the fp64 oracle
  p.impls[1].verify.oracle_max_abs_err = 2.5e-07, p.impls[1].verify.oracle_rel_l2_err = 3.1e-08;
  p.impls[1].verify.tolerance = {1e-5, 1.3e-6};
  return p;
}

// A small run that touches every section: a fast add, a slow broadcast of it, a launch-bound activation,
// an incorrect and a failed problem, a layer norm with a cuDNN row and a noisy LibTorch timing, a matmul
// with cuBLAS.
RunResults small_run() {
  RunResults r;
  DeviceInfo& d = r.context.device;
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_major = 9, d.compute_minor = 0, d.sm_count = 132, d.sm_clock_mhz = 1980, d.mem_clock_mhz = 2619;
  d.bus_width_bits = 5120, d.l2_mb = 50, d.memory_gb = 79.1;
  d.theoretical_gbps = 2 * 2619e6 * 5120 / 8 / 1e9;
  d.measured_copy_gbps = 3010.5;
  d.measured_read_gbps = 3190.25;
  d.driver_version = "580.65.06", d.runtime_version = "13.0", d.cublas_version = "13.0.0";
  d.cudnn_version = "9.19.0", d.torch_version = "2.11.0";
  r.context.l2_flush = "write then read a 100 MB buffer";
  r.context.stopping = "median known to 0.5% (95% confidence), 10-1000 samples, 0.5 s per problem";
  r.context.command_line = "bench_ops --category element,activation,norm,matmul --dtype fp32,fp16";
  r.context.git_commit = "0123abc";
  r.context.timestamp = "2025-11-22T10:35:00Z";
  r.context.timing_mode = "pure", r.context.l2_mode = "cold";

  const double n = 4096.0 * 4096;
  r.problems.push_back(problem("add", Category{"element"}, {4096, 4096}, SizeClass::large, DType::f32, 3 * n * 4,
                               0.0712, 0.0685));
  r.problems.push_back(problem("add_bcast_row", Category{"element"}, {4096, 4096}, SizeClass::large, DType::f32,
                               2 * n * 4 + 4096 * 4, 0.0601, 0.0790));
  r.problems.push_back(problem("relu", Category{"activation"}, {256, 256}, SizeClass::small, DType::f16,
                               2 * 65536 * 2, 0.00412, 0.00398));

  ProblemResult gelu = problem("gelu_tanh", Category{"activation"}, {1024, 1024}, SizeClass::medium, DType::f16,
                               2 * 1048576 * 2, 0.0101, 0.0097);
  gelu.impls[0].status = Status::incorrect;
  gelu.impls[0].message = "outputs differ from LibTorch beyond tolerance";
  gelu.impls[0].verify.correct = false, gelu.impls[0].verify.max_abs_err = 0.0312, gelu.impls[0].verify.max_rel_err = 0.0156;
  gelu.impls[0].verify.mismatches = 1024, gelu.impls[0].verify.first_mismatch = "index 17: got 1.5, expected 1.25";
  gelu.impls[0].verify.tolerance = {1e-3, 1e-3};
  r.problems.push_back(gelu);

  ProblemResult ln = problem("layer_norm", Category{"norm"}, {8192, 1024}, SizeClass::medium, DType::f32,
                             2 * 8192.0 * 1024 * 4, 0.0301, 0.0254);
  ln.impls[1].pure = stats(0.0301, 0.18, false);
  ln.impls.push_back(timed(ImplKind::cudnn, 0.0282));
  r.problems.push_back(ln);

  ProblemResult sum = problem("sum | rows", Category{"reduction"}, {8192, 8192}, SizeClass::very_large, DType::f32,
                              8192.0 * 8192 * 4, 0.0952, 0);
  sum.impls[0] = ImplResult{ImplKind::framework, Status::failed, "kernel launch: too many resources requested",
                            {}, {}, {}, 0};
  sum.impls[0].verify = {};
  r.problems.push_back(sum);

  ProblemResult mm = problem("matmul", Category{"matmul"}, {4096, 4096, 4096}, SizeClass::large, DType::f16,
                             3 * n * 2, 0.1681, 0.1795);
  mm.flops = 2 * n * 4096;
  mm.impls.push_back(timed(ImplKind::cublas, 0.1662));
  mm.impls[0].real = stats(0.1850);
  r.problems.push_back(mm);
  return r;
}

std::string data_path(const std::string& name) { return std::string(OPBENCH_TEST_DATA) + "/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares with the golden file, or (OPBENCH_UPDATE_GOLDEN=1) rewrites it and skips.
void expect_golden(const std::string& name, const std::string& actual) {
  if (std::getenv("OPBENCH_UPDATE_GOLDEN")) {
    std::ofstream(data_path(name), std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << data_path(name);
  }
  ASSERT_TRUE(fs::exists(data_path(name))) << data_path(name);
  EXPECT_EQ(actual, read_file(data_path(name))) << "differs from " << data_path(name);
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct TempDir {
  fs::path path;
  TempDir() {
    // $TMPDIR first, then the working directory (a CI or GPU node may point TMPDIR somewhere unusable).
    for (const fs::path& base : {fs::temp_directory_path(), fs::current_path()}) {
      std::string tmpl = (base / "opbench_reports_XXXXXX").string();
      if (const char* made = ::mkdtemp(tmpl.data())) {
        path = made;
        return;
      }
    }
    throw std::runtime_error(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(Markdown, MatchesGolden) {
  std::ostringstream os;
  write_markdown(small_run(), os);
  expect_golden("report_small.md", os.str());
}

TEST(Markdown, TablesStayValid) {
  std::ostringstream os;
  write_markdown(small_run(), os);
  // Every table row has as many unescaped '|' as its header: "sum | rows" must not add a column.
  std::istringstream lines(os.str());
  std::string line;
  int expected = -1;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') {
      expected = -1;
      continue;
    }
    int bars = 0;
    for (std::size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (expected < 0) expected = bars;
    EXPECT_EQ(bars, expected) << line;
  }
  EXPECT_NE(os.str().find("sum \\| rows"), std::string::npos);
}

TEST(Json, MatchesGolden) { expect_golden("report_small.json", to_json(small_run()).dump(2) + "\n"); }

TEST(Json, RecordFields) {
  const nlohmann::json j = to_json(small_run());
  EXPECT_EQ(j.at("schema_version"), kJsonSchemaVersion);
  EXPECT_EQ(j.at("context").at("system").at("sm_count"), 132);
  const auto& add = j.at("results").at(0);
  EXPECT_EQ(add.at("operation"), "add");
  EXPECT_EQ(add.at("implementation"), "framework");
  EXPECT_EQ(add.at("shape"), nlohmann::json::array({4096, 4096}));
  EXPECT_DOUBLE_EQ(add.at("time_ms").get<double>(), 0.0685);
  EXPECT_DOUBLE_EQ(add.at("speedup").get<double>(), 0.0712 / 0.0685);
  EXPECT_DOUBLE_EQ(add.at("throughput_gbps").get<double>(), 3 * 4096.0 * 4096 * 4 / 0.0685e-3 / 1e9);
  EXPECT_EQ(add.at("grade"), "🟢");
  EXPECT_FALSE(add.contains("real_time_ms"));  // only where real timing was measured
  // What a comparison of two runs reads.
  const auto& ts = add.at("time_stats");
  for (const char* k : {"min", "q1", "median", "q3", "max", "samples", "samples_ms", "sm_clock_mhz",
                        "throttled_samples", "stop_reason"})
    EXPECT_TRUE(ts.contains(k)) << k;
  EXPECT_EQ(ts.at("samples_ms").size(), 3u);
  EXPECT_EQ(j.at("context").at("l2_flush"), "write then read a 100 MB buffer");
  EXPECT_TRUE(j.at("context").contains("read_roof_gbps"));
  // Each implementation has its own verdict.
  EXPECT_TRUE(j.at("results").at(1).at("verification").at("checked"));
  const auto& failed = j.at("results").at(11);  // add, add_bcast_row, relu, gelu: 2 rows each; layer_norm: 3
  EXPECT_EQ(failed.at("operation"), "sum | rows");
  EXPECT_EQ(failed.at("status"), "failed");
  EXPECT_TRUE(failed.at("time_ms").is_null());
  EXPECT_TRUE(failed.at("speedup").is_null());
  EXPECT_EQ(j.at("summary").at("problems"), 7);
}

TEST(Json, RoundTrip) {
  const RunResults original = small_run();
  const RunResults back = from_json(to_json(original));
  EXPECT_EQ(to_json(back), to_json(original));
  ASSERT_EQ(back.problems.size(), original.problems.size());
  const ProblemResult& mm = back.problems.back();
  EXPECT_EQ(mm.shape, (Shape{4096, 4096, 4096}));
  EXPECT_EQ(mm.flops, original.problems.back().flops);
  ASSERT_EQ(mm.impls.size(), 3u);
  EXPECT_EQ(mm.impls[2].impl, ImplKind::cublas);
  ASSERT_TRUE(mm.impls[0].real);
  EXPECT_EQ(mm.impls[0].real->median_ms, 0.1850);
  EXPECT_EQ(back.problems[3].framework_verify().first_mismatch, "index 17: got 1.5, expected 1.25");
  EXPECT_EQ(back.problems[3].impls[0].status, Status::incorrect);
  EXPECT_THROW(from_json(nlohmann::json{{"schema_version", 99}}), std::runtime_error);
}

TEST(LiveReporter, MatchesGolden) {
  const RunResults results = small_run();
  std::ostringstream os;
  LiveReporter rep(results, os);
  benchmark::BenchmarkReporter::Context ctx;
  ASSERT_TRUE(rep.ReportContext(ctx));
  for (const auto& p : results.problems) {
    benchmark::BenchmarkReporter::Run run;
    run.run_name.function_name = p.id();
    run.run_name.repetitions = "repeats:2";
    rep.ReportRuns({run, run});  // repetitions of one problem: still one line
  }
  benchmark::BenchmarkReporter::Run orphan;
  orphan.run_name.function_name = "element/nonexistent/fp32/1";
  orphan.error_occurred = true, orphan.error_message = "setup threw";
  rep.ReportRuns({orphan});
  rep.Finalize();
  EXPECT_EQ(os.str().find("\x1b["), std::string::npos);  // no ANSI codes
  expect_golden("live_small.txt", os.str());
}

TEST(ReportFiles, WritesWholeFilesAndNoTemporaries) {
  TempDir tmp;
  const RunResults r = small_run();
  const fs::path dir = tmp.path / "nested" / "reports";
  const auto paths = write_reports(r, dir.string(), true, true, "ops_20251122-103500");
  EXPECT_EQ(paths.size(), 4u);
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"latest.json", "latest.md", "ops_20251122-103500.json",
                                                    "ops_20251122-103500.md"}));
  std::ostringstream md;
  write_markdown(r, md);
  EXPECT_EQ(read_file((dir / "ops_20251122-103500.md").string()), md.str());
  EXPECT_EQ(read_file((dir / "latest.json").string()), to_json(r).dump(2) + "\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "latest.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  const fs::path json_only = tmp.path / "json_only";
  EXPECT_EQ(write_reports(r, json_only.string(), false, true, "latest").size(), 1u);
  EXPECT_EQ(listing(json_only), std::vector<std::string>{"latest.json"});
}

TEST(ReportFiles, UnwritablePathThrowsAndLeavesNothing) {
  TempDir tmp;
  const fs::path file = tmp.path / "a_file";
  std::ofstream(file) << "x";
  const std::string dir = (file / "reports").string();
  try {
    write_reports(small_run(), dir, true, true, "ops_x");
    FAIL() << "expected ReportWriteError";
  } catch (const ReportWriteError& e) {
    EXPECT_NE(std::string(e.what()).find(dir), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(listing(tmp.path), std::vector<std::string>{"a_file"});
  EXPECT_EQ(read_file(file.string()), "x");
}

TEST(ReportFiles, FailedRenameRollsBackTheWholeSet) {
  TempDir tmp;
  // A folder where the JSON should go: the .md is renamed into place first, then the .json rename fails.
  fs::create_directory(tmp.path / "ops_y.json");
  fs::create_directory(tmp.path / "ops_y.json" / "keep");
  EXPECT_THROW(write_reports(small_run(), tmp.path.string(), true, true, "ops_y"), ReportWriteError);
  EXPECT_EQ(listing(tmp.path), std::vector<std::string>{"ops_y.json"});
}

TEST(ReportFiles, IndexListsReportsNewestFirst) {
  TempDir tmp;
  const std::string dir = tmp.path.string();
  RunResults r = small_run();
  // Stems out of timestamp order, to show the index sorts by the recorded time.
  r.context.timestamp = "2025-11-20T08:00:00Z";
  write_reports(r, dir, true, true, "ops_b");
  r.context.timestamp = "2025-11-22T09:00:00Z";
  r.problems.resize(3);
  write_reports(r, dir, true, true, "ops_a");
  r.context.timestamp = "2025-11-21T12:00:00Z";
  write_reports(r, dir, false, true, "ops_c");
  std::ofstream(tmp.path / "ops_broken.json") << "{ not json";
  refresh_index(dir);

  const std::string index = read_file((tmp.path / "README.md").string());
  const auto a = index.find("| [ops_a](ops_a.md) |"), c = index.find("| [ops_c](ops_c.json) (no .md) |"),
             b = index.find("| [ops_b](ops_b.md) |");
  ASSERT_NE(a, std::string::npos) << index;
  ASSERT_NE(b, std::string::npos) << index;
  ASSERT_NE(c, std::string::npos) << index;
  EXPECT_LT(a, c);
  EXPECT_LT(c, b);
  EXPECT_NE(index.find("## Latest run: [ops_a](ops_a.md)"), std::string::npos);
  EXPECT_LT(index.find("### Performance summary"), a);  // the latest summary comes first
  EXPECT_NE(index.find("| 2025-11-22 09:00:00 UTC | [ops_a](ops_a.md) | NVIDIA H100 80GB HBM3 | element, activation | 3 |"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("- ops_broken.json: "), std::string::npos);
  EXPECT_EQ(index.find("[latest"), std::string::npos);  // latest.* are copies, not runs
  for (const auto& name : listing(tmp.path)) EXPECT_NE(name[0], '.') << "temporary left: " << name;
}

TEST(ReportFiles, CheckWritableBeforeARun) {
  TempDir tmp;
  EXPECT_NO_THROW(check_writable(tmp.path.string()));
  EXPECT_NO_THROW(check_writable((tmp.path / "not" / "yet" / "there").string()));
  EXPECT_FALSE(fs::exists(tmp.path / "not"));  // nothing created
  for (const auto& name : listing(tmp.path)) EXPECT_NE(name[0], '.') << "probe left: " << name;
  const fs::path file = tmp.path / "a_file";
  std::ofstream(file) << "x";
  EXPECT_THROW(check_writable((file / "reports").string()), ReportWriteError);
  EXPECT_THROW(check_writable(file.string()), ReportWriteError);
  // A pseudo file system refuses new entries whatever the permission bits say (and root passes those).
  if (fs::is_directory("/proc/self")) EXPECT_THROW(check_writable("/proc/opbench-no/reports"), ReportWriteError);
}
