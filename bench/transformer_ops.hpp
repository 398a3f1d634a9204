// The transformer category's ops live in three files, one per part of the decoder: bench/transformer.cpp
// (the category, rope and silu_gate), bench/attention.cpp (causal GQA flash attention, forward and
// backward) and bench/transformer_backward.cpp (the backward kernels of rope, silu_gate, rms_norm and
// cross_entropy). register_transformer in transformer.cpp calls the other two.
#pragma once
#include <string>
#include <vector>

#include "opbench/registry.hpp"

namespace opbench::bench {

extern const Category kTransformer;

// Shared by the forward and backward ops (bench/transformer.cpp).
double unit_roundoff(DType t);                    // of the output dtype: 2^-8 bf16, 2^-11 fp16, 2^-24 fp32
// rope's and rope_backward's operands: x (or dy) [tokens, heads, head_dim] in [-2, 2], one output of its
// shape, positions r % 2048, theta 1e6 (Qwen2). Throws std::invalid_argument naming `op` on another shape.
OpIO rope_io(const std::string& op, const Shape& s, DType t);
std::vector<Shape> rope_shapes(SizeClass c);      // [tokens, heads, head_dim]: Qwen2-0.5B q and k, Llama-7B-like
std::vector<Shape> silu_gate_shapes(SizeClass c); // [tokens, intermediate]: Qwen2-0.5B, Llama-7B-like

void add_attention_ops(Registry& r);         // bench/attention.cpp
void add_decoder_backward_ops(Registry& r);  // bench/transformer_backward.cpp

}  // namespace opbench::bench
