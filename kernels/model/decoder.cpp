// The framework's decoder: host code that sequences the framework's kernels (decoder.hpp). Memory comes from
// one caller-given workspace, carved by the same code that sizes it (a Carver with no base only counts), so
// the sizes and the layout can never disagree.
#include "kernels/model/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/attention/attention.hpp"
#include "kernels/common/check.hpp"
#include "kernels/elementwise/elementwise.hpp"
#include "kernels/layout/layout.hpp"
#include "kernels/loss/loss.hpp"
#include "kernels/matmul/matmul.hpp"
#include "kernels/model/model_kernels.hpp"
#include "kernels/norm/norm.hpp"
#include "kernels/reduction/reduction.hpp"
#include "kernels/transformer/transformer.hpp"

namespace fw::model {

namespace {

// Hands out 256-byte aligned pieces of a workspace; with no base it only counts (the sizing pass).
class Carver {
 public:
  explicit Carver(void* base, std::size_t limit = 0) : base_(static_cast<char*>(base)), limit_(limit) {}
  void* take(std::size_t bytes) {
    off_ = (off_ + 255) / 256 * 256;
    void* p = base_ ? base_ + off_ : nullptr;
    off_ += bytes;
    if (base_ && off_ > limit_)
      throw std::invalid_argument("decoder workspace too small: " + std::to_string(limit_) + " bytes given, " +
                                  "more needed (use the *_workspace_bytes functions)");
    return p;
  }
  void* take(int64_t elems, DType dt) { return take(std::size_t(elems) * opbench::dtype_size(dt)); }
  std::size_t used() const { return off_; }

