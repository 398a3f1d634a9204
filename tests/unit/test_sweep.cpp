// The transformer sweep: its command line, the problems it generates, and what the reports carry.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "reports/summary.hpp"
#include "src/cli/options.hpp"
#include "tests/unit/cli_parse.hpp"

using namespace opbench;
using opbench::testing_cli::parse;

namespace {

std::set<std::string> op_names(const std::vector<Problem>& ps) {
  std::set<std::string> s;
  for (const Problem& p : ps) s.insert(p.op->name);
  return s;
}

}  // namespace

TEST(Sweep, AloneTakesTheDefaultGridAndTheSuiteDtypes) {
  Options opt;
  ASSERT_FALSE(parse({"--sweep"}, opt).exit_now);
  ASSERT_TRUE(opt.filter.sweep.has_value());
  EXPECT_EQ(opt.filter.sweep->batch, (std::vector<int64_t>{16, 32, 64, 128}));
  EXPECT_EQ(opt.filter.sweep->seq, (std::vector<int64_t>{256, 512, 1024, 2048}));
  EXPECT_EQ(opt.filter.sweep->dim, (std::vector<int64_t>{768, 1024, 2048, 4096}));
  EXPECT_EQ(opt.filter.sweep->vocab, 32000);
  EXPECT_EQ(opt.filter.dtypes, (std::vector<DType>{DType::f32, DType::bf16}));
}

TEST(Sweep, KeysGivenAloneKeepTheOtherDefaults) {
  Options opt;
  ASSERT_FALSE(parse({"--sweep", "batch=2,4,4", "dim=64", "--vocab", "1000", "--dtype", "bf16"}, opt).exit_now);
  EXPECT_EQ(opt.filter.sweep->batch, (std::vector<int64_t>{2, 4}));  // duplicates dropped
  EXPECT_EQ(opt.filter.sweep->seq, (std::vector<int64_t>{256, 512, 1024, 2048}));
  EXPECT_EQ(opt.filter.sweep->dim, (std::vector<int64_t>{64}));
  EXPECT_EQ(opt.filter.sweep->vocab, 1000);
  EXPECT_EQ(opt.filter.dtypes, (std::vector<DType>{DType::bf16}));
}

TEST(Sweep, UserErrorsExitWithUsageCode) {
  const std::vector<std::vector<std::string>> bad = {
      {"--sweep", "batch=0"},      {"--sweep", "batch=1,x"}, {"--sweep", "heads=4"}, {"--sweep", "batch"},
      {"--sweep", "seq=1", "seq=2"}, {"--sweep", "dim="},     {"--vocab", "100"},      {"--sweep", "--shape", "4x4"},
      {"--sweep", "--size", "small"}, {"--sweep", "--vocab", "0"},
  };
  for (const auto& args : bad) {
    Options opt;
    testing::internal::CaptureStderr();
    const ParseOutcome r = parse(args, opt);
    testing::internal::GetCapturedStderr();
    EXPECT_TRUE(r.exit_now) << args[0] << " " << args[1 % args.size()];
    EXPECT_EQ(r.exit_code, kExitUsage) << args[0] << " " << args[1 % args.size()];
  }
}

TEST(Sweep, GeneratesEveryGridPointOfTheTaggedOps) {
  ProblemFilter f;
  f.sweep = SweepGrid{{2, 4}, {8, 16, 32}, {64, 128}, 1000};
  f.dtypes = {DType::f32, DType::bf16};
  const std::vector<Problem> ps = select_problems(global_registry(), f);
  EXPECT_EQ(op_names(ps), (std::set<std::string>{"layer_norm", "rms_norm", "gelu", "silu", "mse_loss", "cross_entropy"}));
  // 5 ops over the whole grid (2 x 3 x 2 points), cross_entropy over batch x seq only, each in 2 dtypes.
  EXPECT_EQ(ps.size(), std::size_t((5 * 12 + 6) * 2));
  std::set<std::string> ids;
  for (const Problem& p : ps) {
    ASSERT_TRUE(p.sweep.has_value());
    ids.insert(p.id());
    EXPECT_EQ(p.shape[0], p.sweep->batch_size * p.sweep->sequence_length);
    EXPECT_EQ(p.shape[1], p.sweep->tensor_dimension);
    if (p.op->name == "cross_entropy") EXPECT_EQ(p.shape[1], 1000);
    EXPECT_EQ(p.size_class, SizeClass::custom);
  }
  // (2, 16) and (4, 8) share the 32-row shape: the ids still differ.
  EXPECT_EQ(ids.size(), ps.size());
  EXPECT_TRUE(ids.count("norm/layer_norm/fp32/32x64/b2s16"));
  EXPECT_TRUE(ids.count("norm/layer_norm/fp32/32x64/b4s8"));
}

