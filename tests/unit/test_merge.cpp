// Merging the shard reports of a run over several GPUs or nodes: results and context (hosts, GPUs),
// duplicates, mismatched GPU models and builds, a missing shard; the JSON of the new fields; the per-GPU
// consistency table; `bench_ops merge` end to end with its exit codes; and the worker journal.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/file_set.hpp"
#include "reports/fleet.hpp"
#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "src/cli/options.hpp"
#include "src/dist/journal.hpp"
#include "src/dist/merge.hpp"

using namespace opbench;
using namespace opbench::dist;
namespace fs = std::filesystem;

namespace {

const char* kH100 = "NVIDIA H100 80GB HBM3";

GpuId gpu(const std::string& host, int index, const std::string& name = kH100) {
  return {host, index, name, fmt::format("GPU-{:08x}-0000-0000-0000-{:012x}", std::hash<std::string>{}(host) & 0xffffffff, index)};
}

TimeStats stats(double ms) {
  TimeStats t;
  t.median_ms = t.min_ms = t.max_ms = t.mean_ms = t.q1_ms = t.q3_ms = ms;
  t.samples = 3, t.samples_ms = {ms, ms, ms}, t.sm_clock_mhz = 1980, t.stop_reason = "precision";
  return t;
}

ProblemResult problem(const std::string& op, int selection, const GpuId& g, double fw_ms, double torch_ms = 1.0,
                      Status fw_status = Status::ok) {
  ProblemResult p;
  p.op = op, p.category = Category{"element"}, p.shape = {1024, 1024}, p.size_class = SizeClass::small;
  p.dtype = DType::f32, p.bytes = 12.0 * 1024 * 1024, p.gpu = g, p.selection_index = selection, p.wall_ms = 150;
  ImplResult fw, th;
  fw.impl = ImplKind::framework, fw.status = fw_status, fw.pure = stats(fw_ms);
  fw.verify.checked = true, fw.verify.correct = fw_status == Status::ok;
  th.impl = ImplKind::torch, th.pure = stats(torch_ms), th.verify.checked = th.verify.correct = true;
  p.impls = {fw, th};
  return p;
}

RunResults report(ShardTag shard, std::vector<ProblemResult> problems, std::vector<GpuId> gpus,
                  const std::string& timestamp = "2025-11-22T10:35:07Z") {
  RunResults r;
  r.context.device.name = gpus.empty() ? "" : gpus.front().name;
  r.context.device.measured_copy_gbps = 3000;
  r.context.git_commit = "abc123", r.context.timing_mode = "pure", r.context.l2_mode = "cold";
  r.context.timestamp = timestamp, r.context.command_line = "bench_ops --fast";
  r.context.shard = shard;
  for (const GpuId& g : gpus) r.context.gpus.push_back({g, 3000, 45});
  r.problems = std::move(problems);
  return r;
}

std::string merge_error(std::vector<MergeInput> in, MergeSettings s = {}) {
  try {
    merge_reports(std::move(in), s);
  } catch (const MergeError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "opbench-test-merge-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { opbench::reports::remove_tree(path.string()); }
};

int merge_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "merge");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return merge_main(int(argv.size()), argv.data());
}

}  // namespace

TEST(Merge, CompleteShardsInSelectionOrder) {
  const GpuId a = gpu("node1", 0), b = gpu("node1", 1), c = gpu("node2", 0);
  std::vector<MergeInput> in = {
      {"s2", report({2, 3, "torchrun"}, {problem("exp", 1, c, 1), problem("relu", 5, c, 1)}, {c}, "2025-11-22T10:35:09Z")},
      {"s0", report({0, 3, "torchrun"}, {problem("add", 0, a, 1), problem("mul", 3, a, 1)}, {a}, "2025-11-22T10:35:08Z")},
      {"s1", report({1, 3, "torchrun"}, {problem("sub", 2, b, 1), problem("div", 4, b, 1)}, {b}, "2025-11-22T10:35:07Z")},
  };
  const RunResults m = merge_reports(in, {});
  ASSERT_EQ(m.problems.size(), 6u);
  const std::vector<std::string> order = {"add", "exp", "sub", "mul", "div", "relu"};
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(m.problems[i].op, order[i]);
  EXPECT_TRUE(m.problems[1].gpu.same_board(c));  // each result keeps its GPU
  ASSERT_EQ(m.context.gpus.size(), 3u);          // the context lists them all, shard order
  EXPECT_TRUE(m.context.gpus[0].id.same_board(a));
  EXPECT_TRUE(m.context.gpus[2].id.same_board(c));
  EXPECT_EQ(m.context.shard.count, 0);  // the merged report is the whole run
  EXPECT_EQ(m.context.timestamp, "2025-11-22T10:35:07Z");  // the run's start: the earliest shard
  EXPECT_FALSE(m.context.replicate);
}

