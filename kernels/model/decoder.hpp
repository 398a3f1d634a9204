// The framework's decoder (Qwen2 / Llama family), built from the framework's own kernels: gather_rows
// (embedding), rms_norm, gemm (linear, with bias for q/k/v), rope, causal GQA flash attention, silu_gate,
// the element-wise add (residuals), cross_entropy, and their backward kernels. Host code only: every
// step is a kernel of kernels/*; nothing here allocates (all memory comes from a caller's workspace, whose
// size *_workspace_bytes gives), so the caller sees its peak memory exactly.
//
// Layouts: activations token-major [batch * seq, features]; weights as HF stores them ([out, in]), with
// gate and up stacked in one [2 * intermediate, hidden] matrix (gate rows first) so that the MLP's first
// GEMM is one launch and silu_gate reads its two halves. The KV cache of a decode step is
// [layers, 2 (k, v), batch, seq + 1, heads_kv * head_dim]: positions 0..seq-1 are the cache, position seq
// is written by the step (the new token's k and v), so one call is repeatable.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/model_info.hpp"

namespace fw::model {

using opbench::DType;
using opbench::LayerFamily;
using opbench::ModelConfig;

struct LayerWeights {
  void *wq = nullptr, *bq = nullptr, *wk = nullptr, *bk = nullptr, *wv = nullptr, *bv = nullptr;
  void *wo = nullptr, *w_gate_up = nullptr, *w_down = nullptr, *ln1 = nullptr, *ln2 = nullptr;
};

// A model's parameters (or their gradients: the same layout) in one dtype.
struct Weights {
  DType dtype = DType::bf16;
  void* embed = nullptr;   // [vocab, hidden], also the LM head (tied)
  void* norm_f = nullptr;  // [hidden]
  std::vector<LayerWeights> layers;
};

// Bytes of one Weights in `dt`, and the pointers of one laid out from `base` (256-byte aligned tensors).
std::size_t weights_bytes(const ModelConfig& c, DType dt);
Weights layout_weights(const ModelConfig& c, DType dt, void* base);

// Fills `w` with seeded random values, the same for a seed on every run and GPU: matrices and biases
// uniform with standard deviation 0.02 (HF's initializer_range), the norms' weights 1.
void init_weights(const ModelConfig& c, const Weights& w, uint64_t seed, cudaStream_t stream);

// The parameters bench_ops times a model on: made once per process (bf16, seed fixed) and shared by every
// implementation. Synchronizes the device the first time.
const Weights& shared_weights(const ModelConfig& c);

// Every tensor of a Weights, for code that walks them all: name ("layers.3.w_down"), pointer, shape.
struct NamedTensor {
  std::string name;
  void* data;
  std::vector<int64_t> shape;
};
std::vector<NamedTensor> named_tensors(const ModelConfig& c, const Weights& w);

// Prefill: logits [batch * seq, vocab] of tokens [batch, seq] (every position).
std::size_t prefill_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t seq);
void prefill(const ModelConfig& c, const Weights& w, const int64_t* tokens, int64_t batch, int64_t seq, void* logits,
             void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// A training step without the optimizer: forward, mean cross-entropy of the logits against targets
// [batch, seq] into loss[0] (the weights' dtype), backward into `grads` (every parameter, embed holding
// both the LM head's and the embedding's gradient).
std::size_t train_step_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t seq);
void train_step(const ModelConfig& c, const Weights& w, const int64_t* tokens, const int64_t* targets, int64_t batch,
                int64_t seq, void* loss, const Weights& grads, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream);

// Decode: one new token per sequence (tokens [batch]) at position seq, against kv_cache (layout above), to
// its logits [batch, vocab].
std::size_t decode_workspace_bytes(const ModelConfig& c, int64_t batch, int64_t seq);
void decode(const ModelConfig& c, const Weights& w, const int64_t* tokens, void* kv_cache, int64_t batch, int64_t seq,
            void* logits, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// One decoder layer's forward on x [batch * seq, hidden], as a list of steps each tagged with its family.
// The buffers a family writes (in this order):
//   norms          h = rms_norm(x, ln1), h2 = rms_norm(x_mid, ln2)     [T, hidden] each
//   attention_proj q_lin, k_lin, v = h W^T + b, attn_out = o Wo^T       [T, q], [T, kv], [T, kv], [T, hidden]
//   rope           q = rope(q_lin), k = rope(k_lin)                     [T, q], [T, kv]
//   attention      o = attention(q, k, v)                               [T, q]
//   mlp_matmuls    gate_up = h2 Wgu^T, mlp_out = a Wd^T                 [T, 2 * inter], [T, hidden]
//   rest           x_mid = x + attn_out, a = silu_gate(gate_up), y = x_mid + mlp_out   [T, hidden], [T, inter], [T, hidden]
// (q = heads_q * head_dim, kv = heads_kv * head_dim, T = batch * seq.)
std::vector<std::vector<int64_t>> family_output_shapes(const ModelConfig& c, LayerFamily f, int64_t batch, int64_t seq);

class LayerRun {
 public:
  // Workspace for every buffer of the layer and its scratch.
  static std::size_t workspace_bytes(const ModelConfig& c, DType dt, int64_t batch, int64_t seq);

  // Every buffer from `workspace` (256-byte aligned, whatever x's alignment).
  LayerRun(const ModelConfig& c, const LayerWeights& w, DType dt, const void* x, int64_t batch, int64_t seq,
           void* workspace, std::size_t workspace_bytes);
  ~LayerRun();
  LayerRun(const LayerRun&) = delete;
  LayerRun& operator=(const LayerRun&) = delete;

  void run_all(cudaStream_t s) const;                    // every step: the buffers hold the layer's forward
  void run_family(LayerFamily f, cudaStream_t s) const;  // only f's steps, on the buffers run_all left
  // The buffers f writes, in family_output_shapes' order.
  std::vector<const void*> family_buffers(LayerFamily f) const;

 private:
  struct State;
  State* st_;
};

}  // namespace fw::model
