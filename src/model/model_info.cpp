#include "opbench/model_info.hpp"

#include <stdexcept>

namespace opbench {

int64_t ModelConfig::parameters() const {
  const int64_t kv = heads_kv * head_dim, q = heads_q * head_dim;
  const int64_t attn = hidden * q + 2 * hidden * kv + q * hidden + (qkv_bias ? q + 2 * kv : 0);
  const int64_t mlp = 3 * hidden * intermediate;
  const int64_t norms = 2 * hidden;
  const int64_t embed = vocab * hidden * (tied_embeddings ? 1 : 2);
  return layers * (attn + mlp + norms) + hidden /* final norm */ + embed;
}

const std::vector<ModelConfig>& known_models() {
  // Qwen2-0.5B as its config.json gives it (hidden_size 896, intermediate_size 4864, 24 layers, 14 heads,
  // 2 key/value heads, rms_norm_eps 1e-6, rope_theta 1e6, vocab_size 151936, tie_word_embeddings true).
  static const std::vector<ModelConfig> models = {
      {"qwen2-0.5b", 24, 896, 4864, 14, 2, 64, 151936, 1e-6, 1e6, true, true},
  };
  return models;
}

const ModelConfig* find_model(const std::string& name) {
  for (const ModelConfig& m : known_models())
    if (m.name == name) return &m;
  return nullptr;
}

const char* model_run_name(ModelRun r) {
  switch (r) {
    case ModelRun::prefill: return "prefill";
    case ModelRun::train_step: return "train_step";
    case ModelRun::decode: return "decode";
  }
  return "?";
}

int64_t model_run_tokens(ModelRun r, int64_t batch, int64_t seq) { return r == ModelRun::decode ? batch : batch * seq; }

const std::vector<LayerFamily>& layer_families() {
  static const std::vector<LayerFamily> all = {LayerFamily::attention, LayerFamily::attention_proj,
                                               LayerFamily::mlp_matmuls, LayerFamily::norms, LayerFamily::rope,
                                               LayerFamily::rest};
  return all;
}

const char* layer_family_name(LayerFamily f) {
  switch (f) {
    case LayerFamily::attention: return "attention";
    case LayerFamily::attention_proj: return "attention_proj";
    case LayerFamily::mlp_matmuls: return "mlp_matmuls";
    case LayerFamily::norms: return "norms";
    case LayerFamily::rope: return "rope";
    case LayerFamily::rest: return "rest";
  }
  return "?";
}

const char* layer_family_description(LayerFamily f) {
  switch (f) {
    case LayerFamily::attention: return "causal GQA attention (scores, softmax, values)";
    case LayerFamily::attention_proj: return "q/k/v projections (with bias) and o_proj";
    case LayerFamily::mlp_matmuls: return "gate_up and down projections";
    case LayerFamily::norms: return "input and post-attention RMSNorm";
    case LayerFamily::rope: return "rotary embedding of q and k";
    case LayerFamily::rest: return "SiLU gate and residual adds";
  }
  return "?";
}

std::string model_run_op(const std::string& model, ModelRun r) { return model + "." + model_run_name(r); }
std::string layer_family_op(const std::string& model, LayerFamily f) {
  return model + ".layer." + layer_family_name(f);
}

std::optional<ModelOpName> parse_model_op(const std::string& op) {
  for (const ModelConfig& m : known_models()) {
    const std::string prefix = m.name + ".";
    if (op.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = op.substr(prefix.size());
    ModelOpName n;
    n.model = m.name;
    for (ModelRun r : {ModelRun::prefill, ModelRun::train_step, ModelRun::decode})
      if (rest == model_run_name(r)) n.run = r;
    for (LayerFamily f : layer_families())
      if (rest == std::string("layer.") + layer_family_name(f)) n.family = f;
    if (n.run || n.family) return n;
  }
  return std::nullopt;
}

}  // namespace opbench