 private:
  char* base_;
  std::size_t limit_;
  std::size_t off_ = 0;
};

int64_t q_width(const ModelConfig& c) { return c.heads_q * c.head_dim; }
int64_t kv_width(const ModelConfig& c) { return c.heads_kv * c.head_dim; }

const char* at(const void* p, int64_t elems, DType dt) {
  return static_cast<const char*>(p) + elems * int64_t(opbench::dtype_size(dt));
}
char* at(void* p, int64_t elems, DType dt) { return static_cast<char*>(p) + elems * int64_t(opbench::dtype_size(dt)); }

// y[T, N] = x[T, K] W[N, K]^T (+ b). Queued as a programmatic dependent of the kernel before it (GemmLaunch::
// dependent): after another linear (q -> k -> v, gate_up -> down when the layer families run alone) its CTAs are
// set up while that GEMM finishes; the forward's other kernels before a linear (rms_norm, attention, silu_gate)
// never allow dependents early, so there it runs as an ordinary launch.
void linear(DType dt, const void* x, const void* w, const void* b, void* y, int64_t T, int64_t N, int64_t K,
            cudaStream_t s) {
  gemm(dt, GemmLayout::nk, x, w, b, y, 1, T, N, K, false, s, GemmLaunch::dependent);
}
// dx[T, K] = dy[T, N] W[N, K]
void linear_dx(DType dt, const void* dy, const void* w, void* dx, int64_t T, int64_t N, int64_t K, cudaStream_t s) {
  gemm(dt, GemmLayout::kn, dy, w, nullptr, dx, 1, T, K, N, false, s);
}

// dW[N, K] = dy[T, N]^T x[T, K]. The GEMM takes A untransposed, so one operand is transposed first: dy
// (T x N elements moved) or x, then the [K, N] product back (T x K + K x N): the cheaper of the two.
std::size_t linear_dw_scratch_elems(int64_t T, int64_t N, int64_t K) {
  return std::size_t(T * N <= T * K + K * N ? T * N : T * K + K * N);
}
void linear_dw(DType dt, const void* dy, const void* x, void* dw, int64_t T, int64_t N, int64_t K, void* scratch,
               cudaStream_t s) {
  if (T * N <= T * K + K * N) {
    layout::transpose_last2(dy, scratch, 1, T, N, dt, s);                            // dy^T [N, T]
    gemm(dt, GemmLayout::kn, scratch, x, nullptr, dw, 1, N, K, T, false, s);  // [N, T] @ [T, K]
  } else {
    void* xt = scratch;                       // x^T [K, T]
    void* dwt = at(scratch, K * T, dt);       // dW^T [K, N]
    layout::transpose_last2(x, xt, 1, T, K, dt, s);
    gemm(dt, GemmLayout::kn, xt, dy, nullptr, dwt, 1, K, N, T, false, s);
    layout::transpose_last2(dwt, dw, 1, K, N, dt, s);
  }
}

void add(DType dt, const void* a, const void* b, void* y, int64_t rows, int64_t cols, cudaStream_t s) {
  binary(BinaryOp::add, dt, a, b, y, rows, cols, Broadcast::none, s);
}

AttentionShape attention_shape(const ModelConfig& c, int64_t batch, int64_t seq_q, int64_t seq_kv) {
  AttentionShape a;
  a.batch = batch, a.seq_q = seq_q, a.seq_kv = seq_kv, a.heads_q = c.heads_q, a.heads_kv = c.heads_kv;
  a.head_dim = c.head_dim, a.scale = float(1.0 / std::sqrt(double(c.head_dim))), a.causal = true;
  return a;
}

// One layer's buffers. For a decode step (kv_cache set) k and v go into the cache's position `pos`.
struct LayerBufs {
  void *h, *q_lin, *k_lin, *v, *q, *k, *o, *attn_out, *x_mid, *h2, *gate_up, *a, *mlp_out, *y;
  float* lse;
};

// Where a family's buffers sit in LayerBufs, in family_output_shapes' order.
std::vector<void**> family_slots(LayerBufs& b, LayerFamily f) {
  switch (f) {
    case LayerFamily::norms: return {&b.h, &b.h2};
    case LayerFamily::attention_proj: return {&b.q_lin, &b.k_lin, &b.v, &b.attn_out};
    case LayerFamily::rope: return {&b.q, &b.k};
    case LayerFamily::attention: return {&b.o};
    case LayerFamily::mlp_matmuls: return {&b.gate_up, &b.mlp_out};
    case LayerFamily::rest: return {&b.x_mid, &b.a, &b.y};
  }
  return {};
}

// Takes every buffer of one layer for T tokens from `cv`.
LayerBufs carve_layer(const ModelConfig& c, DType dt, int64_t batch, int64_t seq, Carver& cv) {
  const int64_t T = batch * seq, H = c.hidden;
  LayerBufs b{};
  b.h = cv.take(T * H, dt);
  b.q_lin = cv.take(T * q_width(c), dt);
  b.k_lin = cv.take(T * kv_width(c), dt);
  b.v = cv.take(T * kv_width(c), dt);
  b.q = cv.take(T * q_width(c), dt);
  b.k = cv.take(T * kv_width(c), dt);
  b.o = cv.take(T * q_width(c), dt);
  b.attn_out = cv.take(T * H, dt);
  b.x_mid = cv.take(T * H, dt);
  b.h2 = cv.take(T * H, dt);
  b.gate_up = cv.take(T * 2 * c.intermediate, dt);
  b.a = cv.take(T * c.intermediate, dt);
  b.mlp_out = cv.take(T * H, dt);
  b.y = cv.take(T * H, dt);
  b.lse = static_cast<float*>(cv.take(std::size_t(batch * c.heads_q * seq) * sizeof(float)));
  return b;
}

// Scratch the forward's steps need (rms_norm's workspace), shared by every layer.
std::size_t forward_scratch_bytes(const ModelConfig& c, DType dt, int64_t T) {
  return norm_workspace_bytes(T, c.hidden, dt);
}

struct DecodeKv {
  void* k_cache = nullptr;  // [batch, seq + 1, kv] of this layer
  void* v_cache = nullptr;
  int64_t pos = 0;          // the new token's position (= seq)
};

// One layer's forward: x -> b.y, the steps of `only` (all when empty). Prefill: T = batch * seq tokens,
// positions r % seq. Decode (kv set): T = batch tokens at position kv->pos, attending to the cache.
void layer_forward(const ModelConfig& c, const LayerWeights& w, DType dt, const void* x, const LayerBufs& b,
                   int64_t batch, int64_t seq, const DecodeKv* kv, const std::optional<LayerFamily>& only,
                   void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  const int64_t T = kv ? batch : batch * seq, H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate;
  const float eps = float(c.rms_eps);
  auto in = [&](LayerFamily f) { return !only || *only == f; };
  if (in(LayerFamily::norms)) rms_norm_forward(dt, x, w.ln1, b.h, T, H, eps, scratch, scratch_bytes, s);
  if (in(LayerFamily::attention_proj)) {
    linear(dt, b.h, w.wq, w.bq, b.q_lin, T, Q, H, s);
    linear(dt, b.h, w.wk, w.bk, b.k_lin, T, KV, H, s);
    linear(dt, b.h, w.wv, w.bv, b.v, T, KV, H, s);
  }
  if (in(LayerFamily::rope)) {
    const int64_t seq_len = kv ? 1 : seq, pos0 = kv ? kv->pos : 0;
    rope_forward(dt, b.q_lin, b.q, T, c.heads_q, c.head_dim, seq_len, pos0, c.rope_theta, s);
    rope_forward(dt, b.k_lin, b.k, T, c.heads_kv, c.head_dim, seq_len, pos0, c.rope_theta, s);
  }
  if (in(LayerFamily::attention)) {
    if (kv) {
      // The new token's k and v into position pos of each sequence's cache, then attend to pos + 1 keys.
      const std::size_t row = std::size_t(KV) * opbench::dtype_size(dt);
      const std::size_t pitch = std::size_t(kv->pos + 1) * row;
      FW_CUDA_CHECK(cudaMemcpy2DAsync(at(kv->k_cache, kv->pos * KV, dt), pitch, b.k, row, row, std::size_t(batch),
                                      cudaMemcpyDeviceToDevice, s));
      FW_CUDA_CHECK(cudaMemcpy2DAsync(at(kv->v_cache, kv->pos * KV, dt), pitch, b.v, row, row, std::size_t(batch),
                                      cudaMemcpyDeviceToDevice, s));
      attention_forward(dt, attention_shape(c, batch, 1, kv->pos + 1), b.q, kv->k_cache, kv->v_cache, b.o, b.lse, s);
    } else {
      attention_forward(dt, attention_shape(c, batch, seq, seq), b.q, b.k, b.v, b.o, b.lse, s);
    }
  }
  if (in(LayerFamily::attention_proj)) linear(dt, b.o, w.wo, nullptr, b.attn_out, T, H, Q, s);
  if (in(LayerFamily::rest)) add(dt, x, b.attn_out, b.x_mid, T, H, s);
  if (in(LayerFamily::norms)) rms_norm_forward(dt, b.x_mid, w.ln2, b.h2, T, H, eps, scratch, scratch_bytes, s);
  if (in(LayerFamily::mlp_matmuls)) linear(dt, b.h2, w.w_gate_up, nullptr, b.gate_up, T, 2 * I, H, s);
  if (in(LayerFamily::rest)) silu_gate_forward(dt, b.gate_up, at(b.gate_up, I, dt), 2 * I, b.a, T, I, s);
  if (in(LayerFamily::mlp_matmuls)) linear(dt, b.a, w.w_down, nullptr, b.mlp_out, T, H, I, s);
  if (in(LayerFamily::rest)) add(dt, b.x_mid, b.mlp_out, b.y, T, H, s);
}

// The LM head: logits [T, vocab] = rms_norm(x, norm_f) E^T.
void lm_head(const ModelConfig& c, const Weights& w, const void* x, void* xf, void* logits, int64_t T, void* scratch,
             std::size_t scratch_bytes, cudaStream_t s) {
  rms_norm_forward(w.dtype, x, w.norm_f, xf, T, c.hidden, float(c.rms_eps), scratch, scratch_bytes, s);
  linear(w.dtype, xf, w.embed, nullptr, logits, T, c.vocab, c.hidden, s);
}

void require_dims(int64_t batch, int64_t seq) {
  if (batch <= 0 || seq <= 0) throw std::invalid_argument("decoder: batch and seq must be positive");
}

// Prefill's memory: two layers' buffers (input and output alternate: layer l reads the previous y), the
// embedding output, the final norm's output and scratch. `logits` is the caller's.
struct PrefillPlan {
  void *x0, *xf, *scratch;
  LayerBufs l[2];
  std::size_t scratch_bytes;
};
PrefillPlan plan_prefill(const ModelConfig& c, DType dt, int64_t batch, int64_t seq, Carver& cv) {
  const int64_t T = batch * seq;
  PrefillPlan p{};
  p.x0 = cv.take(T * c.hidden, dt);
  p.xf = cv.take(T * c.hidden, dt);
  p.l[0] = carve_layer(c, dt, batch, seq, cv);
  p.l[1] = carve_layer(c, dt, batch, seq, cv);
  p.scratch_bytes = forward_scratch_bytes(c, dt, T);
  p.scratch = cv.take(p.scratch_bytes);
  return p;
}

}  // namespace

// ---- weights ----

namespace {

Weights carve_weights(const ModelConfig& c, DType dt, Carver& cv) {
  Weights w;
  w.dtype = dt;
  const int64_t H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate;
  w.embed = cv.take(c.vocab * H, dt);
  w.norm_f = cv.take(H, dt);
  w.layers.resize(std::size_t(c.layers));
  for (LayerWeights& l : w.layers) {
    l.wq = cv.take(Q * H, dt);
    l.bq = c.qkv_bias ? cv.take(Q, dt) : nullptr;
    l.wk = cv.take(KV * H, dt);
    l.bk = c.qkv_bias ? cv.take(KV, dt) : nullptr;
    l.wv = cv.take(KV * H, dt);
    l.bv = c.qkv_bias ? cv.take(KV, dt) : nullptr;
    l.wo = cv.take(H * Q, dt);
    l.w_gate_up = cv.take(2 * I * H, dt);
    l.w_down = cv.take(H * I, dt);
    l.ln1 = cv.take(H, dt);
    l.ln2 = cv.take(H, dt);
  }
  return w;
}

}  // namespace

std::size_t weights_bytes(const ModelConfig& c, DType dt) {
  Carver cv(nullptr);
  carve_weights(c, dt, cv);
  return cv.used();
}

Weights layout_weights(const ModelConfig& c, DType dt, void* base) {
  Carver cv(base, weights_bytes(c, dt));
  return carve_weights(c, dt, cv);
}

std::vector<NamedTensor> named_tensors(const ModelConfig& c, const Weights& w) {
  const int64_t H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate;
  std::vector<NamedTensor> v = {{"embed", w.embed, {c.vocab, H}}, {"norm_f", w.norm_f, {H}}};
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::string p = "layers." + std::to_string(i) + ".";
    v.push_back({p + "wq", l.wq, {Q, H}});
    if (c.qkv_bias) v.push_back({p + "bq", l.bq, {Q}});
    v.push_back({p + "wk", l.wk, {KV, H}});
    if (c.qkv_bias) v.push_back({p + "bk", l.bk, {KV}});
    v.push_back({p + "wv", l.wv, {KV, H}});
    if (c.qkv_bias) v.push_back({p + "bv", l.bv, {KV}});
    v.push_back({p + "wo", l.wo, {H, Q}});
    v.push_back({p + "w_gate_up", l.w_gate_up, {2 * I, H}});
    v.push_back({p + "w_down", l.w_down, {H, I}});
    v.push_back({p + "ln1", l.ln1, {H}});
    v.push_back({p + "ln2", l.ln2, {H}});
  }
  return v;
}

