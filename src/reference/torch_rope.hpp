// rope's cos/sin tables, shared by the rope and rope_backward references (torch_transformer.cpp).
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

}  // namespace opbench::reference
