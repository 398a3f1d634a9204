// rope as HF writes it, shared by the rope and rope_backward references and the model's decoder
// (defined in torch_transformer.cpp).
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace opbench::reference {

// The cos/sin tables of rope, [tokens, 1, head_dim] in x's dtype. A model computes them once per forward
// and every layer reuses them (HF's rotary_emb), so they are made outside the timed call: the last
// tables are kept and reused while the shape, dtype, device and settings stay the same (one problem's
// verification and timing), and remade when they change.
struct RopeTables {
  std::vector<int64_t> key_shape;
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
  int64_t seq_len = 0;
  double theta = 0;
  at::Tensor cos, sin;
};

// The tables for x [tokens, heads, head_dim] (positions r % seq_len), made by torch_transformer.cpp.
const RopeTables& rope_tables(const at::Tensor& x, int64_t seq_len, double theta);

// cos and sin, [n, head_dim] in t, of the positions (an fp32 tensor [n]): inv_freq_i = theta^(-2i/head_dim)
// computed in fp64 and rounded once to fp32, angles position x inv_freq in fp32 (HF's rotary_emb), repeated
// over both halves; for the fp64 oracle, cos and sin of those same fp32 angles in fp64.
struct CosSin {
  at::Tensor cos, sin;
};
CosSin rope_cos_sin(const at::Tensor& positions, int64_t head_dim, double theta, at::ScalarType t);

// HF's rotate_half over the last dim: cat(-x[..., d/2:], x[..., :d/2]).
at::Tensor rotate_half(const at::Tensor& x);

}  // namespace opbench::reference