void init_weights(const ModelConfig& c, const Weights& w, uint64_t seed, cudaStream_t s) {
  // Uniform on [-a, a] has standard deviation a / sqrt(3): a = 0.02 sqrt(3).
  const float a = float(0.02 * std::sqrt(3.0));
  uint64_t k = 0;
  for (const NamedTensor& t : named_tensors(c, w)) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    const bool norm = t.name == "norm_f" || t.name.size() > 4 && (t.name.compare(t.name.size() - 4, 4, ".ln1") == 0 ||
                                                                   t.name.compare(t.name.size() - 4, 4, ".ln2") == 0);
    if (norm)
      fill_uniform(w.dtype, t.data, n, 1.0f, 1.0f, 0, s);
    else
      fill_uniform(w.dtype, t.data, n, -a, a, seed * 1000003ull + k, s);
    ++k;
  }
}

const Weights& shared_weights(const ModelConfig& c) {
  // One model at a time: asking for another replaces it (and frees the first).
  static std::string name;
  static void* base = nullptr;
  static Weights w;
  if (base && name == c.name) return w;
  if (base) FW_CUDA_CHECK(cudaFree(base));
  base = nullptr;
  const std::size_t bytes = weights_bytes(c, DType::bf16);
  FW_CUDA_CHECK(cudaMalloc(&base, bytes));
  w = layout_weights(c, DType::bf16, base);
  init_weights(c, w, 20261124, nullptr);
  FW_CUDA_CHECK(cudaDeviceSynchronize());
  name = c.name;
  return w;
}

