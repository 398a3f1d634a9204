// Host API of the decoder kernels a transformer block needs besides GEMMs, norms and attention, with
// the backward kernels of the training step. Tensors are row-major and contiguous unless a stride says
// otherwise; every op takes fp32, fp16 or bf16 (one dtype for all its tensors) and computes in fp32.
// Throws fw::CudaError / std::invalid_argument.
//
// Rotary embedding, the "rotate_half" convention of Llama/Qwen2 (HF `apply_rotary_pos_emb`):
//   x: [tokens, heads, head_dim] (a [B*S, heads*head_dim] projection output), head_dim even.
//   Token row r sits at position p = pos_offset + r % seq_len; for i < head_dim/2,
//   inv_freq_i = theta^(-2i/head_dim), a = p * inv_freq_i (fp32, as HF computes it):
//     y[i]         = x[i] * cos(a) - x[i + d/2] * sin(a)
//     y[i + d/2]   = x[i + d/2] * cos(a) + x[i] * sin(a)
//   rope_backward is the transpose rotation (dx from dy: sin negated). In place (y == x) is allowed.
//
// SiLU gate (the SwiGLU MLP's `silu(gate) * up`): gate and up are [rows, cols] views with row stride
//   ld_in elements (ld_in = 2*cols when they are the two halves of one fused [rows, 2*cols] GEMM output,
//   up = gate + cols); out is contiguous [rows, cols].
//   silu_gate_backward: from dout [rows, cols] and the forward's gate, up, writes d_gate and d_up with
//   row stride ld_in (the fused layout again):  s = sigmoid(g);  d_up = dout * g * s;
//   d_gate = dout * up * s * (1 + g * (1 - s)).
//
// rms_norm_backward: y = x / rms(x) * w over the last dim of x [rows, cols], rms = sqrt(mean(x^2)+eps).
//   From dy: dx [rows, cols] and dw [cols] (dw = sum over rows of dy * x / rms, accumulated in fp32 in
//   the workspace, then written in the dtype). Workspace from rms_norm_backward_workspace_bytes.
//
// cross_entropy_backward: the gradient of mean-reduced cross_entropy (loss.hpp) scaled by grad_scale
//   (dloss): dlogits[r, c] = grad_scale / rows * (softmax(logits[r])[c] - (c == target[r])).
//   logits and dlogits [rows, cols] (may be the same buffer), int64 targets [rows] in [0, cols).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

void rope_forward(opbench::DType dt, const void* x, void* y, int64_t tokens, int64_t heads, int64_t head_dim,
                  int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream);
void rope_backward(opbench::DType dt, const void* dy, void* dx, int64_t tokens, int64_t heads, int64_t head_dim,
                   int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream);

void silu_gate_forward(opbench::DType dt, const void* gate, const void* up, int64_t ld_in, void* out, int64_t rows,
                       int64_t cols, cudaStream_t stream);
void silu_gate_backward(opbench::DType dt, const void* dout, const void* gate, const void* up, int64_t ld_in,
                        void* d_gate, void* d_up, int64_t rows, int64_t cols, cudaStream_t stream);

std::size_t rms_norm_backward_workspace_bytes(int64_t rows, int64_t cols);
void rms_norm_backward(opbench::DType dt, const void* x, const void* w, const void* dy, void* dx, void* dw,
                       int64_t rows, int64_t cols, float eps, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream);

void cross_entropy_backward(opbench::DType dt, const void* logits, const int64_t* targets, void* dlogits,
                            int64_t rows, int64_t cols, float grad_scale, cudaStream_t stream);

}  // namespace fw
