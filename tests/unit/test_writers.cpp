// The report writers against golden files, the JSON round trip, atomic report sets and the index.
// Golden files: tests/data/report_small.{md,json} and live_small.txt. After an intended format change,
// regenerate them with OPBENCH_UPDATE_GOLDEN=1 (the tests then skip), read the diff, and commit it.
// The charts are drawn from tests/data/report_small.json in test_charts.cpp.
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

#include "tests/unit/markdown_tables.hpp"
#include "reports/file_set.hpp"
#include "reports/json_writer.hpp"
#include "reports/live_reporter.hpp"
#include "reports/markdown.hpp"
#include "reports/report_files.hpp"
#include "report_test_files.hpp"

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
                      double bytes_written, double torch_ms, double fw_ms) {
  ProblemResult p;
  p.op = op, p.category = c, p.shape = shape, p.size_class = sc, p.dtype = t, p.bytes = bytes;
  p.bytes_written = bytes_written;
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
// with cuBLAS and the framework's kernel named, a reduction whose cuDNN row failed (the H100's 1x1 case)
// and a softmax whose LibTorch result the fp64 oracle rejects.
RunResults small_run() {
  RunResults r;
  DeviceInfo& d = r.context.device;
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_major = 9, d.compute_minor = 0, d.sm_count = 132, d.sm_clock_mhz = 1980, d.mem_clock_mhz = 2619;
  d.bus_width_bits = 5120, d.l2_mb = 50, d.memory_gb = 79.1;
  d.theoretical_gbps = 2 * 2619e6 * 5120 / 8 / 1e9;
  d.measured_copy_gbps = 3010.5;
  d.measured_read_gbps = 3190.25;
  d.measured_write_gbps = 3105.75;
  d.measured_gemm = {{DType::f16, false, 800.5, "cuBLAS 8192x8192x8192, median of 20"}};
  d.roof_curve = {{4e6, 1300.5, 850.25, 900.5},
                  {64e6, 2900.5, 3050.75, 2950.25},
                  {256e6, 3150.5, 3000.5, 3090.5},
                  {400e6, 3190.25, 3010.5, 3105.75}};
  d.driver_version = "580.65.06", d.runtime_version = "13.0", d.cublas_version = "13.0.0";
  d.cudnn_version = "9.19.0", d.torch_version = "2.11.0";
  r.context.l2_flush = "write then read a 100 MB buffer";
  r.context.stopping = "median known to 0.5% (95% confidence), 10-1000 samples, 0.5 s per problem";
  r.context.command_line = "bench_ops --category element,activation,norm,matmul --dtype fp32,fp16";
  r.context.git_commit = "0123abc";
  r.context.timestamp = "2025-11-22T10:35:00Z";
  r.context.timing_mode = "pure", r.context.l2_mode = "cold";
  r.context.device_timer = "cupti";
  r.context.device_timer_text =
      "CUPTI activity timestamps: from the first kernel, memcpy or memset of the launch to start to the last to end";

  const double n = 4096.0 * 4096;
  ProblemResult add = problem("add", Category{"element"}, {4096, 4096}, SizeClass::large, DType::f32, 3 * n * 4, n * 4,
                              0.0712, 0.0685);
  add.flops = n;
  r.problems.push_back(add);
  r.problems.push_back(problem("add_bcast_row", Category{"element"}, {4096, 4096}, SizeClass::large, DType::f32,
                               2 * n * 4 + 4096 * 4, n * 4, 0.0601, 0.0790));
  r.problems.back().twin_of = "add";
  r.problems.push_back(problem("relu", Category{"activation"}, {256, 256}, SizeClass::small, DType::f16,
                               2 * 65536 * 2, 65536 * 2, 0.00412, 0.00398));

  ProblemResult gelu = problem("gelu_tanh", Category{"activation"}, {1024, 1024}, SizeClass::medium, DType::f16,
                               2 * 1048576 * 2, 1048576 * 2, 0.0101, 0.0097);
  gelu.impls[0].status = Status::incorrect;
  gelu.impls[0].message = "outputs differ from LibTorch beyond tolerance";
  gelu.impls[0].verify.correct = false, gelu.impls[0].verify.max_abs_err = 0.0312, gelu.impls[0].verify.max_rel_err = 0.0156;
  gelu.impls[0].verify.mismatches = 1024, gelu.impls[0].verify.first_mismatch = "index 17: got 1.5, expected 1.25";
  gelu.impls[0].verify.tolerance = {1e-3, 1e-3};
  r.problems.push_back(gelu);

  ProblemResult ln = problem("layer_norm", Category{"norm"}, {8192, 1024}, SizeClass::medium, DType::f32,
                             2 * 8192.0 * 1024 * 4, 8192.0 * 1024 * 4, 0.0301, 0.0254);
  ln.impls[1].pure = stats(0.0301, 0.18, false);
  ln.impls.push_back(timed(ImplKind::cudnn, 0.0282));
  r.problems.push_back(ln);

  ProblemResult sum = problem("sum | rows", Category{"reduction"}, {8192, 8192}, SizeClass::very_large, DType::f32,
                              8192.0 * 8192 * 4, 8192.0 * 4, 0.0952, 0);
  sum.impls[0] = ImplResult{};
  sum.impls[0].status = Status::failed, sum.impls[0].message = "kernel launch: too many resources requested";
  r.problems.push_back(sum);

  ProblemResult mm = problem("matmul", Category{"matmul"}, {4096, 4096, 4096}, SizeClass::large, DType::f16,
                             3 * n * 2, n * 2, 0.1681, 0.1795);
  mm.flops = 2 * n * 4096;
  mm.impls.push_back(timed(ImplKind::cublas, 0.1662));
  mm.impls[0].real = stats(0.1850);
  mm.impls[0].kernel = "sm90_wgmma_tma_128x256";
  r.problems.push_back(mm);

  ProblemResult tiny = problem("sum_last", Category{"reduction"}, {1, 1}, SizeClass::custom, DType::f32, 8, 4,
                               0.00391, 0.00352);
  ImplResult cudnn;
  cudnn.impl = ImplKind::cudnn, cudnn.status = Status::failed, cudnn.message = "CUDNN_STATUS_EXECUTION_FAILED";
  tiny.impls.push_back(cudnn);
  r.problems.push_back(tiny);

  ProblemResult sm = problem("softmax", Category{"reduction"}, {4096, 4096}, SizeClass::large, DType::f16, 2 * n * 2,
                             n * 2, 0, 0.0241);
  sm.flops = 5 * n;
  ImplResult& torch = sm.impls[1];
  torch.status = Status::incorrect, torch.pure.reset(), torch.message = "outputs differ from the fp64 oracle";
  torch.verify.correct = false, torch.verify.mismatches = 12, torch.verify.oracle_max_abs_err = 0.0039;
  torch.verify.first_mismatch = "output 0 element 4099: torch 0.01172, fp64 oracle 0.01563";
  r.problems.push_back(sm);
  return r;
}

// Most tests here are about the files, not the charts (test_charts.cpp): no Python for them.
const ChartSettings kNoCharts{false};

std::string data_path(const std::string& name) { return std::string(OPBENCH_TEST_DATA) + "/" + name; }

// Compares with the golden file, or (OPBENCH_UPDATE_GOLDEN=1) rewrites it and skips.
void expect_golden(const std::string& name, const std::string& actual) {
  if (std::getenv("OPBENCH_UPDATE_GOLDEN")) {
    std::ofstream(data_path(name), std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << data_path(name);
  }
  ASSERT_TRUE(fs::exists(data_path(name))) << data_path(name);
  EXPECT_EQ(actual, read_file(data_path(name))) << "differs from " << data_path(name);
}

}  // namespace

// What the plot script reports for small_run (the golden Markdown shows how charts are embedded).
ChartSet small_charts() {
  return ChartSet{"ops_20251122-103500_charts",
                  {{"speedup-element.png", "Speedup vs LibTorch: element", "Framework speed relative to LibTorch."},
                   {"roofline.png", "Roofline", "Every result that counts FLOPs."}},
                  ""};
}

std::string small_markdown() {
  const RunResults results = small_run();
  std::ostringstream os;
  write_markdown(build_report(results), small_charts(), os);
  return os.str();
}

TEST(Markdown, MatchesGolden) { expect_golden("report_small.md", small_markdown()); }

// A report without the timer's text (read back from an older JSON) names its clock by the timer's name:
// each CUPTI timer its own, and events for the rest.
TEST(Markdown, DeviceTimerByNameWhenTheTextIsMissing) {
  const auto timer_row = [](const std::string& timer) {
    RunResults results = small_run();
    results.context.device_timer = timer;
    results.context.device_timer_text.clear();
    std::ostringstream os;
    write_markdown(build_report(results), small_charts(), os);
    const std::string md = os.str();
    const auto at = md.find("| Device timer |");
    return at == std::string::npos ? std::string() : md.substr(at, md.find('\n', at) - at);
  };
  EXPECT_EQ(timer_row("cupti"), "| Device timer | CUPTI activity timestamps of the launch's own work |");
  EXPECT_EQ(timer_row("cupti-stream"),
            "| Device timer | CUPTI activity timestamps, from the end of the harness work before the launch |");
  EXPECT_EQ(timer_row("events"), "| Device timer | CUDA events around the launch |");
  EXPECT_EQ(timer_row(""), "| Device timer | CUDA events around the launch |");
}

TEST(Markdown, TablesStayValid) {
  const std::string md = small_markdown();
  // Every table row has as many unescaped '|' as its header: "sum | rows" must not add a column.
  opbench::testing_md::expect_tables_valid(md);
  EXPECT_NE(md.find("sum \\| rows"), std::string::npos);
}

TEST(Markdown, EveryVerdictAndWhereResultsStand) {
  const std::string md = small_markdown();
  auto has = [&](const std::string& text) { return md.find(text) != std::string::npos; };
  // The roofs the rows are held to, and the bound and % of roof of each row.
  EXPECT_TRUE(has("| Measured read bandwidth | 3190.2 GB/s (read-only sweep"));
  EXPECT_TRUE(has("| Measured write bandwidth | 3105.8 GB/s (store-only sweep"));
  EXPECT_TRUE(has("| Compute roof (fp16) | measured GEMM 800.50 TFLOP/s (cuBLAS 8192x8192x8192, median of 20); "
                  "datasheet 132 SMs"));
  EXPECT_TRUE(has("| Bound | % of roof |"));
  EXPECT_TRUE(has("| launch |"));   // relu, 4 µs
  EXPECT_TRUE(has("| compute |"));  // the 4096³ matmul
  // The framework's kernel beside a matmul row; no Kernel column where no row names one.
  EXPECT_TRUE(has("| sm90_wgmma_tma_128x256 |"));
  // Failed and incorrect references are shown as such, and are not the framework's ❌.
  EXPECT_TRUE(has("ok; cuDNN failed: CUDNN_STATUS_EXECUTION_FAILED |"));
  EXPECT_TRUE(has("ok; LibTorch incorrect: outputs differ from the fp64 oracle; 12 elements beyond tolerance of "
                  "the fp64 oracle"));
  EXPECT_TRUE(has("(no speedup against a wrong result)"));
  EXPECT_TRUE(has("Reference results that failed or were incorrect"));
  EXPECT_TRUE(has("- sum_last 1x1 fp32 [cuDNN]: failed: CUDNN_STATUS_EXECUTION_FAILED"));
  EXPECT_TRUE(has("| Reference results incorrect (LibTorch, vendors) | 1 |"));
  EXPECT_TRUE(has("| Reference results failed | 1 |"));
  // Charts embedded with links relative to the report.
  EXPECT_TRUE(has("![Roofline](ops_20251122-103500_charts/roofline.png)"));
}

TEST(Markdown, SaysWhyChartsWereSkipped) {
  const RunResults results = small_run();
  std::ostringstream os;
  write_markdown(build_report(results), ChartSet{"x_charts", {}, "matplotlib is not installed for /usr/bin/python3"},
                 os);
  EXPECT_NE(os.str().find("## Charts\n\nCharts skipped: matplotlib is not installed for /usr/bin/python3.\n"),
            std::string::npos);
  EXPECT_EQ(os.str().find("x_charts/"), std::string::npos);
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
  // Where the result stands: 1 FLOP per 12 bytes, memory-bound, against the roof its 2:1 read:write mix gets.
  EXPECT_DOUBLE_EQ(add.at("arithmetic_intensity").get<double>(), 1.0 / 12);
  EXPECT_EQ(add.at("bound"), "memory");
  const double roof = add.at("memory_roof_gbps").get<double>();
  EXPECT_GT(roof, 3010.5);   // reads outnumber writes: above the copy...
  EXPECT_LT(roof, 3190.25);  // ...below the read-only sweep
  EXPECT_DOUBLE_EQ(add.at("pct_of_roof").get<double>(), 100 * add.at("throughput_gbps").get<double>() / roof);
  // And against the same roof at its own size (201 MB: between the 64 and 256 MB points of the curve).
  const double at_size = add.at("size_roof_gbps").get<double>();
  EXPECT_GT(at_size, 3000.5);
  EXPECT_LT(at_size, 3150.5);
  EXPECT_DOUBLE_EQ(add.at("pct_of_size_roof").get<double>(), 100 * add.at("throughput_gbps").get<double>() / at_size);
  // What a comparison of two runs reads.
  const auto& ts = add.at("time_stats");
  for (const char* k : {"min", "q1", "median", "q3", "max", "samples", "samples_ms", "sm_clock_mhz",
                        "throttled_samples", "stop_reason"})
    EXPECT_TRUE(ts.contains(k)) << k;
  EXPECT_EQ(ts.at("samples_ms").size(), 3u);
  const auto& ctx = j.at("context");
  EXPECT_EQ(ctx.at("l2_flush"), "write then read a 100 MB buffer");
  EXPECT_TRUE(ctx.contains("read_roof_gbps"));
  EXPECT_EQ(ctx.at("roofs").at("memory").at("read_gbps"), 3190.25);
  EXPECT_EQ(ctx.at("roofs").at("memory").at("by_size").size(), 4u);
  EXPECT_EQ(ctx.at("roofs").at("memory").at("by_size").at(1).at("copy_gbps"), 3050.75);
  EXPECT_EQ(ctx.at("grades").at(0).at("min_speedup"), goal_speedup());  // the charts read the thresholds here
  // Each implementation has its own verdict.
  EXPECT_TRUE(j.at("results").at(1).at("verification").at("checked"));
  const auto& failed = j.at("results").at(11);  // add, add_bcast_row, relu, gelu: 2 rows each; layer_norm: 3
  EXPECT_EQ(failed.at("operation"), "sum | rows");
  EXPECT_EQ(failed.at("status"), "failed");
  EXPECT_TRUE(failed.at("time_ms").is_null());
  EXPECT_TRUE(failed.at("speedup").is_null());
  EXPECT_TRUE(failed.at("bound").is_null());
  const auto& mm = j.at("results").at(13);
  EXPECT_EQ(mm.at("kernel"), "sm90_wgmma_tma_128x256");
  EXPECT_EQ(mm.at("bound"), "compute");
  EXPECT_EQ(mm.at("compute_roof_basis"), "measured");
  EXPECT_DOUBLE_EQ(mm.at("pct_of_roof").get<double>(), 100 * mm.at("tflops").get<double>() / 800.5);
  const auto& cudnn = j.at("results").at(18);
  EXPECT_EQ(cudnn.at("implementation"), "cudnn");
  EXPECT_EQ(cudnn.at("status"), "failed");
  EXPECT_TRUE(cudnn.at("grade").is_null());
  const auto& softmax = j.at("results").at(19);
  EXPECT_TRUE(softmax.at("speedup").is_null());
  EXPECT_EQ(softmax.at("no_speedup"), "LibTorch incorrect: no speedup against a wrong result");
  EXPECT_EQ(j.at("results").at(20).at("status"), "incorrect");
  const auto& summary = j.at("summary");
  EXPECT_EQ(summary.at("problems"), 9);
  EXPECT_EQ(summary.at("reference_failed"), 1);
  EXPECT_EQ(summary.at("reference_incorrect"), 1);
  EXPECT_EQ(summary.at("reference_failures").size(), 2u);
  EXPECT_EQ(summary.at("has_failures"), true);
}

TEST(Json, RoundTrip) {
  const RunResults original = small_run();
  const RunResults back = from_json(to_json(original));
  EXPECT_EQ(to_json(back), to_json(original));
  ASSERT_EQ(back.problems.size(), original.problems.size());
  const ProblemResult& mm = back.problems[6];
  EXPECT_EQ(mm.shape, (Shape{4096, 4096, 4096}));
  EXPECT_EQ(mm.flops, original.problems[6].flops);
  EXPECT_EQ(mm.bytes_written, original.problems[6].bytes_written);
  ASSERT_EQ(mm.impls.size(), 3u);
  EXPECT_EQ(mm.impls[2].impl, ImplKind::cublas);
  ASSERT_TRUE(mm.impls[0].real);
  EXPECT_EQ(mm.impls[0].real->median_ms, 0.1850);
  ASSERT_EQ(back.context.device.measured_gemm.size(), 1u);
  EXPECT_EQ(back.context.device.measured_gemm[0].tflops, 800.5);
  ASSERT_EQ(back.context.device.roof_curve.size(), 4u);
  EXPECT_EQ(back.context.device.roof_curve[2].bytes, 256e6);
  EXPECT_EQ(back.context.device.roof_curve[2].read_gbps, 3150.5);
  EXPECT_EQ(back.context.device.roof_curve[2].write_gbps, 3090.5);
  EXPECT_EQ(back.context.device.measured_write_gbps, 3105.75);
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
  EXPECT_THROW(rep.report(), std::logic_error);  // the run is not over yet
  rep.Finalize();
  EXPECT_EQ(os.str().find("\x1b["), std::string::npos);  // no ANSI codes
  // The report the session writes and takes the exit code from is the one the console summarized.
  EXPECT_EQ(rep.report().summary.problems, 9);
  EXPECT_TRUE(has_failures(rep.report().summary));
  expect_golden("live_small.txt", os.str());
}

TEST(ReportFiles, WritesWholeFilesAndNoTemporaries) {
  TempDir tmp;
  const RunResults r = small_run();
  const fs::path dir = tmp.path / "nested" / "reports";
  const auto paths = write_reports(r, dir.string(), true, true, "ops_20251122-103500", kNoCharts);
  EXPECT_EQ(paths.size(), 4u);
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"latest.json", "latest.md", "ops_20251122-103500.json",
                                                    "ops_20251122-103500.md"}));
  std::ostringstream md;
  write_markdown(build_report(r), ChartSet{"ops_20251122-103500_charts", {}, "charts were not asked for"}, md);
  EXPECT_EQ(read_file((dir / "ops_20251122-103500.md").string()), md.str());
  EXPECT_EQ(read_file((dir / "latest.json").string()), to_json(r).dump(2) + "\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "latest.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  const fs::path json_only = tmp.path / "json_only";
  EXPECT_EQ(write_reports(r, json_only.string(), false, true, "latest", kNoCharts).size(), 1u);
  EXPECT_EQ(listing(json_only), std::vector<std::string>{"latest.json"});
}