// ---- prefill ----

std::size_t prefill_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t seq) {
  Carver cv(nullptr);
  plan_prefill(c, DType::bf16, batch, seq, cv);
  return cv.used();
}

void prefill(const ModelConfig& c, const Weights& w, const int64_t* tokens, int64_t batch, int64_t seq, void* logits,
             void* workspace, std::size_t workspace_bytes, cudaStream_t s) {
  require_dims(batch, seq);
  const DType dt = w.dtype;
  Carver cv(workspace, workspace_bytes);
  const PrefillPlan p = plan_prefill(c, dt, batch, seq, cv);
  const int64_t T = batch * seq;
  layout::gather_rows(w.embed, tokens, p.x0, c.vocab, T, c.hidden, dt, s);
  const void* x = p.x0;
  for (int64_t l = 0; l < c.layers; ++l) {
    const LayerBufs& b = p.l[l % 2];
    layer_forward(c, w.layers[std::size_t(l)], dt, x, b, batch, seq, nullptr, std::nullopt, p.scratch,
                  p.scratch_bytes, s);
    x = b.y;
  }
  lm_head(c, w, x, p.xf, logits, T, p.scratch, p.scratch_bytes, s);
}

// ---- decode ----

namespace {
struct DecodePlan {
  void *x0, *xf, *scratch;
  LayerBufs l[2];
  std::size_t scratch_bytes;
};
DecodePlan plan_decode(const ModelConfig& c, DType dt, int64_t batch, Carver& cv) {
  DecodePlan p{};
  p.x0 = cv.take(batch * c.hidden, dt);
  p.xf = cv.take(batch * c.hidden, dt);
  p.l[0] = carve_layer(c, dt, batch, 1, cv);
  p.l[1] = carve_layer(c, dt, batch, 1, cv);
  p.scratch_bytes = forward_scratch_bytes(c, dt, batch);
  p.scratch = cv.take(p.scratch_bytes);
  return p;
}
}  // namespace

