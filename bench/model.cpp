// The model benchmark (bench_ops --category model): a decoder built from the framework's kernels
// (kernels/model/decoder.hpp) against the same decoder written with LibTorch (src/reference/torch_model.cpp),
// on the same random bf16 weights (fw::model::shared_weights) and tokens. Ops per known model
// (opbench/model_info.hpp), shape {batch, seq}:
//   <model>.prefill         tokens [batch, seq] -> logits [batch * seq, vocab]
//   <model>.train_step      tokens, targets -> loss, and three weight gradients (layer 0's q_proj, the last
//                           layer's down_proj, the final norm): the step computes every gradient, these are
//                           the ones compared
//   <model>.decode          one token per sequence and a KV cache of seq positions -> logits [batch, vocab]
//   <model>.layer.<family>  one layer's forward (layer 0's weights) on x [batch * seq, hidden], timing only
//                           the steps of one op family on the activations of a full pass
// Correctness is by norms (Tolerance::rel_l2): the oracle is LibTorch's decoder in fp32 on the same bf16
// weights; see notes/model.md for the bounds and what they were measured against.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/model/decoder.hpp"

namespace opbench::bench {

namespace {

const Category kModel{"model"};

namespace fm = fw::model;

// 2 x params x tokens for the forward's GEMMs (the tied embedding counted once: as the LM head; the norms'
// and biases' 0.01% of the parameters counted too) plus the attention's scores and values: 4 x seq_kv x
// head_dim x heads_q per query token (halved when causal over the whole sequence).
double forward_flops(const ModelConfig& c, int64_t batch, int64_t seq_q, int64_t seq_kv, bool causal_square) {
  const double tokens = double(batch * seq_q);
  const double matmul_params = double(c.parameters());
  const double attn = 4.0 * double(seq_kv) * double(c.head_dim * c.heads_q) * (causal_square ? 0.5 : 1.0);
  return tokens * (2.0 * matmul_params + double(c.layers) * attn);
}

double weight_bytes(const ModelConfig& c) { return double(c.parameters()) * 2.0; }

// Bounds on the relative L2 error against LibTorch's decoder in fp32 on the same weights (the oracle; against
// LibTorch in bf16 the gate allows twice). A bf16 rounding is a relative error of at most u = 2^-8, of standard
// deviation about u / sqrt(3) = 0.0023 when rounding errors are uniform; a logit is the end of ~10 roundings
// per layer over 24 layers, which add like a random walk: sqrt(240) x 0.0023 = 0.035. One layer's outputs:
// sqrt(10) x 0.0023 = 0.007. The bounds are twice those (a training step's gradients, a second pass: a
// little more), and the H100 measured well inside them (notes/model.md: prefill 0.018, decode 0.039,
// train_step 0.029, one layer's families 0.005 at most).
Tolerance model_tolerance(std::optional<ModelRun> run) {
  Tolerance t{0, 0};
  t.rel_l2 = !run ? 0.02 : *run == ModelRun::train_step ? 0.10 : 0.08;
  return t;
}

OpDef base_op(const ModelConfig& c, const std::string& name, const std::string& description) {
  OpDef op = make_op(name, kModel, description);
  op.model = c.name;
  op.dtypes = {DType::bf16};
  op.shapes = [](SizeClass) { return std::vector<Shape>{}; };  // the --batch x --seq grid instead
  op.test_shapes = [] { return std::vector<Shape>{{1, 1}, {1, 7}, {2, 129}}; };
  return op;
}

// A whole model's call (hundreds of launches) is timed as issued: the host's queueing is part of a step's
// cost, as a user's loop pays it (a decode step at batch 1 is bound by it).
OpDef run_op(const ModelConfig& c, ModelRun r, const std::string& description) {
  OpDef op = base_op(c, model_run_op(c.name, r), description);
  op.timed_as_issued = true;
  return op;
}

// Device copies of `from` into the outputs (same sizes, in order), after a run.
void copy_out(const std::vector<const void*>& from, const std::vector<TensorView>& outs) {
  if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("a layer family's run failed");
  for (std::size_t i = 0; i < outs.size(); ++i)
    if (cudaMemcpy(outs[i].data, from[i], outs[i].bytes(), cudaMemcpyDeviceToDevice) != cudaSuccess)
      throw std::runtime_error("copying a layer family's output failed");
}

// Token ids (or targets) of the model's vocabulary.
TensorSpec tokens(const ModelConfig& c, const Shape& s) { return {s, DType::i64, Init::integers(0, c.vocab)}; }

void require_grid_shape(const Shape& s) {
  if (s.size() != 2 || s[0] <= 0 || s[1] <= 0)
    throw std::invalid_argument("a model run takes {batch, seq}, e.g. --shape 4x512");
}

void add_prefill(Registry& r, const ModelConfig& c) {
  OpDef op = run_op(c, ModelRun::prefill,
                     c.name + " forward over batch x seq tokens to every position's logits");
  op.io = [c](const Shape& s, DType t) {
    require_grid_shape(s);
    OpIO io;
    io.inputs = {tokens(c, s)};
    io.outputs = {{Shape{s[0] * s[1], c.vocab}, t}};
    io.workspace_bytes = fm::prefill_workspace_bytes(c, s[0], s[1]);
    return io;
  };
  op.bytes = [c](const Shape& s, DType) { return weight_bytes(c) + 2.0 * double(s[0] * s[1] * c.vocab); };
  op.flops = [c](const Shape& s, DType) { return forward_flops(c, s[0], s[1], s[1], true); };
  op.tolerance = [](const Shape&, DType) { return model_tolerance(ModelRun::prefill); };
  op.impls = {framework_impl([c](const Bindings& b, cudaStream_t stream) {
    const Shape& s = b.in[0].shape;
    fm::prefill(c, fm::shared_weights(c), b.in[0].as<int64_t>(), s[0], s[1], b.out[0].data, b.workspace,
                b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

void add_train_step(Registry& r, const ModelConfig& c) {
  OpDef op = run_op(c, ModelRun::train_step,
                     c.name + " forward, mean cross-entropy and backward (every weight's gradient; no optimizer)");
  op.io = [c](const Shape& s, DType t) {
    require_grid_shape(s);
    OpIO io;
    io.inputs = {tokens(c, s), tokens(c, s)};  // tokens and targets
    io.outputs = {{Shape{1}, t},
                  {Shape{c.heads_q * c.head_dim, c.hidden}, t},  // layers.0.wq's gradient
                  {Shape{c.hidden, c.intermediate}, t},          // the last layer's w_down's gradient
                  {Shape{c.hidden}, t}};                         // norm_f's gradient
    io.workspace_bytes = fm::train_step_workspace_bytes(c, s[0], s[1]) + fm::weights_bytes(c, t) + 256;
    return io;
  };
  // Weights read twice (forward, backward), gradients written once, the logits written, read and written.
  op.bytes = [c](const Shape& s, DType) { return 3.0 * weight_bytes(c) + 6.0 * double(s[0] * s[1] * c.vocab); };
  // Backward: two GEMMs per forward GEMM, and the attention's backward (2.5x its forward, FA2 with recompute).
  op.flops = [c](const Shape& s, DType) {
    const ModelConfig& m = c;
    const double attn = double(m.layers) * 4.0 * double(s[1]) * double(m.head_dim * m.heads_q) * 0.5 * double(s[0] * s[1]);
    const double gemm = forward_flops(m, s[0], s[1], s[1], true) - attn;
    return 3.0 * gemm + 3.5 * attn;
  };
  op.tolerance = [](const Shape&, DType) { return model_tolerance(ModelRun::train_step); };
  // Not seq 1: with one key every query's softmax is 1 whatever q is, so layer 0's q_proj gradient (a
  // compared output) is exactly zero and both sides' results are rounding noise with no norm to be
  // relative to.
  op.test_shapes = [] { return std::vector<Shape>{{1, 7}, {2, 129}}; };
  op.impls = {framework_impl([c](const Bindings& b, cudaStream_t stream) {
    const Shape& s = b.in[0].shape;
    const std::size_t train_bytes = fm::train_step_workspace_bytes(c, s[0], s[1]);
    // The gradients after the step's own workspace; the three compared ones are written straight into
    // the outputs.
    char* grads_base = static_cast<char*>(b.workspace) + (train_bytes + 255) / 256 * 256;
    fm::Weights g = fm::layout_weights(c, b.out[0].dtype, grads_base);
    g.layers.front().wq = b.out[1].data;
    g.layers.back().w_down = b.out[2].data;
    g.norm_f = b.out[3].data;
    fm::train_step(c, fm::shared_weights(c), b.in[0].as<int64_t>(), b.in[1].as<int64_t>(), s[0], s[1],
                   b.out[0].data, g, b.workspace, train_bytes, stream);
  })};
  r.add(std::move(op));
}

void add_decode(Registry& r, const ModelConfig& c) {
  OpDef op = run_op(c, ModelRun::decode,
                     c.name + " one new token per sequence against a KV cache of seq positions, to its logits");
  op.io = [c](const Shape& s, DType t) {
    require_grid_shape(s);
    OpIO io;
    // The cache: [layers, k/v, batch, seq + 1, kv heads x head_dim]; position seq is the new token's slot.
    io.inputs = {tokens(c, Shape{s[0]}),
                 {Shape{c.layers, 2, s[0], s[1] + 1, c.heads_kv * c.head_dim}, t, Init::uniform(-1.0, 1.0)}};
    io.outputs = {{Shape{s[0], c.vocab}, t}};
    io.params.set("seq", double(s[1]));
    io.workspace_bytes = fm::decode_workspace_bytes(c, s[0], s[1]);
    return io;
  };
  // Every weight once, the cache read once, the logits written.
  op.bytes = [c](const Shape& s, DType) {
    const double cache = double(c.layers) * 2.0 * double(s[0] * s[1] * c.heads_kv * c.head_dim) * 2.0;
    return weight_bytes(c) + cache + 2.0 * double(s[0] * c.vocab);
  };
  op.flops = [c](const Shape& s, DType) { return forward_flops(c, s[0], 1, s[1] + 1, false); };
  op.tolerance = [](const Shape&, DType) { return model_tolerance(ModelRun::decode); };
  // A cache the GPU tests place off 16-byte alignment takes the attention kernel's element-load path.
  op.impls = {framework_impl([c](const Bindings& b, cudaStream_t stream) {
    const int64_t batch = b.in[0].shape[0], seq = int64_t(b.params.get("seq"));
    fm::decode(c, fm::shared_weights(c), b.in[0].as<int64_t>(), b.in[1].data, batch, seq, b.out[0].data, b.workspace,
               b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

void add_layer_family(Registry& r, const ModelConfig& c, LayerFamily f) {
  OpDef op = base_op(c, layer_family_op(c.name, f),
                     c.name + " one layer's forward, " + layer_family_description(f) + " only");
  op.io = [c, f](const Shape& s, DType t) {
    require_grid_shape(s);
    OpIO io;
    io.inputs = {{Shape{s[0] * s[1], c.hidden}, t, Init::uniform(-1.0, 1.0)}};
    for (const std::vector<int64_t>& o : fm::family_output_shapes(c, f, s[0], s[1])) io.outputs.push_back({o, t});
    io.params.set("batch", double(s[0]));
    io.params.set("seq", double(s[1]));
    io.workspace_bytes = fm::LayerRun::workspace_bytes(c, t, s[0], s[1]);
    return io;
  };
  // What the family's own steps read and write (its outputs, and the weights it reads).
  op.bytes = [c, f](const Shape& s, DType) {
    double b = 0;
    for (const std::vector<int64_t>& o : fm::family_output_shapes(c, f, s[0], s[1])) {
      double n = 1;
      for (int64_t d : o) n *= double(d);
      b += 2.0 * n;
    }
    const double H = double(c.hidden), Q = double(c.heads_q * c.head_dim), KV = double(c.heads_kv * c.head_dim),
                 I = double(c.intermediate);
    if (f == LayerFamily::attention_proj) b += 2.0 * (H * Q * 2 + 2 * H * KV);
    if (f == LayerFamily::mlp_matmuls) b += 2.0 * 3 * H * I;
    return b;
  };
  op.flops = [c, f](const Shape& s, DType) {
    const double T = double(s[0] * s[1]), H = double(c.hidden), Q = double(c.heads_q * c.head_dim),
                 KV = double(c.heads_kv * c.head_dim), I = double(c.intermediate);
    switch (f) {
      case LayerFamily::attention_proj: return 2.0 * T * (2 * H * Q + 2 * H * KV);
      case LayerFamily::mlp_matmuls: return 2.0 * T * 3 * H * I;
      case LayerFamily::attention: return 4.0 * T * double(s[1]) * Q * 0.5;
      default: return 0.0;
    }
  };
  op.tolerance = [](const Shape&, DType) { return model_tolerance(std::nullopt); };
  Impl impl;
  impl.kind = ImplKind::framework;
  impl.prepare = [c, f](const Bindings& b) {
    const auto batch = int64_t(b.params.get("batch")), seq = int64_t(b.params.get("seq"));
    auto run = std::make_shared<fm::LayerRun>(c, fm::shared_weights(c).layers.front(), b.in[0].dtype, b.in[0].data,
                                              batch, seq, b.workspace, b.workspace_bytes);
    run->run_all(nullptr);  // the activations every family's steps read
    if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("the layer's first forward failed");
    Prepared p;
    p.launch = [run, f](cudaStream_t stream) { run->run_family(f, stream); };
    // The family's buffers live in the workspace; the outputs get a copy after a run (untimed).
    p.finish = [run, f, outs = b.out]() { copy_out(run->family_buffers(f), outs); };
    return p;
  };
  op.impls = {impl};
  r.add(std::move(op));
}

void register_model(Registry& r) {
  for (const ModelConfig& c : known_models()) {
    add_prefill(r, c);
    add_train_step(r, c);
    add_decode(r, c);
    for (LayerFamily f : layer_families()) add_layer_family(r, c, f);
  }
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kModel, 90, "decoder models (--model, --batch, --seq): prefill, train_step, decode, per-family layer split",
                           {"models"}, register_model, /*in_all=*/false});

}  // namespace opbench::bench
