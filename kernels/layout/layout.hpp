// Layout family: ops that move bits without arithmetic (copy, transpose, permute, cat, slice, gather,
// expand). Host API on raw device pointers; every function is asynchronous on `stream`, checks its
// launch, and throws std::invalid_argument for bad sizes or an unsupported dtype (fp32, fp16, bf16
// are supported: the kernels only look at the element size) and fw::CudaError for a failed launch.
// Pointers need only element alignment; 16-byte-aligned operands take the fastest paths.
//
// Two engines (see the .cu files):
//   row_copy.cu  — a 16-byte-store "row segment" copy: every output is a contiguous sequence of rows,
//                  each row one or two segments read from strided / gathered / permuted source rows.
//                  Serves copy, cat, narrow, expand, gather and permute_0213.
//   transpose.cu — a shared-memory tiled transpose of the last two dims, 16-byte loads and stores.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "opbench/dtype.hpp"

namespace fw::layout {

using opbench::DType;

// dst[i] = src[i], i < numel.
void copy(const void* src, void* dst, int64_t numel, DType dt, cudaStream_t stream);

// Concatenation of two contiguous tensors along one dim, seen as [outer, inner]:
// dst row o = [a row o (inner_a elements) | b row o (inner_b elements)], o < outer.
// cat along dim d of shapes [..., x, ...] and [..., y, ...]: outer = prod(dims before d),
// inner_a = x * prod(dims after d), inner_b = y * prod(dims after d).
void cat2(const void* a, const void* b, void* dst, int64_t outer, int64_t inner_a, int64_t inner_b, DType dt,
          cudaStream_t stream);

// Materialized narrow of the last dim: src [rows, n] → dst [rows, length], dst[r][j] = src[r][start + j].
void narrow_last(const void* src, void* dst, int64_t rows, int64_t n, int64_t start, int64_t length, DType dt,
                 cudaStream_t stream);

// Materialized broadcast: src [1, n] → dst [rows, n], every row a copy of src.
void expand_rows(const void* src, void* dst, int64_t rows, int64_t n, DType dt, cudaStream_t stream);

// Embedding-style row lookup: table [vocab, dim], idx [n_idx] (int64, each in [0, vocab); out-of-range
// indices are undefined behaviour, as in any raw kernel) → dst [n_idx, dim], dst[i] = table[idx[i]].
void gather_rows(const void* table, const int64_t* idx, void* dst, int64_t vocab, int64_t n_idx, int64_t dim,
                 DType dt, cudaStream_t stream);

// How gather_rows walks n_idx rows of row_bytes gathered from a table of vocab rows on a GPU with l2_bytes of L2,
// so that a repeated index finds its row still in L2 (row_copy.cu says when and why). At most one is set:
//   slab_shift   slab-major: every row's first 2^slab_shift bytes, then every row's next ones, ...
//   window_rows  window-major: the rows whose index falls in table rows [0, W), then [W, 2W), ...
// Both 0: row by row. A destination (or, window-major, a table) not 16-byte aligned is walked as if the
// field it needs were 0. Host code, no GPU needed.
struct GatherWalk {
  int slab_shift = 0;
  int64_t window_rows = 0;
  int64_t slab_bytes() const { return slab_shift ? int64_t(1) << slab_shift : 0; }
};
GatherWalk gather_walk(int64_t n_idx, int64_t vocab, int64_t row_bytes, std::size_t l2_bytes);

// The report's name for what gather_rows runs on the current device: "row by row", "slab-major, <S>-byte
// slabs" or "window-major, <W>-row windows".
std::string gather_rows_kernel(const void* table, const void* dst, int64_t vocab, int64_t n_idx, int64_t dim,
                               DType dt);

// [B, S, H, D] → [B, H, S, D] (torch: x.permute({0, 2, 1, 3}).contiguous()).
void permute_0213(const void* src, void* dst, int64_t B, int64_t S, int64_t H, int64_t D, DType dt,
                  cudaStream_t stream);

// Swap the last two dims: src [batch, M, N] → dst [batch, N, M] (torch: x.transpose(-1, -2).contiguous()).
void transpose_last2(const void* src, void* dst, int64_t batch, int64_t M, int64_t N, DType dt,
                     cudaStream_t stream);

}  // namespace fw::layout