std::size_t decode_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t) {
  Carver cv(nullptr);
  plan_decode(c, DType::bf16, batch, cv);
  return cv.used();
}

void decode(const ModelConfig& c, const Weights& w, const int64_t* tokens, void* kv_cache, int64_t batch, int64_t seq,
            void* logits, void* workspace, std::size_t workspace_bytes, cudaStream_t s) {
  require_dims(batch, seq);
  const DType dt = w.dtype;
  Carver cv(workspace, workspace_bytes);
  const DecodePlan p = plan_decode(c, dt, batch, cv);
  layout::gather_rows(w.embed, tokens, p.x0, c.vocab, batch, c.hidden, dt, s);
  const int64_t per_cache = batch * (seq + 1) * kv_width(c);  // one k or v cache of one layer
  const void* x = p.x0;
  for (int64_t l = 0; l < c.layers; ++l) {
    DecodeKv kv;
    kv.k_cache = at(kv_cache, (2 * l) * per_cache, dt);
    kv.v_cache = at(kv_cache, (2 * l + 1) * per_cache, dt);
    kv.pos = seq;
    const LayerBufs& b = p.l[l % 2];
    layer_forward(c, w.layers[std::size_t(l)], dt, x, b, batch, seq, &kv, std::nullopt, p.scratch, p.scratch_bytes,
                  s);
    x = b.y;
  }
  lm_head(c, w, x, p.xf, logits, batch, p.scratch, p.scratch_bytes, s);
}

