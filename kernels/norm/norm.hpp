// Host API of the norm family: layer_norm and rms_norm over the last dim of x[rows, cols].
//   layer_norm: y = (x - mean) / sqrt(var + eps) * w + b   (biased variance, as LibTorch)
//   rms_norm:   y = x / sqrt(mean(x^2) + eps) * w
// w, b: [cols], x's dtype. Statistics in fp32 for every dtype; y has x's dtype. Any element-aligned
// pointers (16-byte vectors when all are aligned). Long rows with few rows need workspace
// (norm_workspace_bytes, shape-only). Throws fw::CudaError / std::invalid_argument.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

std::size_t norm_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt);

void layer_norm_forward(opbench::DType dt, const void* x, const void* w, const void* b, void* y, int64_t rows,
                        int64_t cols, float eps, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

void rms_norm_forward(opbench::DType dt, const void* x, const void* w, void* y, int64_t rows, int64_t cols,
                      float eps, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// rms_norm backward: with r = 1 / sqrt(mean(x^2) + eps) per row,
//   dx = r * (dy * w) - x * r^3 * mean(dy * w * x),   dw = sum over rows of dy * x * r.
// dw is summed in fp32 partials in the workspace (rms_norm_backward_workspace_bytes, shape-only) and
// reduced in a fixed order (deterministic), then rounded once to the dtype. dx may alias dy.
std::size_t rms_norm_backward_workspace_bytes(int64_t rows, int64_t cols);
void rms_norm_backward(opbench::DType dt, const void* x, const void* w, const void* dy, void* dx, void* dw,
                       int64_t rows, int64_t cols, float eps, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream);

}  // namespace fw
