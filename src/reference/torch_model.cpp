// LibTorch's side of the model benchmark (bench/model.cpp): the decoder as a PyTorch user writes it, the
// HF Qwen2 modelling code in at:: ops, on the framework's shared random weights (fw::model::shared_weights,
// wrapped with from_blob: no copy):
//   embedding; per layer: rms_norm (at::rms_norm), q/k/v = at::linear with bias, rotate_half RoPE with cos/sin
//   tables made once per forward (HF's rotary_emb), at::scaled_dot_product_attention (is_causal, enable_gqa;
//   flash backend for bf16), o_proj, residual adds, the SwiGLU MLP as silu(gate) * up with gate and up from
//   one linear over the stacked [2 x intermediate, hidden] weight (vLLM's and many Llama implementations'
//   form; HF's two linears do the same FLOPs), down_proj; final norm; the tied LM head.
//   train_step: the same forward with weights that require grad, at::cross_entropy_loss, loss.backward()
//   (gradients set to None before each step, as optimizer.zero_grad() does).
//   decode: the new token's k and v written into the cache at position seq, SDPA without the causal flag
//   (PyTorch's is_causal is aligned top-left; a single query sees the whole cache).
// The oracle (fp64 outputs) runs the same code in fp32 on fp32 copies of the same bf16 weights.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/version.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/model/decoder.hpp"
#include "src/reference/torch_ops.hpp"
#include "src/reference/torch_rope.hpp"

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#define OPBENCH_HAVE_SDPA_GQA 1
#else
#define OPBENCH_HAVE_SDPA_GQA 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define OPBENCH_MODEL_AT_RMS_NORM 1
#else
#define OPBENCH_MODEL_AT_RMS_NORM 0
#endif

namespace opbench::reference {

namespace {

namespace fm = fw::model;

struct TLayer {
  at::Tensor wq, bq, wk, bk, wv, bv, wo, w_gate_up, w_down, ln1, ln2;
};
struct TModel {
  at::Tensor embed, norm_f;
  std::vector<TLayer> layers;
  std::vector<at::Tensor> all;  // every parameter, for zeroing gradients
};

// The shared weights in dtype t (bf16: views; else copies), leaves requiring grad when `grad`. Made once per
// (model, dtype, grad) and kept for the run (fp32 copies of Qwen2-0.5B: 2 GB).
const TModel& torch_model(const ModelConfig& c, at::ScalarType t, bool grad) {
  static std::map<std::tuple<std::string, int, bool>, TModel> cache;
  const auto key = std::make_tuple(c.name, int(t), grad);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const fm::Weights& w = fm::shared_weights(c);
  TModel m;
  auto wrap_w = [&](void* p, std::vector<int64_t> shape) {
    if (!p) return at::Tensor();
    at::Tensor x = at::from_blob(p, at::IntArrayRef(shape), at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA));
    if (t != at::kBFloat16) x = x.to(t);
    if (grad) x.requires_grad_(true);
    m.all.push_back(x);
    return x;
  };
  const int64_t H = c.hidden, Q = c.heads_q * c.head_dim, KV = c.heads_kv * c.head_dim, I = c.intermediate;
  m.embed = wrap_w(w.embed, {c.vocab, H});
  m.norm_f = wrap_w(w.norm_f, {H});
  for (const fm::LayerWeights& l : w.layers) {
    TLayer tl;
    tl.wq = wrap_w(l.wq, {Q, H});
    tl.bq = wrap_w(l.bq, {Q});
    tl.wk = wrap_w(l.wk, {KV, H});
    tl.bk = wrap_w(l.bk, {KV});
    tl.wv = wrap_w(l.wv, {KV, H});
    tl.bv = wrap_w(l.bv, {KV});
    tl.wo = wrap_w(l.wo, {H, Q});
    tl.w_gate_up = wrap_w(l.w_gate_up, {2 * I, H});
    tl.w_down = wrap_w(l.w_down, {H, I});
    tl.ln1 = wrap_w(l.ln1, {H});
    tl.ln2 = wrap_w(l.ln2, {H});
    m.layers.push_back(tl);
  }
  return cache.emplace(key, std::move(m)).first->second;
}

// The dtype a reference computes in: the outputs' (bf16), or fp32 for the oracle (fp64 outputs).
at::ScalarType compute_type(const TorchArgs& a) {
  const at::ScalarType t = a.out[0].scalar_type();
  return t == at::kDouble ? at::kFloat : t;
}

at::Tensor rms(const at::Tensor& x, const at::Tensor& w, double eps) {
#if OPBENCH_MODEL_AT_RMS_NORM
  const std::vector<int64_t> normalized{x.size(-1)};
  return at::rms_norm(x, at::IntArrayRef(normalized), w, eps);
#else
  const at::Tensor xf = x.to(at::kFloat);
  return (xf * at::rsqrt(xf.pow(2).mean(-1, true) + eps)).to(x.scalar_type()) * w;
#endif
}

// cos and sin [n, head_dim] of positions pos0 .. pos0 + n - 1, made once per forward as HF's rotary_emb.
CosSin position_tables(const ModelConfig& c, int64_t pos0, int64_t n, at::ScalarType t) {
  const at::Tensor pos = at::arange(pos0, pos0 + n, at::TensorOptions().device(at::kCUDA).dtype(at::kLong));
  return rope_cos_sin(pos.to(at::kFloat), c.head_dim, c.rope_theta, t);
}

// x [B, S, heads, d] with tables [S, d].
at::Tensor apply_rope(const at::Tensor& x, const CosSin& r) {
  return x * r.cos.unsqueeze(0).unsqueeze(2) + rotate_half(x) * r.sin.unsqueeze(0).unsqueeze(2);
}

// q [B, Sq, hq, d], k and v [B, Skv, hkv, d] -> [B, Sq, hq, d].
at::Tensor attention(const ModelConfig& c, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
#if OPBENCH_HAVE_SDPA_GQA
  const double scale = 1.0 / std::sqrt(double(c.head_dim));
  return at::scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), {}, 0.0, causal,
                                          scale, /*enable_gqa=*/true)
      .transpose(1, 2);
