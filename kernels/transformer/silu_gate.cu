// silu(gate) * up (transformer.hpp). Memory-bound: read gate and up, write out (3 * rows * cols * s
// bytes). 16-byte packets when cols, ld_in and every pointer allow them; one element per step otherwise.
#include <algorithm>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/transformer/transformer.hpp"

namespace fw {
namespace {

__device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

template <class T, int V>
__global__ void silu_gate_kernel(const T* __restrict__ gate, const T* __restrict__ up, int64_t ld_in,
                                 T* __restrict__ out, int64_t rows, int64_t cols) {
  const int64_t per_row = cols / V, total = rows * per_row;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = k / per_row, c = (k % per_row) * V;
    const Packet<T, V> g = *reinterpret_cast<const Packet<T, V>*>(gate + r * ld_in + c);
    const Packet<T, V> u = *reinterpret_cast<const Packet<T, V>*>(up + r * ld_in + c);
    Packet<T, V> o;
#pragma unroll
    for (int j = 0; j < V; ++j) o.v[j] = from_float<T>(silu_mul(to_float(g.v[j]), to_float(u.v[j])));
    store_packet(out + r * cols + c, o);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

void silu_gate_forward(opbench::DType dt, const void* gate, const void* up, int64_t ld_in, void* out, int64_t rows,
                       int64_t cols, cudaStream_t stream) {
  FW_REQUIRE(rows >= 0 && cols >= 0 && ld_in >= cols, "ld_in must be at least cols");
  if (rows == 0 || cols == 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = int(16 / sizeof(T));
    const bool vec = cols % V == 0 && ld_in % V == 0 && aligned16(gate) && aligned16(up) && aligned16(out);
    const int64_t work = rows * (vec ? cols / V : cols);
    const int threads = 256;
    const unsigned blocks = unsigned(std::min<int64_t>(ceil_div(work, threads), int64_t(sm_count()) * 32));
    const T* g = static_cast<const T*>(gate);
    const T* u = static_cast<const T*>(up);
    T* o = static_cast<T*>(out);
    if (vec)
      silu_gate_kernel<T, V><<<blocks, threads, 0, stream>>>(g, u, ld_in, o, rows, cols);
    else
      silu_gate_kernel<T, 1><<<blocks, threads, 0, stream>>>(g, u, ld_in, o, rows, cols);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
