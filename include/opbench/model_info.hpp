// The model benchmark (bench_ops --category model): a decoder's shapes, and the names its results carry.
// A model result is an ordinary problem (same verification, timing and reports): category "model", op
// "<model>.<run>" for a whole-model run or "<model>.layer.<family>" for one part of one decoder layer's
// forward, shape {batch, seq}, dtype bf16. Report sections (reports/model_section.cpp) read these names
// and RunContext::model; nothing here needs CUDA.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opbench {

// A decoder-only transformer's configuration (Qwen2 / Llama family: RMSNorm, RoPE, GQA, SwiGLU MLP).
struct ModelConfig {
  std::string name;              // "qwen2-0.5b"
  int64_t layers = 0, hidden = 0, intermediate = 0, heads_q = 0, heads_kv = 0, head_dim = 0, vocab = 0;
  double rms_eps = 1e-6, rope_theta = 1e6;
  bool qkv_bias = true;          // q/k/v projections have a bias; o_proj and the MLP do not
  bool tied_embeddings = true;   // the LM head is the embedding matrix
  int64_t parameters() const;    // weights, counted once when tied
};

// The models bench_ops knows (--model NAME), and one by name (nullptr: unknown).
const std::vector<ModelConfig>& known_models();
const ModelConfig* find_model(const std::string& name);

// What a model run measures, per (batch, seq):
//   prefill     forward over batch x seq tokens to the logits of every position
//   train_step  forward + cross-entropy loss + backward (all weight gradients; no optimizer step)
//   decode      one new token per sequence against a KV cache of seq positions, to its logits
enum class ModelRun { prefill, train_step, decode };
const char* model_run_name(ModelRun r);  // "prefill", "train_step", "decode"
// Tokens a run processes: batch x seq for prefill and train_step, batch for decode.
int64_t model_run_tokens(ModelRun r, int64_t batch, int64_t seq);

// The parts of one decoder layer's forward, timed one at a time on the same activations, so that the
// time of a layer splits by op family.
enum class LayerFamily { attention, attention_proj, mlp_matmuls, norms, rope, rest };
const char* layer_family_name(LayerFamily f);  // "attention", "attention_proj", "mlp_matmuls", ...
const char* layer_family_description(LayerFamily f);
const std::vector<LayerFamily>& layer_families();

// Op names: "qwen2-0.5b.prefill", "qwen2-0.5b.layer.norms".
std::string model_run_op(const std::string& model, ModelRun r);
std::string layer_family_op(const std::string& model, LayerFamily f);

// An op name read back: which model and which run or family (neither set: not a model op).
struct ModelOpName {
  std::string model;
  std::optional<ModelRun> run;
  std::optional<LayerFamily> family;
};
std::optional<ModelOpName> parse_model_op(const std::string& op);

// The (batch, seq) grid of a model run: --batch and --seq (defaults 1,2,4 and 128,256,512); --fast keeps
// the corner (the smallest batch with the smallest and largest seq, the largest batch with the largest).
struct ModelGrid {
  std::vector<int64_t> batch = {1, 2, 4};
  std::vector<int64_t> seq = {128, 256, 512};
};

}  // namespace opbench
