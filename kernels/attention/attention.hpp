// Host API of causal grouped-query attention, flash-attention style: the S x S scores never reach memory.
// Token-major layouts, no transposes (what a [B*S, heads*head_dim] projection output already is):
//   q, o  [batch, seq_q,  heads_q,  head_dim]
//   k, v  [batch, seq_kv, heads_kv, head_dim]
//   lse   [batch, heads_q, seq_q] fp32, natural log of sum_j exp(scale * q.k_j) over the keys a query sees
// heads_q a multiple of heads_kv (query head h reads kv head h / (heads_q / heads_kv)); head_dim 64 or 128;
// fp16 or bf16 (one dtype per call), fp32 accumulation and softmax. Causal masking is aligned bottom-right
// as in flash-attn: query i sees keys j <= i + seq_kv - seq_q (seq_q == seq_kv: the usual lower triangle;
// seq_q == 1: a decode step sees the whole cache). A query that sees no key writes o = 0 and lse = -inf.
//
// Backward (FA2): D = rowsum(dO * O), P recomputed from lse, dK and dV per kv block summed over the query
// heads of its group, dQ accumulated in fp32 in the workspace and rounded once. dq, dk, dv have the layouts
// of q, k, v. Throws fw::CudaError / std::invalid_argument. Launches on `stream`, no synchronisation.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

struct AttentionShape {
  int64_t batch = 1, seq_q = 1, seq_kv = 1, heads_q = 1, heads_kv = 1, head_dim = 64;
  float scale = 0.125f;  // usually 1 / sqrt(head_dim)
  bool causal = true;
};

void attention_forward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                       void* o, float* lse, cudaStream_t stream);
// Keys per tile of the forward kernel (64 query rows a CTA), for reports.
int attention_forward_block_keys();

std::size_t attention_backward_workspace_bytes(const AttentionShape& s);

void attention_backward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                        const void* o, const void* d_o, const float* lse, void* dq, void* dk, void* dv,
                        void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
// Keys per CTA of the backward's main kernel for this shape (64 or 128; 64 query rows a step), for reports.
int attention_backward_block_keys(const AttentionShape& s);

}  // namespace fw