// ---- training step ----

namespace {

// Every layer's buffers are kept for the backward; the gradients of one layer's activations reuse one set.
struct TrainPlan {
  void *x0, *xf, *logits, *loss_ws, *scratch;
  std::vector<LayerBufs> l;
  void *dx, *dx2, *d_h, *d_a, *d_gate_up, *dq, *dk, *dv, *d_o, *d_tmp;
  std::size_t loss_ws_bytes, scratch_bytes;
};

TrainPlan plan_train(const ModelConfig& c, DType dt, int64_t batch, int64_t seq, Carver& cv) {
  const int64_t T = batch * seq, H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate;
  TrainPlan p{};
  p.x0 = cv.take(T * H, dt);
  p.xf = cv.take(T * H, dt);
  p.logits = cv.take(T * c.vocab, dt);
  p.loss_ws_bytes = cross_entropy_workspace_bytes(T, c.vocab, dt);
  p.loss_ws = cv.take(p.loss_ws_bytes);
  for (int64_t l = 0; l < c.layers; ++l) p.l.push_back(carve_layer(c, dt, batch, seq, cv));
  p.dx = cv.take(T * H, dt);
  p.dx2 = cv.take(T * H, dt);
  p.d_h = cv.take(T * H, dt);
  p.d_tmp = cv.take(T * H, dt);
  p.d_a = cv.take(T * I, dt);
  p.d_gate_up = cv.take(T * 2 * I, dt);
  p.dq = cv.take(T * Q, dt);
  p.dk = cv.take(T * KV, dt);
  p.dv = cv.take(T * KV, dt);
  p.d_o = cv.take(T * Q, dt);
  // Scratch: the largest of what the steps need one at a time.
  std::size_t sc = forward_scratch_bytes(c, dt, T);
  sc = std::max(sc, rms_norm_backward_workspace_bytes(T, H));
  sc = std::max(sc, attention_backward_workspace_bytes(attention_shape(c, batch, seq, seq)));
  for (int64_t n : {Q, KV}) sc = std::max(sc, reduce_first_workspace_bytes(T, n, dt));
  for (auto nk : {std::pair<int64_t, int64_t>{Q, H}, {KV, H}, {H, Q}, {2 * I, H}, {H, I}, {c.vocab, H}})
    sc = std::max(sc, linear_dw_scratch_elems(T, nk.first, nk.second) * opbench::dtype_size(dt));
  p.scratch_bytes = sc;
  p.scratch = cv.take(sc);
  return p;
}

}  // namespace

std::size_t train_step_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t seq) {
  Carver cv(nullptr);
  plan_train(c, DType::bf16, batch, seq, cv);
  return cv.used();
}

