// The model benchmark's command line and selection: --category model, --model, --batch, --seq, --fast's
// corner, --shape, and that "all" (and a run naming no category) leaves the model out.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "opbench/model_info.hpp"
#include "opbench/registry.hpp"
#include "src/cli/options.hpp"
#include "tests/unit/cli_parse.hpp"

using namespace opbench;
using opbench::testing_cli::parse;

namespace {

std::vector<Problem> problems(const std::vector<std::string>& args) {
  Options opt;
  testing::internal::CaptureStderr();
  const ParseOutcome r = parse(args, opt);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(r.exit_now) << err;
  return select_problems(global_registry(), opt.filter);
}

std::set<Shape> shapes_of(const std::vector<Problem>& ps, const std::string& op) {
  std::set<Shape> s;
  for (const Problem& p : ps)
    if (p.op->name == op) s.insert(p.shape);
  return s;
}

bool usage_error(const std::vector<std::string>& args) {
  Options opt;
  testing::internal::CaptureStderr();
  const ParseOutcome r = parse(args, opt);
  testing::internal::GetCapturedStderr();
  return r.exit_now && r.exit_code == 2;
}

const std::string kPrefill = "qwen2-0.5b.prefill";

}  // namespace

TEST(ModelInfo, Qwen2HasItsPublishedParameterCount) {
  const ModelConfig* m = find_model("qwen2-0.5b");
  ASSERT_NE(m, nullptr);
  // HF's Qwen2-0.5B: 494,032,768 parameters (tied embeddings counted once).
  EXPECT_EQ(m->parameters(), 494032768);
  EXPECT_EQ(find_model("llama-70b"), nullptr);
}

TEST(ModelInfo, OpNamesReadBack) {
  const auto p = parse_model_op(model_run_op("qwen2-0.5b", ModelRun::train_step));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->model, "qwen2-0.5b");
  EXPECT_EQ(p->run, ModelRun::train_step);
  EXPECT_FALSE(p->family.has_value());
  const auto f = parse_model_op(layer_family_op("qwen2-0.5b", LayerFamily::mlp_matmuls));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->family, LayerFamily::mlp_matmuls);
  EXPECT_FALSE(parse_model_op("qwen2-0.5b.layer.nothing").has_value());
  EXPECT_FALSE(parse_model_op("add").has_value());
  EXPECT_EQ(model_run_tokens(ModelRun::prefill, 4, 512), 2048);
  EXPECT_EQ(model_run_tokens(ModelRun::decode, 4, 512), 4);
}

TEST(ModelSelection, CategoryModelRunsEveryOpOnTheDefaultGridInBf16) {
  const std::vector<Problem> ps = problems({"--category", "model"});
  const std::size_t ops = 3 + layer_families().size();
  ASSERT_EQ(ps.size(), ops * 9);
  for (const Problem& p : ps) {
    EXPECT_EQ(p.dtype, DType::bf16);
    EXPECT_EQ(p.op->model, "qwen2-0.5b");
  }
  const std::set<Shape> want = {{1, 128}, {1, 256}, {1, 512}, {2, 128}, {2, 256},
                                {2, 512}, {4, 128}, {4, 256}, {4, 512}};
  EXPECT_EQ(shapes_of(ps, kPrefill), want);
}

TEST(ModelSelection, FastTakesTheCornerAndBatchSeqReplaceTheGrid) {
  EXPECT_EQ(shapes_of(problems({"--category", "model", "--fast"}), kPrefill),
            (std::set<Shape>{{1, 128}, {1, 512}, {4, 512}}));
  EXPECT_EQ(shapes_of(problems({"--category", "model", "--batch", "8,8", "--seq", "64,1024"}), kPrefill),
            (std::set<Shape>{{8, 64}, {8, 1024}}));
  EXPECT_EQ(shapes_of(problems({"--category", "model", "--shape", "3x7"}), kPrefill), (std::set<Shape>{{3, 7}}));
  EXPECT_EQ(problems({"--op", kPrefill, "--model", "qwen2-0.5b", "--batch", "2", "--seq", "16"}).size(), 1u);
}

TEST(ModelSelection, AllAndNoCategoryLeaveTheModelOut) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--category", "all"}, {"--dtype", "bf16"}})
    for (const Problem& p : problems(args)) EXPECT_TRUE(p.op->model.empty()) << p.id();
}

TEST(ModelSelection, UserErrorsExitWithUsageCode) {
  EXPECT_TRUE(usage_error({"--batch", "2", "--op", "add"}));
  EXPECT_TRUE(usage_error({"--category", "model", "--model", "gpt-5"}));
  EXPECT_TRUE(usage_error({"--category", "model", "--batch", "0"}));
  EXPECT_TRUE(usage_error({"--category", "model", "--seq", "x"}));
  EXPECT_TRUE(usage_error({"--seq", "128"}));
}