TEST(Merge, MissingShardIsRefusedNamingIt) {
  const GpuId a = gpu("n", 0);
  const std::string e = merge_error({{"s0", report({0, 4, "slurm"}, {problem("add", 0, a, 1)}, {a})},
                                     {"s2", report({2, 4, "slurm"}, {problem("mul", 1, a, 1)}, {a})}});
  EXPECT_TRUE(has(e, "missing shards 1/4, 3/4")) << e;
  EXPECT_TRUE(has(e, "shard-1-of-4.json, shard-3-of-4.json")) << e;
}

TEST(Merge, ShardTwiceOrOfAnotherSplitIsRefused) {
  const GpuId a = gpu("n", 0), b = gpu("n", 1);
  EXPECT_TRUE(has(merge_error({{"x.json", report({0, 2, ""}, {problem("add", 0, a, 1)}, {a})},
                               {"y.json", report({0, 2, ""}, {problem("mul", 1, b, 1)}, {b})}}),
                  "shard 0/2 twice: x.json and y.json"));
  EXPECT_TRUE(has(merge_error({{"x.json", report({0, 2, ""}, {problem("add", 0, a, 1)}, {a})},
                               {"y.json", report({1, 3, ""}, {problem("mul", 1, b, 1)}, {b})}}),
                  "different runs"));
}

TEST(Merge, DuplicatesRefusedUnlessReplicated) {
  const GpuId a = gpu("n", 0), b = gpu("n", 1);
  std::vector<MergeInput> in = {{"a.json", report({0, 2, ""}, {problem("add", 0, a, 1)}, {a})},
                                {"b.json", report({1, 2, ""}, {problem("add", 0, b, 1)}, {b})}};
  const std::string e = merge_error(in);
  EXPECT_TRUE(has(e, "element/add/fp32/1024x1024 appears twice")) << e;
  EXPECT_TRUE(has(e, "--replicate")) << e;
  // Replicated: each GPU's copy is kept (as the merge is told, or as every report says).
  EXPECT_EQ(merge_reports(in, {false, true}).problems.size(), 2u);
  for (auto& m : in) m.results.context.replicate = true;
  const RunResults r = merge_reports(in, {});
  EXPECT_EQ(r.problems.size(), 2u);
  EXPECT_TRUE(r.context.replicate);
  // The same GPU twice is the same results twice, replicated or not.
  in[1] = {"a-again.json", report({1, 2, ""}, {problem("add", 0, a, 1)}, {a})};
  EXPECT_TRUE(has(merge_error(in, {false, true}), "twice from the same GPU"));
}

TEST(Merge, MixedGpuModelsRefusedUnlessAllowed) {
  const GpuId h = gpu("n1", 0), x = gpu("n2", 0, "NVIDIA A100-SXM4-80GB");
  std::vector<MergeInput> in = {{"h.json", report({0, 2, ""}, {problem("add", 0, h, 1)}, {h})},
                                {"a.json", report({1, 2, ""}, {problem("mul", 1, x, 1)}, {x})}};
  const std::string e = merge_error(in);
  EXPECT_TRUE(has(e, "different GPU models")) << e;
  EXPECT_TRUE(has(e, "NVIDIA A100-SXM4-80GB (a.json)")) << e;
  EXPECT_TRUE(has(e, "--allow-mixed-gpus")) << e;
  EXPECT_EQ(merge_reports(in, {true, false}).problems.size(), 2u);
}