TEST(Sweep, FastTakesTheCornersAndOpNamesOthers) {
  ProblemFilter f;
  f.sweep = SweepGrid{};
  f.fast = true;
  f.ops = {"add", "rms_norm"};
  f.dtypes = {DType::bf16};
  const std::vector<Problem> ps = select_problems(global_registry(), f);
  EXPECT_EQ(op_names(ps), (std::set<std::string>{"add", "rms_norm"}));
  EXPECT_EQ(ps.size(), 2u * 8u);  // 2 x 2 x 2 corners each
  std::set<int64_t> batches;
  for (const Problem& p : ps) batches.insert(p.sweep->batch_size);
  EXPECT_EQ(batches, (std::set<int64_t>{16, 128}));
}

namespace {

RunResults sweep_run() {
  RunResults r;
  r.context.device.name = "NVIDIA H100 80GB HBM3";
  r.context.device.theoretical_gbps = 3352, r.context.device.measured_copy_gbps = 3000;
  r.context.device.measured_read_gbps = 3000;
  auto add = [&](int64_t b, int64_t s, double fw_ms, double torch_ms) {
    ProblemResult p;
    p.op = "rms_norm", p.category = Category{"norm"}, p.dtype = DType::bf16, p.shape = {b * s, 1024};
    p.bytes = 2.0 * double(b * s * 1024) * 2, p.bytes_written = double(b * s * 1024) * 2;
    p.sweep = SweepPoint{b, s, 1024};
    for (auto [k, ms] : {std::pair{ImplKind::framework, fw_ms}, std::pair{ImplKind::torch, torch_ms}}) {
      ImplResult i;
      i.impl = k;
      i.verify.checked = i.verify.correct = true;
      TimeStats t;
      t.median_ms = ms, t.q1_ms = ms, t.q3_ms = ms, t.samples = 10, t.samples_ms = std::vector<double>(10, ms);
      i.pure = t;
      p.impls.push_back(i);
    }
    r.problems.push_back(p);
  };
  add(16, 256, 0.010, 0.020);  // 2x
  add(16, 512, 0.010, 0.010);  // 1x
  add(32, 256, 0.010, 0.040);  // 4x
  return r;
}

}  // namespace

TEST(Sweep, JsonCarriesTheGridPointBothWays) {
  const RunResults r = sweep_run();
  const nlohmann::json j = reports::to_json(r);
  EXPECT_EQ(j.at("results")[0].at("batch_size"), 16);
  EXPECT_EQ(j.at("results")[0].at("sequence_length"), 256);
  EXPECT_EQ(j.at("results")[0].at("tensor_dimension"), 1024);
  const RunResults back = reports::from_json(j);
  ASSERT_EQ(back.problems.size(), 3u);
  ASSERT_TRUE(back.problems[1].sweep.has_value());
  EXPECT_EQ(*back.problems[1].sweep, (SweepPoint{16, 512, 1024}));
  EXPECT_EQ(back.problems[1].id(), "norm/rms_norm/bf16/8192x1024/b16s512");
}

TEST(Sweep, MarkdownBreaksTheSpeedupDownByEachAxis) {
  const RunResults r = sweep_run();
  std::ostringstream os;
  reports::write_markdown(reports::build_report(r), {}, os);
  const std::string md = os.str();
  ASSERT_NE(md.find("## Transformer sweep"), std::string::npos);
  const auto by_batch = md.find("### By batch size");
  const auto by_seq = md.find("### By sequence length");
  ASSERT_NE(by_batch, std::string::npos);
  ASSERT_NE(by_seq, std::string::npos);
  // batch 16: geomean(2, 1) = 1.41; batch 32: 4.
  const std::string batch_table = md.substr(by_batch, by_seq - by_batch);
  EXPECT_NE(batch_table.find("| rms_norm bf16 | 1.41×"), std::string::npos) << batch_table;
  EXPECT_NE(batch_table.find("4.00×"), std::string::npos) << batch_table;
  // seq 256: geomean(2, 4) = 2.83; seq 512: 1.
  const std::string seq_table = md.substr(by_seq, md.find("### By tensor dimension") - by_seq);
  EXPECT_NE(seq_table.find("| rms_norm bf16 | 2.83×"), std::string::npos) << seq_table;
  EXPECT_NE(seq_table.find("1.00×"), std::string::npos) << seq_table;
  // The detail rows tell apart the points that share a shape.
  EXPECT_NE(md.find("8192x1024 (b16 s512)"), std::string::npos);
  EXPECT_NE(md.find("8192x1024 (b32 s256)"), std::string::npos);
}

TEST(Sweep, ReportsWithoutSweepResultsHaveNoSection) {
  RunResults r = sweep_run();
  for (ProblemResult& p : r.problems) p.sweep.reset();
  std::ostringstream os;
  reports::write_markdown(reports::build_report(r), {}, os);
  EXPECT_EQ(os.str().find("Transformer sweep"), std::string::npos);
}
