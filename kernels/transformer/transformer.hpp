// Host API of the decoder's element-wise kernels besides norms and GEMMs (the rest of the contract, with
// the backward kernels and attention, is in notes/model.md). One dtype per call (fp32, fp16, bf16), fp32
// math. Throws fw::CudaError / std::invalid_argument.
//
// rope_forward: rotary embedding, the "rotate_half" convention of Llama and Qwen2 (HF
//   apply_rotary_pos_emb). x, y: [tokens, heads, head_dim], head_dim even; y == x is allowed. Token row r
//   sits at position p = pos_offset + r % seq_len. For i < head_dim / 2: inv_freq_i = theta^(-2i/head_dim)
//   rounded once to fp32, a = fp32(p) * inv_freq_i in fp32 (as HF computes the angles), and
//     y[i]            = x[i] cos(a) - x[i + head_dim/2] sin(a)
//     y[i + head_dim/2] = x[i + head_dim/2] cos(a) + x[i] sin(a)
//
// silu_gate_forward: the SwiGLU MLP's silu(gate) * up. gate and up are [rows, cols] views with row stride
//   ld_in elements (ld_in = 2 * cols for the two halves of one fused [rows, 2 * cols] GEMM output, up =
//   gate + cols); out is contiguous [rows, cols].
//
// rope_backward: dx = the transposed rotation of dy (same positions): dx[i] = dy[i] cos + dy[i + d/2] sin,
//   dx[i + d/2] = dy[i + d/2] cos - dy[i] sin. dx == dy is allowed.
//
// silu_gate_backward: with s = sigmoid(g), out = g s up:
//   d_up = dout * g * s,  d_gate = dout * up * s * (1 + g (1 - s)).
//   gate, up are read with row stride ld_in; d_gate, d_up are written with row stride ld_out (2 * cols with
//   d_up = d_gate + cols: the gradient of the fused gate_up output).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

void rope_forward(opbench::DType dt, const void* x, void* y, int64_t tokens, int64_t heads, int64_t head_dim,
                  int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream);

void silu_gate_forward(opbench::DType dt, const void* gate, const void* up, int64_t ld_in, void* out, int64_t rows,
                       int64_t cols, cudaStream_t stream);

void rope_backward(opbench::DType dt, const void* dy, void* dx, int64_t tokens, int64_t heads, int64_t head_dim,
                   int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream);

void silu_gate_backward(opbench::DType dt, const void* dout, const void* gate, const void* up, int64_t ld_in,
                        void* d_gate, void* d_up, int64_t ld_out, int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace fw