TEST(Merge, DifferentBuildsOrSettingsAreRefused) {
  const GpuId a = gpu("n", 0), b = gpu("n", 1);
  auto other = report({1, 2, ""}, {problem("mul", 1, b, 1)}, {b});
  other.context.git_commit = "def456";
  EXPECT_TRUE(has(merge_error({{"a", report({0, 2, ""}, {problem("add", 0, a, 1)}, {a})}, {"b", other}}),
                  "git commit"));
  other.context.git_commit = "abc123", other.context.tf32 = true;
  EXPECT_TRUE(has(merge_error({{"a", report({0, 2, ""}, {problem("add", 0, a, 1)}, {a})}, {"b", other}}), "TF32"));
}

TEST(Merge, AnEmptyShardCounts) {
  // More ranks than problems: a rank with nothing to do still writes its (empty) shard report.
  const GpuId a = gpu("n", 0);
  RunResults empty = report({1, 2, "torchrun"}, {}, {});
  empty.context.git_commit = "";  // described without a GPU
  const RunResults m = merge_reports({{"s0", report({0, 2, "torchrun"}, {problem("add", 0, a, 1)}, {a})}, {"s1", empty}}, {});
  EXPECT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.context.git_commit, "abc123");
}

TEST(Merge, JsonKeepsHostsGpusAndEachGpusCopy) {
  const GpuId a = gpu("node1", 0), b = gpu("node2", 3);
  RunResults r = report({}, {problem("add", 0, a, 1.0), problem("add", 0, b, 1.2)}, {a, b});
  r.context.replicate = true, r.context.slow_gpu_margin = 0.08;
  r.context.gpus[1].max_temperature_c.reset();
  const nlohmann::json j = reports::to_json(r);
  EXPECT_EQ(j.at("results").at(0).at("host"), "node1");
  EXPECT_EQ(j.at("results").at(2).at("gpu_index"), 3);
  EXPECT_EQ(j.at("context").at("gpus").size(), 2u);
  EXPECT_TRUE(j.contains("fleet"));
  const RunResults back = reports::from_json(j);
  ASSERT_EQ(back.problems.size(), 2u);  // one copy per GPU, not regrouped into one problem
  EXPECT_TRUE(back.problems[1].gpu.same_board(b));
  EXPECT_EQ(back.problems[1].gpu.name, kH100);
  EXPECT_DOUBLE_EQ(back.problems[1].wall_ms, 150);
  EXPECT_EQ(back.problems[1].selection_index, 0);
  ASSERT_EQ(back.context.gpus.size(), 2u);
  EXPECT_EQ(back.context.gpus[0].max_temperature_c, 45);
  EXPECT_FALSE(back.context.gpus[1].max_temperature_c);
  EXPECT_TRUE(back.context.replicate);
  EXPECT_DOUBLE_EQ(back.context.slow_gpu_margin, 0.08);
  RunResults s = report({2, 4, "slurm"}, {problem("add", 0, a, 1.0)}, {a});
  const RunResults sb = reports::from_json(reports::to_json(s));
  EXPECT_EQ(sb.context.shard.index, 2);
  EXPECT_EQ(sb.context.shard.count, 4);
  EXPECT_EQ(sb.context.shard.launcher, "slurm");
}

TEST(Merge, ReportsWithoutGpusKeepTheirFormat) {
  RunResults r = report({}, {problem("add", -1, GpuId{}, 1.0)}, {});
  r.problems[0].wall_ms = 0;
  const nlohmann::json j = reports::to_json(r);
  EXPECT_FALSE(j.at("context").contains("gpus"));
  EXPECT_FALSE(j.at("context").contains("shard"));
  EXPECT_FALSE(j.at("results").at(0).contains("host"));
  EXPECT_FALSE(j.at("results").at(0).contains("selection_index"));
  EXPECT_FALSE(j.contains("fleet"));
}