void train_step(const ModelConfig& c, const Weights& w, const int64_t* tokens, const int64_t* targets, int64_t batch,
                int64_t seq, void* loss, const Weights& g, void* workspace, std::size_t workspace_bytes,
                cudaStream_t s) {
  require_dims(batch, seq);
  const DType dt = w.dtype;
  FW_REQUIRE(g.dtype == dt && g.layers.size() == w.layers.size(), "train_step: gradients laid out as the weights");
  Carver cv(workspace, workspace_bytes);
  const TrainPlan p = plan_train(c, dt, batch, seq, cv);
  const int64_t T = batch * seq, H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate, V = c.vocab;
  const float eps = float(c.rms_eps);
  void* sc = p.scratch;
  const std::size_t scb = p.scratch_bytes;

  // Forward, keeping every layer's buffers.
  layout::gather_rows(w.embed, tokens, p.x0, V, T, H, dt, s);
  const void* x = p.x0;
  for (int64_t l = 0; l < c.layers; ++l) {
    layer_forward(c, w.layers[std::size_t(l)], dt, x, p.l[std::size_t(l)], batch, seq, nullptr, std::nullopt, sc, scb,
                  s);
    x = p.l[std::size_t(l)].y;
  }
  const void* x_last = x;
  lm_head(c, w, x_last, p.xf, p.logits, T, sc, scb, s);
  cross_entropy(dt, p.logits, targets, loss, T, V, p.loss_ws, p.loss_ws_bytes, s);

  // Backward. The loss's gradient over the logits, in place (they are not needed again).
  cross_entropy_backward(dt, p.logits, targets, p.logits, T, V, 1.0f, s);
  linear_dw(dt, p.logits, p.xf, g.embed, T, V, H, sc, s);  // the LM head's share of the embedding's gradient
  linear_dx(dt, p.logits, w.embed, p.d_h, T, V, H, s);     // d xf
  rms_norm_backward(dt, x_last, w.norm_f, p.d_h, p.dx, g.norm_f, T, H, eps, sc, scb, s);

  for (int64_t l = c.layers - 1; l >= 0; --l) {
    const LayerWeights& lw = w.layers[std::size_t(l)];
    const LayerWeights& lg = g.layers[std::size_t(l)];
    const LayerBufs& b = p.l[std::size_t(l)];
    const void* x_in = l == 0 ? p.x0 : p.l[std::size_t(l - 1)].y;
    // y = x_mid + a Wd^T: dy (p.dx) flows to x_mid and through the MLP.
    linear_dx(dt, p.dx, lw.w_down, p.d_a, T, H, I, s);
    linear_dw(dt, p.dx, b.a, lg.w_down, T, H, I, sc, s);
    silu_gate_backward(dt, p.d_a, b.gate_up, at(b.gate_up, I, dt), 2 * I, p.d_gate_up, at(p.d_gate_up, I, dt), 2 * I,
                       T, I, s);
    linear_dx(dt, p.d_gate_up, lw.w_gate_up, p.d_h, T, 2 * I, H, s);
    linear_dw(dt, p.d_gate_up, b.h2, lg.w_gate_up, T, 2 * I, H, sc, s);
    rms_norm_backward(dt, b.x_mid, lw.ln2, p.d_h, p.d_tmp, lg.ln2, T, H, eps, sc, scb, s);
    add(dt, p.dx, p.d_tmp, p.dx2, T, H, s);  // d x_mid
    // x_mid = x + o Wo^T
    linear_dx(dt, p.dx2, lw.wo, p.d_o, T, H, Q, s);
    linear_dw(dt, p.dx2, b.o, lg.wo, T, H, Q, sc, s);
    attention_backward(dt, attention_shape(c, batch, seq, seq), b.q, b.k, b.v, b.o, p.d_o, b.lse, p.dq, p.dk, p.dv, sc,
                       scb, s);
    rope_backward(dt, p.dq, p.dq, T, c.heads_q, c.head_dim, seq, 0, c.rope_theta, s);
    rope_backward(dt, p.dk, p.dk, T, c.heads_kv, c.head_dim, seq, 0, c.rope_theta, s);
    // h -> q_lin, k_lin, v: the three input gradients summed, the weights' and biases' gradients.
    linear_dx(dt, p.dq, lw.wq, p.d_h, T, Q, H, s);
    linear_dx(dt, p.dk, lw.wk, p.d_tmp, T, KV, H, s);
    add(dt, p.d_h, p.d_tmp, p.d_h, T, H, s);
    linear_dx(dt, p.dv, lw.wv, p.d_tmp, T, KV, H, s);
    add(dt, p.d_h, p.d_tmp, p.d_h, T, H, s);
    linear_dw(dt, p.dq, b.h, lg.wq, T, Q, H, sc, s);
    linear_dw(dt, p.dk, b.h, lg.wk, T, KV, H, sc, s);
    linear_dw(dt, p.dv, b.h, lg.wv, T, KV, H, sc, s);
    if (lg.bq) {
      reduce_first(ReduceKind::sum, dt, p.dq, lg.bq, T, Q, sc, scb, s);
      reduce_first(ReduceKind::sum, dt, p.dk, lg.bk, T, KV, sc, scb, s);
      reduce_first(ReduceKind::sum, dt, p.dv, lg.bv, T, KV, sc, scb, s);
    }
    rms_norm_backward(dt, x_in, lw.ln1, p.d_h, p.d_tmp, lg.ln1, T, H, eps, sc, scb, s);
    add(dt, p.dx2, p.d_tmp, p.dx, T, H, s);  // d x, the previous layer's dy
  }
  // The embedding's own share: each token's row of d x0 added to its row of the gradient.
  embedding_backward(dt, p.dx, tokens, g.embed, T, H, V, s);
}

