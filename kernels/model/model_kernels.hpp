// The decoder's two small kernels that no op needs: seeded uniform fill (its random weights) and the
// embedding's backward (scatter-add of token rows).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "opbench/dtype.hpp"

namespace fw::model {

// p[i] = lo + (hi - lo) u(seed, i), u uniform in [0, 1) from a counter-based hash (the same on every GPU).
void fill_uniform(opbench::DType dt, void* p, int64_t n, float lo, float hi, uint64_t seed, cudaStream_t stream);

// d_embed[tokens[t], :] += dx[t, :] for t < T (atomic adds in the dtype: rows of repeated tokens are summed
// in no fixed order).
void embedding_backward(opbench::DType dt, const void* dx, const int64_t* tokens, void* d_embed, int64_t T,
                        int64_t hidden, int64_t vocab, cudaStream_t stream);

}  // namespace fw::model