#else
  (void)c, (void)q, (void)k, (void)v, (void)causal;
  throw std::runtime_error("the model's LibTorch reference needs LibTorch >= 2.5 (scaled_dot_product_attention with "
                           "enable_gqa); this one is " TORCH_VERSION);
#endif
}

struct TBufs {
  at::Tensor h, q_lin, k_lin, v, q, k, o, attn_out, x_mid, h2, gate_up, a, mlp_out, y;
};

// The tensors of family f, in fw::model::family_output_shapes' order, as [T, features].
std::vector<at::Tensor> family_tensors(const TBufs& b, LayerFamily f, int64_t T) {
  switch (f) {
    case LayerFamily::norms: return {b.h, b.h2};
    case LayerFamily::attention_proj: return {b.q_lin, b.k_lin, b.v, b.attn_out};
    case LayerFamily::rope: return {b.q.reshape({T, -1}), b.k.reshape({T, -1})};
    case LayerFamily::attention: return {b.o};
    case LayerFamily::mlp_matmuls: return {b.gate_up, b.mlp_out};
    case LayerFamily::rest: return {b.x_mid, b.a, b.y};
  }
  return {};
}

struct DecodeCache {
  at::Tensor k, v;  // [B, seq + 1, hkv, d] of this layer
  int64_t pos;
};

// One layer's forward, x [T, H] -> b.y; only the steps of `only` when given (on the tensors a full pass left).
void layer_forward(const ModelConfig& c, const TLayer& w, const at::Tensor& x, TBufs& b, int64_t B, int64_t S,
                   const CosSin& rt, const DecodeCache* kv, const std::optional<LayerFamily>& only) {
  const int64_t I = c.intermediate, Sq = kv ? 1 : S, T = B * Sq;
  auto in = [&](LayerFamily f) { return !only || *only == f; };
  if (in(LayerFamily::norms)) b.h = rms(x, w.ln1, c.rms_eps);
  if (in(LayerFamily::attention_proj)) {
    b.q_lin = at::linear(b.h, w.wq, w.bq);
    b.k_lin = at::linear(b.h, w.wk, w.bk);
    b.v = at::linear(b.h, w.wv, w.bv);
  }
  if (in(LayerFamily::rope)) {
    b.q = apply_rope(b.q_lin.view({B, Sq, c.heads_q, c.head_dim}), rt);
    b.k = apply_rope(b.k_lin.view({B, Sq, c.heads_kv, c.head_dim}), rt);
  }
  if (in(LayerFamily::attention)) {
    const at::Tensor v4 = b.v.view({B, Sq, c.heads_kv, c.head_dim});
    if (kv) {
      kv->k.select(1, kv->pos).copy_(b.k.select(1, 0));
      kv->v.select(1, kv->pos).copy_(v4.select(1, 0));
      b.o = attention(c, b.q, kv->k, kv->v, false).reshape({T, -1});
    } else {
      b.o = attention(c, b.q, b.k, v4, true).reshape({T, -1});
    }
  }
  if (in(LayerFamily::attention_proj)) b.attn_out = at::linear(b.o, w.wo);
  if (in(LayerFamily::rest)) b.x_mid = x + b.attn_out;
  if (in(LayerFamily::norms)) b.h2 = rms(b.x_mid, w.ln2, c.rms_eps);
  if (in(LayerFamily::mlp_matmuls)) b.gate_up = at::linear(b.h2, w.w_gate_up);
  if (in(LayerFamily::rest)) b.a = at::silu(b.gate_up.narrow(-1, 0, I)) * b.gate_up.narrow(-1, I, I);
  if (in(LayerFamily::mlp_matmuls)) b.mlp_out = at::linear(b.a, w.w_down);
  if (in(LayerFamily::rest)) b.y = b.x_mid + b.mlp_out;
}

