// The command line: valid selections, and every user error exiting with code 2.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "src/cli/options.hpp"
#include "tests/unit/cli_parse.hpp"

using namespace opbench;
using opbench::testing_cli::parse;

TEST(Cli, Defaults) {
  Options opt;
  ParseOutcome r = parse({}, opt);
  EXPECT_FALSE(r.exit_now);
  EXPECT_TRUE(opt.timing.pure);
  EXPECT_FALSE(opt.timing.real);
  EXPECT_TRUE(opt.timing.l2_cold);
  EXPECT_EQ(opt.output_dir, "docs/benchmark");
  EXPECT_TRUE(opt.write_markdown && opt.write_json);
}

TEST(Cli, FullSelection) {
  Options opt;
  ParseOutcome r = parse({"--category", "element", "--op", "add,mul", "--size", "small,large", "--dtype", "fp32,bf16",
                          "--fast", "--timing", "both", "--l2", "warm", "--format", "json", "--output-dir", "/tmp/x",
                          "--benchmark_filter=add", "--shape", "1023x1025"},
                         opt);
  ASSERT_FALSE(r.exit_now);
  EXPECT_EQ(opt.filter.ops, (std::vector<std::string>{"add", "mul"}));
  EXPECT_EQ(opt.filter.sizes, (std::vector<SizeClass>{SizeClass::small, SizeClass::large}));
  EXPECT_EQ(opt.filter.dtypes, (std::vector<DType>{DType::f32, DType::bf16}));
  EXPECT_EQ(opt.filter.custom_shapes, (std::vector<Shape>{{1023, 1025}}));
  EXPECT_TRUE(opt.filter.fast);
  EXPECT_TRUE(opt.timing.pure && opt.timing.real);
  EXPECT_FALSE(opt.timing.l2_cold);
  EXPECT_FALSE(opt.write_markdown);
  EXPECT_TRUE(opt.write_json);
  EXPECT_EQ(opt.benchmark_args, (std::vector<std::string>{"--benchmark_filter=add"}));
  EXPECT_LT(opt.timing.max_samples, TimingConfig{}.max_samples);  // --fast samples less
}

TEST(Cli, TimersAndGraphLaunches) {
  Options opt;
  ASSERT_FALSE(parse({}, opt).exit_now);
  EXPECT_EQ(opt.timing.device_timer, DeviceTimer::cupti);
  EXPECT_EQ(opt.timing.graph_launches, 0);  // chosen from the warm-up estimate
  for (const auto& [word, timer] : std::vector<std::pair<std::string, DeviceTimer>>{
           {"cupti", DeviceTimer::cupti}, {"cupti-stream", DeviceTimer::cupti_stream}, {"events", DeviceTimer::events}}) {
    Options o;
    ASSERT_FALSE(parse({"--device-timer", word}, o).exit_now) << word;
    EXPECT_EQ(o.timing.device_timer, timer) << word;
  }
  Options g;
  ASSERT_FALSE(parse({"--timing", "graph", "--graph-launches", "50", "--fast"}, g).exit_now);
  EXPECT_TRUE(g.timing.graph);
  EXPECT_EQ(g.timing.graph_launches, 50);  // --fast keeps it
}

TEST(Cli, UserErrorsExitWithUsageCode) {
  const std::vector<std::vector<std::string>> bad = {
      {"--op", "addd"},       {"--category", "elementwise"}, {"--size", "huge"},   {"--dtype", "fp8"},
      {"--shape", "12x"},     {"--timing", "wall"},          {"--l2", "hot"},      {"--format", "pdf"},
      {"--no-such-flag"},     {"--output-dir", ""},          {"--device-timer", "nvtx"}, {"--graph-launches", "-1"},
  };
  for (const auto& args : bad) {
    Options opt;
    ParseOutcome r = parse(args, opt);
    EXPECT_TRUE(r.exit_now) << args[0];
    EXPECT_EQ(r.exit_code, kExitUsage) << args[0] << " " << (args.size() > 1 ? args[1] : "");
  }
}

TEST(Cli, HelpExitsZero) {
  Options opt;
  testing::internal::CaptureStdout();
  ParseOutcome r = parse({"--help"}, opt);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(r.exit_now);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(out.find("--category"), std::string::npos);
  EXPECT_NE(out.find("Exit codes"), std::string::npos);
}
