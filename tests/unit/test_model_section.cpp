// The model benchmark's report: its op names, the Markdown sections drawn from model results (figures
// checked against hand-computed values), and context.model through the JSON and back.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "tests/unit/markdown_tables.hpp"
#include "reports/json_writer.hpp"
#include "reports/markdown.hpp"
#include "reports/model_section.hpp"

using namespace opbench;
using namespace opbench::reports;

namespace {

const std::string kModel = "qwen2-0.5b";

ImplResult timed(ImplKind k, double ms, double memory_mb) {
  ImplResult r;
  r.impl = k, r.memory_mb = memory_mb;
  r.verify.checked = r.verify.correct = true;
  TimeStats t;
  t.median_ms = t.min_ms = t.max_ms = t.mean_ms = t.q1_ms = t.q3_ms = ms;
  t.samples = 5, t.samples_ms = std::vector<double>(5, ms), t.stop_reason = "precision";
  r.pure = t;
  return r;
}

ImplResult failed(ImplKind k, const std::string& why) {
  ImplResult r;
  r.impl = k, r.status = Status::failed, r.message = why;
  return r;
}

ProblemResult model_problem(const std::string& op, int64_t batch, int64_t seq, ImplResult fw, ImplResult torch) {
  ProblemResult p;
  p.op = op, p.category = Category{"model"}, p.shape = {batch, seq}, p.dtype = DType::bf16;
  p.impls = {std::move(fw), std::move(torch)};
  return p;
}

void add_run(RunResults& r, ModelRun run, int64_t b, int64_t s, double fw_ms, double torch_ms, double fw_mb,
             double torch_mb) {
  r.problems.push_back(model_problem(model_run_op(kModel, run), b, s, timed(ImplKind::framework, fw_ms, fw_mb),
                                     timed(ImplKind::torch, torch_ms, torch_mb)));
}

void add_family(RunResults& r, LayerFamily f, int64_t b, int64_t s, double fw_ms, double torch_ms) {
  r.problems.push_back(model_problem(layer_family_op(kModel, f), b, s, timed(ImplKind::framework, fw_ms, 10),
                                     timed(ImplKind::torch, torch_ms, 10)));
}

// Prefill at four points (two where the framework trails), a train_step whose framework failed, two
// decodes, and the layer families at b4 s512 (mlp_matmuls, attention and rest trail LibTorch) and b1 s128.
RunResults model_run() {
  RunResults r;
  r.context.device.name = "NVIDIA H100 80GB HBM3";
  r.context.timestamp = "2026-11-24T10:00:00Z", r.context.timing_mode = "pure", r.context.l2_mode = "cold";
  r.context.model = *find_model(kModel);
  add_run(r, ModelRun::prefill, 1, 128, 10, 12, 1000, 1200);
  add_run(r, ModelRun::prefill, 1, 512, 30, 30, 1500, 1500);
  add_run(r, ModelRun::prefill, 4, 128, 20, 16, 1800, 1700);
  add_run(r, ModelRun::prefill, 4, 512, 80, 60, 3000, 2500);
  r.problems.push_back(model_problem(model_run_op(kModel, ModelRun::train_step), 1, 128,
                                     failed(ImplKind::framework, "out of memory"),
                                     timed(ImplKind::torch, 40, 4000)));
  add_run(r, ModelRun::decode, 1, 128, 5, 10, 990, 1000);
  add_run(r, ModelRun::decode, 1, 512, 6, 9, 995, 1010);
  const std::pair<LayerFamily, std::pair<double, double>> fams[] = {
      {LayerFamily::attention, {0.8, 0.6}}, {LayerFamily::attention_proj, {0.5, 0.5}},
      {LayerFamily::mlp_matmuls, {1.2, 0.9}}, {LayerFamily::norms, {0.2, 0.3}},
      {LayerFamily::rope, {0.1, 0.1}},        {LayerFamily::rest, {0.2, 0.1}}};
  for (const auto& [f, t] : fams) add_family(r, f, 4, 512, t.first, t.second);
  for (const auto& [f, t] : fams) add_family(r, f, 1, 128, t.first / 8, t.second / 8);
  return r;
}

std::string model_md(const RunResults& r) {
  std::ostringstream os;
  write_model_markdown(build_rows(r), os);
  return os.str();
}

// The text between one heading and the next heading of the same or a higher level.
std::string section(const std::string& md, const std::string& heading) {
  const auto at = md.find(heading + "\n");
  if (at == std::string::npos) return "";
  const std::string level = heading.substr(0, heading.find(' ') + 1);
  std::size_t end = at + heading.size();
  while ((end = md.find('\n' + std::string("#"), end)) != std::string::npos) {
    const std::size_t start = end + 1;
    const std::size_t hashes = md.find_first_not_of('#', start) - start;
    if (hashes <= level.size() - 1) break;
    ++end;
  }
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(ModelOps, NamesParseBack) {
  for (ModelRun run : {ModelRun::prefill, ModelRun::train_step, ModelRun::decode}) {
    const auto n = parse_model_op(model_run_op(kModel, run));
    ASSERT_TRUE(n.has_value()) << model_run_op(kModel, run);
    EXPECT_EQ(n->model, kModel);
    EXPECT_EQ(n->run, run);
    EXPECT_FALSE(n->family.has_value());
  }
  for (LayerFamily f : layer_families()) {
    const auto n = parse_model_op(layer_family_op(kModel, f));
    ASSERT_TRUE(n.has_value()) << layer_family_op(kModel, f);
    EXPECT_EQ(n->family, f);
    EXPECT_FALSE(n->run.has_value());
  }
  EXPECT_EQ(model_run_op(kModel, ModelRun::train_step), "qwen2-0.5b.train_step");
  EXPECT_EQ(layer_family_op(kModel, LayerFamily::mlp_matmuls), "qwen2-0.5b.layer.mlp_matmuls");
  for (const char* other : {"add", "rms_norm", "qwen2-0.5b", "qwen2-0.5b.", "qwen2-0.5b.layer.bogus",
                            "qwen2-0.5b.layer.", "qwen2-0.5b.prefill.x", "llama-7b.prefill", "qwen2-0.5bprefill"})
    EXPECT_FALSE(parse_model_op(other).has_value()) << other;
}

TEST(ModelOps, TokensAndParameters) {
  EXPECT_EQ(model_run_tokens(ModelRun::prefill, 4, 512), 2048);
  EXPECT_EQ(model_run_tokens(ModelRun::train_step, 2, 128), 256);
  EXPECT_EQ(model_run_tokens(ModelRun::decode, 4, 512), 4);
  // Qwen2-0.5B's published count: 494,032,768 (embedding tied).
  EXPECT_EQ(find_model(kModel)->parameters(), 494032768);
}

TEST(ModelSection, NothingWithoutModelResults) {
  RunResults r;
  ProblemResult p;
  p.op = "add", p.category = Category{"element"}, p.shape = {4096, 4096}, p.dtype = DType::f32;
  p.impls = {timed(ImplKind::framework, 1, 1), timed(ImplKind::torch, 1, 1)};
  r.problems.push_back(p);
  EXPECT_EQ(model_md(r), "");
  // A context naming a model without any model result writes nothing either.
  r.context.model = *find_model(kModel);
  EXPECT_EQ(model_md(r), "");
  std::ostringstream os;
  write_markdown(build_report(r), {}, os);
  EXPECT_FALSE(has(os.str(), "Model benchmark"));
}

TEST(ModelSection, ConfigurationFromTheContext) {
  const std::string md = model_md(model_run());
  ASSERT_TRUE(has(md, "## Model benchmark: qwen2-0.5b\n")) << md;
  const std::string cfg = section(md, "### Model configuration");
  EXPECT_TRUE(has(cfg, "| Decoder layers | 24 |")) << cfg;
  EXPECT_TRUE(has(cfg, "| Hidden size | 896 |"));
  EXPECT_TRUE(has(cfg, "| MLP intermediate size | 4864 |"));
  EXPECT_TRUE(has(cfg, "| Attention heads (query) | 14 |"));
  EXPECT_TRUE(has(cfg, "| Key/value heads | 2 (grouped-query attention: 7 query heads per key/value head) |"));
  EXPECT_TRUE(has(cfg, "| Head dimension | 64 |"));
  EXPECT_TRUE(has(cfg, "| Vocabulary | 151936 |"));
  EXPECT_TRUE(has(cfg, "| Parameters | 494,032,768 (494.0 M), the tied embedding counted once |")) << cfg;
  EXPECT_TRUE(has(cfg, "| RMSNorm eps | 1e-06 |"));
  EXPECT_TRUE(has(cfg, "| RoPE theta | 1e+06 |"));
  EXPECT_TRUE(has(cfg, "| Precision | bf16 weights and activations"));
  EXPECT_TRUE(has(cfg, "| Runs measured | prefill, train_step, decode |"));
  EXPECT_TRUE(has(cfg, "| Batch sizes | 1, 4 |"));
  EXPECT_TRUE(has(cfg, "| Sequence lengths | 128, 512 (decode: the KV cache length) |"));
  EXPECT_FALSE(has(cfg, "names no model"));

  // A context changed by hand (24 -> 2 layers) is what the section shows, not the built-in table.
  RunResults r = model_run();
  r.context.model->layers = 2;
  EXPECT_TRUE(has(model_md(r), "| Decoder layers | 2 |"));
  // No model in the context: the built-in configuration of the name, said so.
  r.context.model.reset();
  const std::string fallback = model_md(r);
  EXPECT_TRUE(has(fallback, "names no model"));
  EXPECT_TRUE(has(fallback, "| Decoder layers | 24 |"));
}

TEST(ModelSection, PerformanceSummaryNumbers) {
  const std::string perf = section(model_md(model_run()), "### Performance summary");
  ASSERT_FALSE(perf.empty());
  // 2048 tokens: 2048 / 80 ms = 25,600 tokens/s, 2048 / 60 ms = 34,133; speedup 60 / 80.
  EXPECT_TRUE(has(perf, "| prefill | 4 | 512 | 2048 | 80.00 | 60.00 | 0.75x | 25,600 | 34,133 |")) << perf;
  EXPECT_TRUE(has(perf, "| prefill | 1 | 128 | 128 | 10.00 | 12.00 | 1.20x | 12,800 | 10,667 |")) << perf;
  // Decode: one token per sequence.
  EXPECT_TRUE(has(perf, "| decode | 1 | 128 | 1 | 5.000 | 10.00 | 2.00x | 200 | 100 |")) << perf;
  // The failed framework: no time, no speedup, no tokens/s; LibTorch's figures stay.
  EXPECT_TRUE(has(perf, "| train_step | 1 | 128 | 128 | failed | 40.00 | — | — | 3,200 |")) << perf;
  EXPECT_TRUE(has(perf, "qwen2-0.5b.train_step 1x128 bf16 [framework]: failed: out of memory")) << perf;
  // geomean(1.2, 1.0, 0.8, 0.75) = 0.921; faster at one point.
  EXPECT_TRUE(has(perf, "- prefill: geomean speedup 0.92x over the 4 of 4 points compared; the framework is faster "
                        "at 1 of them (range 0.75x – 1.20x).")) << perf;
  EXPECT_TRUE(has(perf, "- train_step: no point with both a correct framework and a correct LibTorch time.")) << perf;
}

TEST(ModelSection, OperationAnalysisAtTheLargestPoint) {
  const std::string ops = section(model_md(model_run()), "### Operation analysis");
  ASSERT_FALSE(ops.empty());
  EXPECT_TRUE(has(ops, "batch 4, seq 512 (2048 tokens)")) << ops;
  // Framework families sum to 3.0 ms, LibTorch's to 2.5 ms.
  EXPECT_TRUE(has(ops, "| mlp_matmuls | gate_up and down projections | 1.200 | 40.0% | 0.9000 | 36.0% | 0.75x |"))
      << ops;
  EXPECT_TRUE(has(ops, "| norms | input and post-attention RMSNorm | 0.2000 | 6.7% | 0.3000 | 12.0% | 1.50x |")) << ops;
  EXPECT_TRUE(has(ops, "| sum | the layer's families | 3.000 | 100.0% | 2.500 | 100.0% | 0.83x |")) << ops;
  // Prefill at b4 s512 over 24 layers: 80 / 24 = 3.333 ms (families 90.0% of it); LibTorch 60 / 24 = 2.5.
  EXPECT_TRUE(has(ops, "- framework: the families sum to 3.000 ms; prefill 80.00 ms / 24 layers = 3.333 ms per layer"))
      << ops;
  EXPECT_TRUE(has(ops, "the families are 90.0% of it.")) << ops;
  EXPECT_TRUE(has(ops, "- LibTorch: the families sum to 2.500 ms; prefill 60.00 ms / 24 layers = 2.500 ms per layer"))
      << ops;
  EXPECT_TRUE(has(ops, "Family results also at: b1 s128 ")) << ops;
}

TEST(ModelSection, ScalabilityAlongBothAxes) {
  const std::string sc = section(model_md(model_run()), "### Scalability analysis");
  ASSERT_FALSE(sc.empty());
  const std::string prefill = section(sc, "#### prefill");
  // Both seqs have two batches: the largest (512) is kept; both batches have two seqs: 4 is kept.
  EXPECT_TRUE(has(prefill, "By batch at seq 512:")) << prefill;
  EXPECT_TRUE(has(prefill, "| 4 | 2048 | 80.00 | 25,600 | 60.00 | 34,133 | 0.75x |")) << prefill;
  // 512 / 30 ms = 17,067 tokens/s -> 2048 / 80 ms = 25,600: 4x the tokens in 2.67x the time.
  EXPECT_TRUE(has(prefill, "- framework: batch 1 → 4: 4.00× the tokens in 2.67× the time; tokens/s 17,067 → 25,600 "
                           "(1.50×).")) << prefill;
  EXPECT_TRUE(has(prefill, "By seq at batch 4:")) << prefill;
  EXPECT_TRUE(has(prefill, "- LibTorch: seq 128 → 512: 4.00× the tokens in 3.75× the time")) << prefill;
  // One train_step point: nothing to scale, said so.
  const std::string train = section(sc, "#### train_step");
  EXPECT_TRUE(has(train, "By batch: one batch value per seq, nothing to scale along.")) << train;
  // Decode along seq: the same tokens, more time.
  const std::string decode = section(sc, "#### decode");
  EXPECT_TRUE(has(decode, "- framework: seq 128 → 512: 1.00× the tokens in 1.20× the time; tokens/s 200 → 167 "
                          "(0.83×).")) << decode;
}

TEST(ModelSection, MemoryPerRunAndImplementation) {
  const std::string mem = section(model_md(model_run()), "### Memory analysis");
  ASSERT_FALSE(mem.empty());
  EXPECT_TRUE(has(mem, "| prefill | 4 | 512 | 3000.0 | 2500.0 | 1.20× |")) << mem;
  EXPECT_TRUE(has(mem, "| prefill | 1 | 128 | 1000.0 | 1200.0 | 0.83× |")) << mem;
  EXPECT_TRUE(has(mem, "| train_step | 1 | 128 | failed | 4000.0 | — |")) << mem;
  // 494,032,768 x 2 B / 2^20 = 942.3.
  EXPECT_TRUE(has(mem, "The weights alone in bf16: 494,032,768 parameters × 2 B = 942.3 MB.")) << mem;
  // Below at prefill b1 s128, decode b1 s128 and s512; 6 points with both measured.
  EXPECT_TRUE(has(mem, "The framework's peak is below LibTorch's at 3 of the 6 points with both measured")) << mem;
}

TEST(ModelSection, PrioritiesComeFromTheFigures) {
  const std::string pr = section(model_md(model_run()), "### Optimization priorities");
  ASSERT_FALSE(pr.empty());
  const auto wrong = pr.find("#### 1. Framework model results that are incorrect or did not run");
  const auto fams = pr.find("#### 2. Layer families slower than LibTorch");
  const auto runs = pr.find("#### 3. Runs where the framework trails LibTorch");
  const auto mem = pr.find("#### 4. Runs whose peak memory exceeds LibTorch's");
  ASSERT_NE(wrong, std::string::npos) << pr;
  ASSERT_NE(fams, std::string::npos) << pr;
  ASSERT_NE(runs, std::string::npos) << pr;
  ASSERT_NE(mem, std::string::npos) << pr;
  EXPECT_TRUE(has(pr.substr(wrong, fams - wrong), "qwen2-0.5b.train_step 1x128 bf16: failed: out of memory"));
  // Gaps per layer: mlp_matmuls 0.3, attention 0.2, rest 0.1 ms (0.6 lost; x 24 layers = 14.40 ms).
  const std::string f = pr.substr(fams, runs - fams);
  EXPECT_TRUE(has(f, "Together they lose 0.6000 ms per layer, 14.40 ms over the 24 layers of a forward.")) << f;
  const auto mlp = f.find("- mlp_matmuls: 0.75x LibTorch's speed (1.200 ms vs 0.9000 ms), 40.0% of the framework's "
                          "summed family time; 0.3000 ms behind per layer, 50.0% of the time lost");
  const auto attn = f.find("- attention: 0.75x");
  const auto rest = f.find("- rest: 0.50x");
  ASSERT_NE(mlp, std::string::npos) << f;
  ASSERT_NE(attn, std::string::npos) << f;
  ASSERT_NE(rest, std::string::npos) << f;
  EXPECT_LT(mlp, attn);
  EXPECT_LT(attn, rest);
  EXPECT_FALSE(has(f, "- norms:"));  // faster than LibTorch
  EXPECT_FALSE(has(f, "- rope:"));   // even
  // Runs: the slowest relative to LibTorch first.
  const std::string r = pr.substr(runs, mem - runs);
  const auto p512 = r.find("- prefill b4 s512: 0.75x (80.00 ms vs LibTorch 60.00 ms, 20.00 ms behind)");
  const auto p128 = r.find("- prefill b4 s128: 0.80x");
  ASSERT_NE(p512, std::string::npos) << r;
  ASSERT_NE(p128, std::string::npos) << r;
  EXPECT_LT(p512, p128);
  EXPECT_FALSE(has(r, "decode"));
  EXPECT_TRUE(has(pr.substr(mem), "- prefill b4 s512: 1.20× LibTorch's peak (3000.0 MB vs 2500.0 MB)")) << pr;
}

TEST(ModelSection, NothingToPrioritizeIsSaid) {
  RunResults r;
  r.context.model = *find_model(kModel);
  add_run(r, ModelRun::prefill, 1, 128, 10, 12, 100, 200);
  add_family(r, LayerFamily::norms, 1, 128, 0.1, 0.2);
  const std::string pr = section(model_md(r), "### Optimization priorities");
  EXPECT_TRUE(has(pr, "None: every framework model result is correct, and none of the 1 runs and 1 layer families "
                      "compared is slower than LibTorch")) << pr;
}

TEST(ModelSection, MissingOrFailedLibTorchHasNoSpeedup) {
  RunResults r;
  r.context.model = *find_model(kModel);
  r.problems.push_back(model_problem(model_run_op(kModel, ModelRun::prefill), 2, 256,
                                     timed(ImplKind::framework, 25, 900), failed(ImplKind::torch, "CUDA error")));
  ProblemResult alone = model_problem(model_run_op(kModel, ModelRun::decode), 2, 256,
                                      timed(ImplKind::framework, 4, 800), ImplResult{});
  alone.impls.pop_back();  // no LibTorch row at all
  r.problems.push_back(alone);
  // A LibTorch result the fp64 oracle rejects: no speedup against it.
  ImplResult wrong = timed(ImplKind::torch, 2, 10);
  wrong.verify.correct = false, wrong.verify.mismatches = 3;
  r.problems.push_back(model_problem(layer_family_op(kModel, LayerFamily::rope), 2, 256,
                                     timed(ImplKind::framework, 1, 10), wrong));
  const std::string md = model_md(r);
  EXPECT_TRUE(has(md, "| prefill | 2 | 256 | 512 | 25.00 | failed | — | 20,480 | — |")) << md;
  EXPECT_TRUE(has(md, "| decode | 2 | 256 | 2 | 4.000 | no row | — | 500 | — |")) << md;
  EXPECT_TRUE(has(md, "| rope | rotary embedding of q and k | 1.000 | 100.0% | incorrect | — | — |")) << md;
  EXPECT_TRUE(has(md, "[LibTorch]: failed: CUDA error")) << md;
  EXPECT_TRUE(has(md, "- framework: only 1 of 6 families timed: their sum is no layer.")) << md;
  EXPECT_TRUE(has(md, "- LibTorch: no correct prefill time at this point (failed).")) << md;
  EXPECT_TRUE(has(md, "| prefill | 2 | 256 | 900.0 | failed | — |")) << md;
  EXPECT_TRUE(has(md, "Nothing to rank: no run or layer family has both")) << md;
  EXPECT_EQ(md.find("inf"), std::string::npos);
  EXPECT_EQ(md.find("nan"), std::string::npos);
}

TEST(ModelSection, OnlyFamiliesOrOnlyRuns) {
  RunResults fams;
  fams.context.model = *find_model(kModel);
  add_family(fams, LayerFamily::attention, 1, 128, 0.5, 0.4);
  const std::string a = model_md(fams);
  EXPECT_TRUE(has(a, "No whole-model run in this report (only layer families).")) << a;
  EXPECT_TRUE(has(a, "No prefill at batch 1, seq 128 in this report")) << a;
  RunResults runs;
  runs.context.model = *find_model(kModel);
  add_run(runs, ModelRun::decode, 1, 128, 5, 6, 10, 10);
  EXPECT_TRUE(has(model_md(runs), "No layer-family results in this report")) << model_md(runs);
}

TEST(ModelSection, TablesStayValidInTheWholeReport) {
  const RunResults r = model_run();
  std::ostringstream os;
  write_markdown(build_report(r), {}, os);
  const std::string md = os.str();
  // The section comes once, after the category breakdown and before the size classes.
  const auto model = md.find("## Model benchmark: qwen2-0.5b");
  ASSERT_NE(model, std::string::npos);
  EXPECT_EQ(md.find("## Model benchmark", model + 1), std::string::npos);
  EXPECT_LT(md.find("## Category breakdown"), model);
  EXPECT_LT(model, md.find("## Size-class breakdown"));
  opbench::testing_md::expect_tables_valid(md);
}

TEST(ModelJson, ContextModelRoundTrip) {
  const RunResults original = model_run();
  const nlohmann::json j = to_json(original);
  const nlohmann::json& m = j.at("context").at("model");
  EXPECT_EQ(m.at("name"), kModel);
  EXPECT_EQ(m.at("layers"), 24);
  EXPECT_EQ(m.at("heads_kv"), 2);
  EXPECT_EQ(m.at("vocab"), 151936);
  EXPECT_EQ(m.at("parameters"), 494032768);
  EXPECT_EQ(m.at("tied_embeddings"), true);
  const RunResults back = from_json(j);
  ASSERT_TRUE(back.context.model.has_value());
  const ModelConfig& a = *original.context.model;
  const ModelConfig& b = *back.context.model;
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(std::tie(b.layers, b.hidden, b.intermediate, b.heads_q, b.heads_kv, b.head_dim, b.vocab),
            std::tie(a.layers, a.hidden, a.intermediate, a.heads_q, a.heads_kv, a.head_dim, a.vocab));
  EXPECT_EQ(b.rms_eps, a.rms_eps);
  EXPECT_EQ(b.rope_theta, a.rope_theta);
  EXPECT_EQ(b.qkv_bias, a.qkv_bias);
  EXPECT_EQ(b.tied_embeddings, a.tied_embeddings);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(model_md(back), model_md(original));

  // A hand-edited config reads back as written (parameters is derived, not read).
  RunResults edited = model_run();
  edited.context.model->layers = 3, edited.context.model->qkv_bias = false, edited.context.model->rms_eps = 1e-5;
  const RunResults edited_back = from_json(to_json(edited));
  EXPECT_EQ(edited_back.context.model->layers, 3);
  EXPECT_FALSE(edited_back.context.model->qkv_bias);
  EXPECT_EQ(edited_back.context.model->rms_eps, 1e-5);
}

TEST(ModelJson, ReportsWithoutAModelStayReadable) {
  RunResults r = model_run();
  r.context.model.reset();
  const nlohmann::json j = to_json(r);
  EXPECT_FALSE(j.at("context").contains("model"));
  EXPECT_FALSE(from_json(j).context.model.has_value());
  // An older report (no "model" key) and one with an explicit null both read as no model.
  nlohmann::json with_null = j;
  with_null["context"]["model"] = nullptr;
  EXPECT_FALSE(from_json(with_null).context.model.has_value());
  // A model object missing a field is an error, not a silent default.
  nlohmann::json broken = to_json(model_run());
  broken["context"]["model"].erase("layers");
  EXPECT_ANY_THROW(from_json(broken));
}
