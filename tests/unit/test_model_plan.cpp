// The framework decoder's memory plan, on the CPU: the sizing pass of kernels/model/decoder.cpp (its carver
// with no base only counts) and the weight layout, checked against Qwen2-0.5B's published sizes.
#include <gtest/gtest.h>

#include <set>

#include "kernels/model/decoder.hpp"
#include "opbench/model_info.hpp"

using namespace opbench;
namespace fm = fw::model;

namespace {
const ModelConfig& qwen() { return *find_model("qwen2-0.5b"); }
}  // namespace

TEST(ModelPlan, WeightsHoldEveryParameterOnce) {
  const ModelConfig& c = qwen();
  // Every parameter in bf16, each tensor 256-byte aligned: at most 255 bytes of padding per tensor.
  const std::size_t bytes = fm::weights_bytes(c, DType::bf16);
  const std::size_t exact = std::size_t(c.parameters()) * 2;
  const std::size_t tensors = 2 + std::size_t(c.layers) * 11;
  EXPECT_GE(bytes, exact);
  EXPECT_LE(bytes, exact + 255 * tensors);
  // The named tensors add up to the parameter count, and no two share a name.
  const fm::Weights w = fm::layout_weights(c, DType::bf16, nullptr);
  int64_t n = 0;
  std::set<std::string> names;
  for (const fm::NamedTensor& t : fm::named_tensors(c, w)) {
    int64_t k = 1;
    for (int64_t d : t.shape) k *= d;
    n += k;
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
  }
  EXPECT_EQ(n, c.parameters());
  EXPECT_EQ(names.size(), tensors);
}

TEST(ModelPlan, WorkspacesGrowWithTheTokens) {
  const ModelConfig& c = qwen();
  const int64_t H = c.hidden, V = c.vocab;
  // Prefill: two layers' buffers and the embedding and final-norm outputs, all linear in the tokens.
  const std::size_t p1 = fm::prefill_workspace_bytes(c, 1, 128), p4 = fm::prefill_workspace_bytes(c, 4, 512);
  EXPECT_GT(p4, p1);
  EXPECT_LE(p4, 16 * p1 + (std::size_t(1) << 20));
  // A training step keeps every layer's buffers and the logits: at least layers x the per-token activations
  // (h, q, k, v, o, gate_up, ...) and the [T, vocab] logits.
  const int64_t T = 4 * 512;
  const std::size_t t4 = fm::train_step_workspace_bytes(c, 4, 512);
  EXPECT_GE(t4, std::size_t(T * V * 2 + c.layers * T * (2 * c.intermediate + 6 * H) * 2));
  EXPECT_GT(t4, fm::train_step_workspace_bytes(c, 1, 128));
  // Decode: one token per sequence, whatever the cache length.
  EXPECT_EQ(fm::decode_workspace_bytes(c, 4, 128), fm::decode_workspace_bytes(c, 4, 4096));
  EXPECT_GT(fm::decode_workspace_bytes(c, 4, 128), fm::decode_workspace_bytes(c, 1, 128));
}

TEST(ModelPlan, EveryFamilyNamesItsBuffers) {
  const ModelConfig& c = qwen();
  const int64_t T = 2 * 7, Q = c.heads_q * c.head_dim, KV = c.heads_kv * c.head_dim;
  std::size_t buffers = 0;
  for (LayerFamily f : layer_families()) {
    const auto shapes = fm::family_output_shapes(c, f, 2, 7);
    EXPECT_FALSE(shapes.empty()) << layer_family_name(f);
    for (const auto& s : shapes) {
      ASSERT_EQ(s.size(), 2u);
      EXPECT_EQ(s[0], T);
    }
    buffers += shapes.size();
  }
  // h, h2, q_lin, k_lin, v, attn_out, q, k, o, gate_up, mlp_out, x_mid, a, y: each written by one family.
  EXPECT_EQ(buffers, 14u);
  EXPECT_EQ(fm::family_output_shapes(c, LayerFamily::attention, 2, 7)[0], (std::vector<int64_t>{T, Q}));
  EXPECT_EQ(fm::family_output_shapes(c, LayerFamily::rope, 2, 7)[1], (std::vector<int64_t>{T, KV}));
  EXPECT_GE(fm::LayerRun::workspace_bytes(c, DType::bf16, 2, 7), std::size_t(T * (6 * c.hidden + 2 * Q) * 2));
}