// ---- one layer, by family ----

std::vector<std::vector<int64_t>> family_output_shapes(const ModelConfig& c, LayerFamily f, int64_t batch,
                                                       int64_t seq) {
  const int64_t T = batch * seq, H = c.hidden, Q = q_width(c), KV = kv_width(c), I = c.intermediate;
  switch (f) {
    case LayerFamily::norms: return {{T, H}, {T, H}};
    case LayerFamily::attention_proj: return {{T, Q}, {T, KV}, {T, KV}, {T, H}};
    case LayerFamily::rope: return {{T, Q}, {T, KV}};
    case LayerFamily::attention: return {{T, Q}};
    case LayerFamily::mlp_matmuls: return {{T, 2 * I}, {T, H}};
    case LayerFamily::rest: return {{T, H}, {T, I}, {T, H}};
  }
  return {};
}

struct LayerRun::State {
  ModelConfig c;
  LayerWeights w;
  DType dt;
  const void* x;
  int64_t batch, seq;
  LayerBufs b;
  void* scratch;
  std::size_t scratch_bytes;
};

std::size_t LayerRun::workspace_bytes(const ModelConfig& c, DType dt, int64_t batch, int64_t seq) {
  Carver cv(nullptr);
  carve_layer(c, dt, batch, seq, cv);
  cv.take(forward_scratch_bytes(c, dt, batch * seq));
  return cv.used();
}

LayerRun::LayerRun(const ModelConfig& c, const LayerWeights& w, DType dt, const void* x, int64_t batch, int64_t seq,
                   void* workspace, std::size_t workspace_bytes)
    : st_(new State{c, w, dt, x, batch, seq, {}, nullptr, 0}) {
  require_dims(batch, seq);
  Carver cv(workspace, workspace_bytes);
  st_->b = carve_layer(c, dt, batch, seq, cv);
  st_->scratch_bytes = forward_scratch_bytes(c, dt, batch * seq);
  st_->scratch = cv.take(st_->scratch_bytes);
}

std::vector<const void*> LayerRun::family_buffers(LayerFamily f) const {
  std::vector<const void*> v;
  for (void** slot : family_slots(st_->b, f)) v.push_back(*slot);
  return v;
}

LayerRun::~LayerRun() { delete st_; }

void LayerRun::run_all(cudaStream_t s) const {
  layer_forward(st_->c, st_->w, st_->dt, st_->x, st_->b, st_->batch, st_->seq, nullptr, std::nullopt, st_->scratch,
                st_->scratch_bytes, s);
}

void LayerRun::run_family(LayerFamily f, cudaStream_t s) const {
  layer_forward(st_->c, st_->w, st_->dt, st_->x, st_->b, st_->batch, st_->seq, nullptr, f, st_->scratch,
                st_->scratch_bytes, s);
}

}  // namespace fw::model
