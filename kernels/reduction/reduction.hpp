// Host API of the reduction family: sum, mean, max, min and argmax over the last dim, the first dim
// and all elements; softmax, log_softmax and logsumexp over the last dim.
//
// Conventions: x is contiguous, any element-aligned address. "Last dim" reads x as [rows, cols]
// (cols = last dim); "first dim" as [rows = first dim, cols = the rest]; "all" as n elements.
// Outputs have x's dtype except argmax (int64 indices; ties and NaN as LibTorch: the first index of
// the maximum, NaN counting as the maximum). fp16/bf16 accumulate in fp32.
//
// Workspace: some shapes split the reduction over blocks and need scratch; the *_workspace_bytes
// functions depend on the shape and dtype alone. Pass at least that many bytes (nullptr when 0).
// All functions launch on `stream`, throw fw::CudaError on a CUDA error and std::invalid_argument on
// bad arguments.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

enum class ReduceKind { sum, mean, max, min, argmax, logsumexp };

// y[rows] = reduce(x[rows, cols], dim = -1). logsumexp allowed here only.
std::size_t reduce_last_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt);
void reduce_last(ReduceKind kind, opbench::DType dt, const void* x, void* y, int64_t rows, int64_t cols,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// y[cols] = reduce(x[rows, cols], dim = 0). No logsumexp.
std::size_t reduce_first_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt);
void reduce_first(ReduceKind kind, opbench::DType dt, const void* x, void* y, int64_t rows, int64_t cols,
                  void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// y[1] = reduce(x[n]); argmax gives the flat index. No logsumexp.
std::size_t reduce_all_workspace_bytes(int64_t n, opbench::DType dt);
void reduce_all(ReduceKind kind, opbench::DType dt, const void* x, void* y, int64_t n, void* workspace,
                std::size_t workspace_bytes, cudaStream_t stream);

// y[rows, cols] = softmax(x, dim = -1), or log_softmax when `log`. Numerically stable (max-shifted).
std::size_t softmax_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt);
void softmax_last(opbench::DType dt, const void* x, void* y, int64_t rows, int64_t cols, bool log,
                  void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace fw
