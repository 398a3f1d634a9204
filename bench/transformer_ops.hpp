// The transformer category's ops live in three files, one per part of the decoder: bench/transformer.cpp
// (the category, rope and silu_gate), bench/attention.cpp (causal GQA flash attention, forward and
// backward) and bench/transformer_backward.cpp (the backward kernels of rope, silu_gate, rms_norm and
// cross_entropy). register_transformer in transformer.cpp calls the other two.
#pragma once
#include "opbench/registry.hpp"

namespace opbench::bench {

extern const Category kTransformer;

void add_attention_ops(Registry& r);         // bench/attention.cpp
void add_decoder_backward_ops(Registry& r);  // bench/transformer_backward.cpp

}  // namespace opbench::bench