TEST(ReportFiles, UnwritablePathThrowsAndLeavesNothing) {
  TempDir tmp;
  const fs::path file = tmp.path / "a_file";
  std::ofstream(file) << "x";
  const std::string dir = (file / "reports").string();
  try {
    write_reports(small_run(), dir, true, true, "ops_x", kNoCharts);
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
  EXPECT_THROW(write_reports(small_run(), tmp.path.string(), true, true, "ops_y", kNoCharts), ReportWriteError);
  EXPECT_EQ(listing(tmp.path), std::vector<std::string>{"ops_y.json"});
}

TEST(ReportFiles, IndexListsReportsNewestFirst) {
  TempDir tmp;
  const std::string dir = tmp.path.string();
  RunResults r = small_run();
  // Stems out of timestamp order, to show the index sorts by the recorded time.
  r.context.timestamp = "2025-11-20T08:00:00Z";
  write_reports(r, dir, true, true, "ops_b", kNoCharts);
  r.context.timestamp = "2025-11-22T09:00:00Z";
  r.problems.resize(3);
  write_reports(r, dir, true, true, "ops_a", kNoCharts);
  r.context.timestamp = "2025-11-21T12:00:00Z";
  write_reports(r, dir, false, true, "ops_c", kNoCharts);
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
  if (fs::is_directory("/proc/self")) {
    EXPECT_THROW(check_writable("/proc/opbench-no/reports"), ReportWriteError);
  }
}

TEST(Files, RemoveTreeRemovesNestedFoldersAndIgnoresAbsentPaths) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("opbench_rmtree_" + std::to_string(::getpid()));
  fs::create_directories(root / "a" / "b");
  std::ofstream(root / "top.txt") << "x";
  std::ofstream(root / "a" / "b" / "deep.txt") << "y";
  fs::create_symlink("/etc", root / "link");  // a link is removed, never followed
  remove_tree(root.string());
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists("/etc"));
  remove_tree(root.string());  // absent: nothing happens
  std::ofstream(root.string() + ".file") << "z";
  remove_tree(root.string() + ".file");  // a plain file
  EXPECT_FALSE(fs::exists(root.string() + ".file"));
}
