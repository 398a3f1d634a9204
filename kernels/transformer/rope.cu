// Rotary embedding (rotate_half convention), transformer.hpp. One thread per (token, head, pair i): it
// reads x[i] and x[i + d/2] and writes both rotated values. Memory-bound: read and write the tensor once
// (2 * numel * s bytes); the angle and its sincosf per pair come from rope_angle.cuh (shared with the
// backward kernel).
#include <algorithm>
#include <cmath>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/transformer/rope_angle.cuh"
#include "kernels/transformer/transformer.hpp"

namespace fw {
namespace {

template <class T>
__global__ void rope_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t pairs_total, int64_t heads,
                            int64_t half, int64_t seq_len, int64_t pos_offset, double log2_theta) {
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < pairs_total;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k % half;              // pair index within the head
    const int64_t row = k / half;            // (token, head)
    const int64_t token = row / heads;
    const int64_t p = pos_offset + token % seq_len;
    float s, c;
    rope_sincos(p, rope_inv_freq(i, half, log2_theta), &s, &c);
    const int64_t base = row * 2 * half;
    const float x0 = to_float(x[base + i]), x1 = to_float(x[base + i + half]);
    y[base + i] = from_float<T>(x0 * c - x1 * s);
    y[base + i + half] = from_float<T>(x1 * c + x0 * s);
  }
}

}  // namespace

void rope_forward(opbench::DType dt, const void* x, void* y, int64_t tokens, int64_t heads, int64_t head_dim,
                  int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream) {
  FW_REQUIRE(tokens >= 0 && heads > 0 && head_dim > 0 && head_dim % 2 == 0, "head_dim must be even and positive");
  FW_REQUIRE(seq_len > 0 && pos_offset >= 0 && theta > 1, "seq_len > 0, pos_offset >= 0, theta > 1");
  const int64_t pairs = tokens * heads * (head_dim / 2);
  if (pairs == 0) return;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>(ceil_div(pairs, threads), int64_t(sm_count()) * 32);
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    rope_kernel<T><<<unsigned(blocks), threads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), pairs,
                                                             heads, head_dim / 2, seq_len, pos_offset,
                                                             std::log2(theta));
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