TEST(Fleet, FlagsTheSlowGpuOfAReplicatedRun) {
  std::vector<GpuId> g = {gpu("n", 0), gpu("n", 1), gpu("n", 2), gpu("n", 3)};
  RunResults r = report({}, {}, g);
  r.context.replicate = true;
  for (int p = 0; p < 5; ++p)
    for (int k = 0; k < 4; ++k) {
      const double slow = k == 2 ? 1.10 : 1.0 + 0.005 * k;  // GPU 2 is 10% slower, the others within 1.5%
      r.problems.push_back(problem("op" + std::to_string(p), p, g[std::size_t(k)], 0.5 * (p + 1) * slow, 0.6 * (p + 1) * slow));
    }
  const auto t = reports::fleet_table(r);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), 4u);
  EXPECT_EQ(t->flagged(), 1);
  EXPECT_TRUE(t->rows[2].slow);
  EXPECT_TRUE(has(t->rows[2].verdict, "above the fleet median")) << t->rows[2].verdict;
  EXPECT_EQ(t->rows[2].compared, 10);  // 5 problems x (framework, LibTorch)
  EXPECT_NEAR(*t->rows[2].median_relative, 1.10 / 1.01, 1e-9);  // fleet median: (1.005 + 1.015) / 2
  for (int k : {0, 1, 3}) EXPECT_EQ(t->rows[std::size_t(k)].verdict, "ok");
  EXPECT_DOUBLE_EQ(*t->rows[0].sm_clock_mhz, 1980);

  std::ostringstream md;
  reports::write_markdown(reports::build_report(r), reports::ChartSet{}, md);
  EXPECT_TRUE(has(md.str(), "## Per-GPU consistency"));
  EXPECT_TRUE(has(md.str(), "| GPU | Op |"));  // the detailed results say which GPU measured each row
  EXPECT_TRUE(has(md.str(), "⚠ slow"));
  EXPECT_EQ(reports::to_json(r).at("fleet").at("flagged"), 1);
}

TEST(Fleet, ShardedRunComparesCopyBandwidthOnly) {
  const GpuId a = gpu("n", 0), b = gpu("n", 1), c = gpu("n", 2);
  RunResults r = report({}, {problem("add", 0, a, 1), problem("mul", 1, b, 1), problem("exp", 2, c, 1)}, {a, b, c});
  r.context.gpus[1].measured_copy_gbps = 2400;  // 20% short of the others
  const auto t = reports::fleet_table(r);
  ASSERT_TRUE(t);
  for (const auto& row : t->rows) EXPECT_EQ(row.compared, 0);
  EXPECT_TRUE(t->rows[1].slow);
  EXPECT_TRUE(has(t->rows[1].verdict, "copy bandwidth 20.0% below")) << t->rows[1].verdict;
  EXPECT_FALSE(t->rows[0].slow);
  std::ostringstream md;
  reports::write_markdown(reports::build_report(r), reports::ChartSet{}, md);
  EXPECT_TRUE(has(md.str(), "--replicate"));
  // One GPU: no table.
  EXPECT_FALSE(reports::fleet_table(report({}, {problem("add", 0, a, 1)}, {a})));
}

TEST(Merge, CommandEndToEnd) {
  TempDir tmp;
  const fs::path shards = tmp.path / "run", out = tmp.path / "out";
  const GpuId a = gpu("node1", 0), b = gpu("node2", 0);
  write_shard_report(report({0, 2, "torchrun"}, {problem("add", 0, a, 1)}, {a}), shards.string());
  write_shard_report(report({1, 2, "torchrun"}, {problem("mul", 1, b, 1)}, {b}), shards.string());
  EXPECT_TRUE(fs::exists(shards / "shard-1-of-2.json"));
  ASSERT_EQ(merge_cli({shards.string(), "--output-dir", out.string()}), kExitOk);
  EXPECT_TRUE(fs::exists(out / "ops_20251122-103507.md"));
  EXPECT_TRUE(fs::exists(out / "latest.json"));
  EXPECT_TRUE(fs::exists(out / "README.md"));
  const MergeInput merged = read_report((out / "ops_20251122-103507.json").string());
  EXPECT_EQ(merged.results.problems.size(), 2u);
  EXPECT_EQ(merged.results.context.gpus.size(), 2u);
  // Files named one by one, and a failure inside: merged, exit 1.
  write_shard_report(report({1, 2, "torchrun"}, {problem("mul", 1, b, 1, 1, Status::failed)}, {b}), shards.string());
  EXPECT_EQ(merge_cli({(shards / "shard-0-of-2.json").string(), (shards / "shard-1-of-2.json").string(),
                       "--output-dir", out.string(), "--format", "json"}),
            kExitFailures);
}