// tokens [B, S] -> logits [B * S, vocab], building the autograd graph when the model's weights require grad.
at::Tensor forward(const ModelConfig& c, const TModel& m, const at::Tensor& tokens, int64_t B, int64_t S,
                   at::ScalarType t) {
  const CosSin rt = position_tables(c, 0, S, t);
  at::Tensor x = at::embedding(m.embed, tokens.reshape({-1}));
  TBufs b;
  for (const TLayer& l : m.layers) {
    layer_forward(c, l, x, b, B, S, rt, nullptr, std::nullopt);
    x = b.y;
  }
  return at::linear(rms(x, m.norm_f, c.rms_eps), m.embed);
}

void add_model_refs(TorchRegistry& r, const ModelConfig& c) {
  r.add(model_run_op(c.name, ModelRun::prefill), [c](const TorchArgs& a) {
    c10::NoGradGuard no_grad;  // inference, as torch.no_grad()
    const at::ScalarType t = compute_type(a);
    const at::Tensor& tokens = a.in[0];
    return std::vector<at::Tensor>{forward(c, torch_model(c, t, false), tokens, tokens.size(0), tokens.size(1), t)};
  });
  r.add(model_run_op(c.name, ModelRun::train_step), [c](const TorchArgs& a) {
    const at::ScalarType t = compute_type(a);
    const TModel& m = torch_model(c, t, true);
    const at::Tensor& tokens = a.in[0];
    const at::Tensor logits = forward(c, m, tokens, tokens.size(0), tokens.size(1), t);
    const at::Tensor loss = at::cross_entropy_loss(logits, a.in[1].reshape({-1}));
    loss.backward();
    std::vector<at::Tensor> out{loss.detach().reshape({1}), m.layers.front().wq.grad(), m.layers.back().w_down.grad(),
                                m.norm_f.grad()};
    // optimizer.zero_grad(set_to_none=True) after the step: the next step allocates its gradients anew, so
    // each call's peak memory counts them (the compared ones live on in `out` until the harness copies them).
    for (const at::Tensor& p : m.all) p.mutable_grad() = at::Tensor();
    return out;
  });
  r.add(model_run_op(c.name, ModelRun::decode), [c](const TorchArgs& a) {
    c10::NoGradGuard no_grad;
    const at::ScalarType t = compute_type(a);
    const TModel& m = torch_model(c, t, false);
    const at::Tensor& tokens = a.in[0];  // [B]
    const int64_t B = tokens.size(0), S = int64_t(a.params.get("seq"));
    at::Tensor cache = a.in[1];          // [layers, 2, B, S + 1, kv]
    if (cache.scalar_type() != t) cache = cache.to(t);  // the oracle's fp32 copy
    // SDPA's flash kernel reads 16-byte vectors from the cache's base without checking its alignment (the
    // GPU tests shift every operand by one element: a misaligned read, compute-sanitizer in
    // flash_fwd_kernel): such a view is copied first, as no real cache is ever placed off 16 bytes.
    if (reinterpret_cast<std::uintptr_t>(cache.data_ptr()) % 16 != 0) cache = cache.clone();
    const CosSin rt = position_tables(c, S, 1, t);
    at::Tensor x = at::embedding(m.embed, tokens);
    TBufs b;
    for (int64_t l = 0; l < c.layers; ++l) {
      DecodeCache kv{cache[l][0].view({B, S + 1, c.heads_kv, c.head_dim}),
                     cache[l][1].view({B, S + 1, c.heads_kv, c.head_dim}), S};
      layer_forward(c, m.layers[std::size_t(l)], x, b, B, S, rt, &kv, std::nullopt);
      x = b.y;
    }
    return std::vector<at::Tensor>{at::linear(rms(x, m.norm_f, c.rms_eps), m.embed)};
  });
  for (LayerFamily f : layer_families()) {
    r.add(layer_family_op(c.name, f), [c, f](const TorchArgs& a) {
      c10::NoGradGuard no_grad;
      const at::ScalarType t = compute_type(a);
      const int64_t B = int64_t(a.params.get("batch")), S = int64_t(a.params.get("seq")), T = B * S;
      struct State {
        at::Tensor x;
        CosSin rt;
        TBufs b;
      };
      if (!a.state) {
        // The first call: a full pass leaves every family's inputs (the tables are part of rope's inputs).
        auto st = std::make_shared<State>();
        st->x = a.in[0].to(t);
        st->rt = position_tables(c, 0, S, t);
        layer_forward(c, torch_model(c, t, false).layers.front(), st->x, st->b, B, S, st->rt, nullptr, std::nullopt);
        a.state = st;
      } else {
        State& st = *std::static_pointer_cast<State>(a.state);
        layer_forward(c, torch_model(c, t, false).layers.front(), st.x, st.b, B, S, st.rt, nullptr, f);
      }
      return family_tensors(std::static_pointer_cast<State>(a.state)->b, f, T);
    });
  }
}

}  // namespace

static void register_torch_model(TorchRegistry& r) {
  for (const ModelConfig& c : known_models()) add_model_refs(r, c);
}

OPBENCH_REGISTER_TORCH(register_torch_model);

}  // namespace opbench::reference
