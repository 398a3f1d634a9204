// Host API of the loss family. Both losses reduce to one element (shape {1}) in the input dtype, with
// fp32 accumulation, in ONE pass over the data plus a tiny combining kernel.
//   mse_loss:      out[0] = mean((pred - target)^2) over n elements.
//   cross_entropy: logits [rows, cols], int64 targets [rows] in [0, cols):
//                  out[0] = mean over rows of (logsumexp(logits[row]) - logits[row, target[row]]).
//                  A target outside [0, cols) gives NaN.
// Workspace from the *_workspace_bytes functions (shape-only). Throws fw::CudaError /
// std::invalid_argument.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw {

std::size_t mse_loss_workspace_bytes(int64_t n, opbench::DType dt);
void mse_loss(opbench::DType dt, const void* pred, const void* target, void* out, int64_t n, void* workspace,
              std::size_t workspace_bytes, cudaStream_t stream);

std::size_t cross_entropy_workspace_bytes(int64_t rows, int64_t cols, opbench::DType dt);
void cross_entropy(opbench::DType dt, const void* logits, const int64_t* targets, void* out, int64_t rows,
                   int64_t cols, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// cross_entropy backward of the mean loss: dlogits[row] = grad_scale / rows * (softmax(logits[row]) -
// onehot(target[row])), in the logits' dtype (fp32 math, one rounding). dlogits may alias logits (the
// logits of a language model's head are large: in place saves their copy).
void cross_entropy_backward(opbench::DType dt, const void* logits, const int64_t* targets, void* dlogits,
                            int64_t rows, int64_t cols, float grad_scale, cudaStream_t stream);

}  // namespace fw