TEST(Merge, CommandExitCodes) {
  TempDir tmp;
  const fs::path run = tmp.path / "run", out = tmp.path / "out";
  const GpuId a = gpu("n1", 0), x = gpu("n2", 0, "NVIDIA A100-SXM4-80GB");
  write_shard_report(report({0, 3, "slurm"}, {problem("add", 0, a, 1)}, {a}), run.string());
  write_shard_report(report({1, 3, "slurm"}, {problem("mul", 1, x, 1)}, {x}), run.string());
  EXPECT_EQ(merge_cli({run.string(), "--output-dir", out.string()}), kExitUsage);  // shard 2/3 missing
  write_shard_report(report({2, 3, "slurm"}, {problem("exp", 2, a, 1)}, {a}), run.string());
  EXPECT_EQ(merge_cli({run.string(), "--output-dir", out.string()}), kExitUsage);  // H100 and A100
  EXPECT_EQ(merge_cli({run.string(), "--output-dir", out.string(), "--allow-mixed-gpus"}), kExitOk);
  EXPECT_EQ(merge_cli({(tmp.path / "nothing-here").string()}), kExitUsage);
  EXPECT_EQ(merge_cli({tmp.path.string() + "/out", "--output-dir", out.string()}), kExitUsage);  // no shard-*.json
  std::ofstream(tmp.path / "bad.json") << "{\"not\": \"a report\"}";
  EXPECT_EQ(merge_cli({(tmp.path / "bad.json").string(), "--output-dir", out.string()}), kExitUsage);
  std::ofstream(tmp.path / "a_file") << "x";
  EXPECT_EQ(merge_cli({run.string(), "--allow-mixed-gpus", "--output-dir", (tmp.path / "a_file" / "sub").string()}),
            kExitReportWrite);
  EXPECT_EQ(merge_cli({}), kExitUsage);
  EXPECT_EQ(merge_cli({"--help"}), kExitOk);
}

TEST(Journal, ReadsWhatAWorkerWroteUpToACrash) {
  TempDir tmp;
  const std::string path = (tmp.path / "w.jsonl").string();
  const GpuId a = gpu("n", 1);
  RunContext ctx = report({}, {}, {a}).context;
  JournalReader reader(path);
  EXPECT_TRUE(reader.poll().empty());  // not written yet
  {
    JournalWriter w(path);
    w.start(ctx);
    w.begin("element/add/fp32/1024x1024");
    w.done(ctx, problem("add", 0, a, 1));
    w.begin("element/mul/fp32/1024x1024");
  }
  std::ofstream(path, std::ios::app) << "{\"event\":\"done\",\"id\":\"element/mul";  // torn by a crash
  EXPECT_EQ(reader.poll(), (std::vector<std::string>{"element/add/fp32/1024x1024"}));
  ASSERT_TRUE(reader.context());
  EXPECT_TRUE(reader.context()->gpus.front().id.same_board(a));
  EXPECT_EQ(reader.begun().size(), 2u);
  EXPECT_EQ(reader.pending(), "element/mul/fp32/1024x1024");
  EXPECT_FALSE(reader.ended());
  EXPECT_EQ(reader.results().at("element/add/fp32/1024x1024").op, "add");

  // Repetitions: begin and done again; the last done is the result.
  const std::string p2 = (tmp.path / "w2.jsonl").string();
  JournalWriter w(p2);
  w.begin("element/add/fp32/1024x1024");
  w.done(ctx, problem("add", 0, a, 1));
  w.begin("element/add/fp32/1024x1024");
  w.done(ctx, problem("add", 0, a, 2));
  w.end();
  JournalReader r2(p2);
  EXPECT_EQ(r2.poll().size(), 2u);
  EXPECT_FALSE(r2.pending());
  EXPECT_TRUE(r2.ended());
  EXPECT_EQ(r2.begun().size(), 1u);
  EXPECT_DOUBLE_EQ(r2.results().at("element/add/fp32/1024x1024").impls[0].time_ms(), 2);
}
