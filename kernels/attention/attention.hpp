// Host API of causal grouped-query attention, flash-attention style: the S x S scores are never
// materialized; each query block streams the key/value blocks through shared memory with an online
// softmax (fp32 statistics and accumulators, fp16/bf16 operands on tensor cores).
//
// Layout: the projections' natural token-major layout, no transposes:
//   q, o:      [batch, seq_q,  heads_q,  head_dim]   contiguous
//   k, v:      [batch, seq_kv, heads_kv, head_dim]   contiguous
//   lse:       [batch, heads_q, seq_q] fp32, the log-sum-exp of each query's scaled scores (natural log),
//              written by the forward, read by the backward
// heads_q is a multiple of heads_kv (query head h reads kv head h / (heads_q / heads_kv)).
// head_dim: 64 or 128. dtype: fp16 or bf16 (std::invalid_argument otherwise).
// scores = scale * q . k. causal: query i (of seq_q) sees keys j <= i + (seq_kv - seq_q) (aligned to the
// bottom right, as flash-attn does: with seq_q == seq_kv the usual mask; with seq_q == 1 the one new token
// of a decode step sees the whole cache). Non-causal: every key.
//
// attention_backward: from do (o's layout) and the forward's q, k, v, o, lse, writes dq (q's layout),
// dk and dv (k's layout; summed over the query heads that share a kv head). Workspace (fp32 dq
// accumulators and the per-row dot(do, o)) from attention_backward_workspace_bytes.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

struct AttentionShape {
  int64_t batch = 1, seq_q = 1, seq_kv = 1, heads_q = 1, heads_kv = 1, head_dim = 64;
  float scale = 0.125f;  // 1/sqrt(head_dim) for the usual attention
  bool causal = true;
};

void attention_forward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                       void* o, float* lse, cudaStream_t stream);

std::size_t attention_backward_workspace_bytes(const AttentionShape& s);
void attention_backward(opbench::DType dt, const AttentionShape& s, const void* q, const void* k, const void* v,
                        const void* o, const void* d_o, const float* lse, void* dq, void* dk, void* dv,
                        void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// The kernel a launch with this shape runs (the report names it).
const char* attention_kernel_name(opbench::DType dt, const AttentionShape& s, bool backward);

}  // namespace fw
