// The decoder's element-wise kernels (kernels/transformer/): rope (rotary embedding) and silu_gate (the
// SwiGLU MLP's silu(gate) * up on a fused gate_up GEMM output). Shapes: Qwen2-0.5B (14 query heads and 2
// kv heads of 64, intermediate 4864) and a Llama-7B-like layer (32 heads of 128, intermediate 11008), at
// 2048 and 8192 tokens; the small classes take 128 and 512 tokens.
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "bench/transformer_ops.hpp"
#include "kernels/transformer/transformer.hpp"

namespace opbench::bench {

const Category kTransformer{"transformer"};

double unit_roundoff(DType t) { return t == DType::bf16 ? 0x1p-8 : t == DType::f16 ? 0x1p-11 : 0x1p-24; }

namespace {
std::vector<int64_t> tokens_for(SizeClass c) {
  switch (c) {
    case SizeClass::small: return {128, 512};
    case SizeClass::medium: return {2048};
    case SizeClass::large: return {8192};
    default: return {};
  }
}
}  // namespace

OpIO rope_io(const std::string& op, const Shape& s, DType t) {
  if (s.size() != 3 || s[2] % 2 != 0)
    throw std::invalid_argument(op + " takes [tokens, heads, head_dim] with an even head_dim");
  OpIO io;
  io.inputs = {{s, t, Init::uniform(-2.0, 2.0)}};
  io.outputs = {{s, t}};
  io.params.set("seq_len", 2048);
  io.params.set("theta", 1e6);
  return io;
}

std::vector<Shape> rope_shapes(SizeClass c) {
  std::vector<Shape> v;
  for (int64_t tokens : tokens_for(c)) {
    v.push_back({tokens, 14, 64});   // Qwen2-0.5B queries
    v.push_back({tokens, 2, 64});    // its keys
    v.push_back({tokens, 32, 128});  // Llama-7B-like
  }
  return v;
}

std::vector<Shape> silu_gate_shapes(SizeClass c) {
  std::vector<Shape> v;
  for (int64_t tokens : tokens_for(c)) {
    v.push_back({tokens, 4864});   // Qwen2-0.5B
    v.push_back({tokens, 11008});  // Llama-7B-like
  }
  return v;
}

namespace {

// rope: x [tokens, heads, head_dim] -> y, positions r % seq_len (seq_len 2048, as a 2048-token context),
// theta 1e6 (Qwen2).
void add_rope(Registry& r) {
  OpDef op = make_op("rope", kTransformer,
                     "rotary embedding (rotate_half), [tokens, heads, head_dim], theta 1e6, positions r % 2048");
  op.io = [](const Shape& s, DType t) { return rope_io("rope", s, t); };
  op.bytes = [](const Shape& s, DType t) { return 2.0 * double(numel(s)) * dtype_size(t); };
  // Per pair: 2 mul + 2 fma for the rotation (the angle and its sincos are not counted): 4 per pair.
  op.flops = [](const Shape& s, DType) { return 2.0 * double(numel(s)); };
  // Each output is x0 cos - x1 sin with |x| <= 2. LibTorch (as HF writes it) rounds cos and sin to the
  // dtype and rounds the products and the sum: 4 roundings of values up to 2 (8u absolute), against
  // one of |y| <= 2.9 here: atol 10u, rtol 2u. fp32: both compute the same fp32 angle; sincos ~1 ulp.
  op.tolerance = [](const Shape&, DType t) {
    const double u = unit_roundoff(t);
    return t == DType::f32 ? Tolerance{1e-5, 1e-5} : Tolerance{10 * u, 2 * u};
  };
  op.shapes = rope_shapes;
  op.test_shapes = [] { return std::vector<Shape>{{1, 1, 2}, {7, 3, 64}, {129, 14, 64}, {1000, 2, 128}, {3, 5, 6}}; };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Shape& s = b.in[0].shape;
    fw::rope_forward(b.in[0].dtype, b.in[0].data, b.out[0].data, s[0], s[1], s[2], int64_t(b.params.get("seq_len")),
                     0, b.params.get("theta"), stream);
  })};
  r.add(std::move(op));
}

// silu_gate: gate_up [rows, 2 * cols] -> silu(gate_up[:, :cols]) * gate_up[:, cols:], [rows, cols].
void add_silu_gate(Registry& r) {
  OpDef op = make_op("silu_gate", kTransformer,
                     "silu(gate) * up on a fused gate_up [rows, 2*cols] GEMM output -> [rows, cols] (SwiGLU)");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{Shape{rc.rows, 2 * rc.cols}, t, Init::uniform(-4.0, 4.0)}};
    io.outputs = {{s, t}};
    return io;
  };
  op.bytes = [](const Shape& s, DType t) { return 3.0 * double(numel(s)) * dtype_size(t); };
  op.flops = [](const Shape& s, DType) { return 5.0 * double(numel(s)); };  // neg-exp, add, div, mul, mul
  // LibTorch rounds silu(gate) to the dtype, then the product: two roundings against one here; products
  // compose relative errors, so the bound is relative (atol only for flushed tiny values).
  op.tolerance = [](const Shape&, DType t) {
    const double u = unit_roundoff(t);
    return t == DType::f32 ? Tolerance{1e-6, 1e-5} : Tolerance{4 * u * 1e-2, 3 * u};
  };
  op.shapes = silu_gate_shapes;
  op.test_shapes = [] { return std::vector<Shape>{{1, 1}, {7, 3}, {129, 4864}, {1000, 9}, {3, 1001}}; };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.out[0].shape);
    const char* gate_up = static_cast<const char*>(b.in[0].data);
    fw::silu_gate_forward(b.in[0].dtype, gate_up, gate_up + rc.cols * int64_t(dtype_size(b.in[0].dtype)), 2 * rc.cols,
                          b.out[0].data, rc.rows, rc.cols, stream);
  })};
  r.add(std::move(op));
}

void register_transformer(Registry& r) {
  add_rope(r);
  add_silu_gate(r);
  add_attention_ops(r);
  add_decoder_backward_ops(r);
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kTransformer, 80, "the decoder's element-wise kernels: rope, silu_gate", {"decoder"},
                           register_transformer});

}  // namespace opbench::bench
