// Backward kernels of rope and silu_gate (transformer.hpp). Both are memory-bound element-wise passes.
//
// rope_backward: dx = R(-a) dy, the transposed rotation at the forward's angles (rope_angle.cuh, shared
// with rope.cu so both rotate by bit-identical angles). One thread per (token, pair group of V pairs,
// chunk of up to kHeadsPerThread heads): the V sin/cos of a token's pair group serve every head of the
// chunk (all heads of a token share the angles), so the double-precision inv_freq and the precise
// sincosf cost 1/kHeadsPerThread per pair. 16-byte packets when half % V == 0 and both pointers are
// aligned; one pair per step otherwise. Bytes: 2 * numel * s.
//
// silu_gate_backward: with s = sigmoid(g): d_up = dout g s, d_gate = dout up s (1 + g (1 - s)). Reads
// dout, gate, up and writes d_gate, d_up: 5 * rows * cols * s bytes. expf is the precise one: at the
// zero of 1 + g (1 - s) (g ~ -1.28) __expf's error (~2^-21 relative, growing with |g|) would dominate an
// fp32 result, and the kernel has ~20 instructions per element to spare at the bf16 element rate.
//
// Index arithmetic is 32-bit when the work fits (a 64-bit division costs ~5x a 32-bit one, and each work
// item carries two or three of them).
#include <algorithm>
#include <cmath>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/transformer/rope_angle.cuh"
#include "kernels/transformer/transformer.hpp"

namespace fw {
namespace {

constexpr int kThreads = 256;
constexpr int kHeadsPerThread = 4;

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// 32-bit loop indices when the loop's end plus a whole grid stride stays below 2^31.
bool fits32(int64_t total, int64_t blocks) { return total + blocks * kThreads < (int64_t(1) << 31); }

unsigned grid_for(int64_t work) { return unsigned(std::min<int64_t>(ceil_div(work, kThreads), int64_t(sm_count()) * 32)); }

// dy and dx are not __restrict__: dx == dy is allowed. Each thread loads all its elements before it
// stores any, and no two threads touch the same element.
template <class T, int V, class I>
__global__ void __launch_bounds__(kThreads) rope_backward_kernel(const T* dy, T* dx, I items, I groups, I nhc,
                                                                 int64_t heads, int64_t half, int64_t seq_len,
                                                                 int64_t pos_offset, double log2_theta) {
  for (I k = I(blockIdx.x) * kThreads + I(threadIdx.x); k < items; k += I(gridDim.x) * kThreads) {
    const I g = k % groups, rest = k / groups;
    const I hc = rest % nhc, token = rest / nhc;
    const int64_t p = pos_offset + int64_t(token) % seq_len;
    float s[V], c[V];
#pragma unroll
    for (int j = 0; j < V; ++j) rope_sincos(p, rope_inv_freq(int64_t(g) * V + j, half, log2_theta), &s[j], &c[j]);
    const int64_t h0 = int64_t(hc) * kHeadsPerThread;
    const int64_t base0 = (int64_t(token) * heads + h0) * 2 * half + int64_t(g) * V;
    Packet<T, V> a[kHeadsPerThread], b[kHeadsPerThread];
#pragma unroll
    for (int h = 0; h < kHeadsPerThread; ++h)
      if (h0 + h < heads) {
        a[h] = *reinterpret_cast<const Packet<T, V>*>(dy + base0 + h * 2 * half);
        b[h] = *reinterpret_cast<const Packet<T, V>*>(dy + base0 + h * 2 * half + half);
      }
#pragma unroll
    for (int h = 0; h < kHeadsPerThread; ++h)
      if (h0 + h < heads) {
        Packet<T, V> o0, o1;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float d0 = to_float(a[h].v[j]), d1 = to_float(b[h].v[j]);
          o0.v[j] = from_float<T>(d0 * c[j] + d1 * s[j]);
          o1.v[j] = from_float<T>(d1 * c[j] - d0 * s[j]);
        }
        store_packet(dx + base0 + h * 2 * half, o0);
        store_packet(dx + base0 + h * 2 * half + half, o1);
      }
  }
}

template <class T, int V, class I>
__global__ void __launch_bounds__(kThreads)
    silu_gate_backward_kernel(const T* __restrict__ dout, const T* __restrict__ gate, const T* __restrict__ up,
                              int64_t ld_in, T* __restrict__ d_gate, T* __restrict__ d_up, int64_t ld_out, I total,
                              I per_row) {
  const int64_t cols = int64_t(per_row) * V;
  for (I k = I(blockIdx.x) * kThreads + I(threadIdx.x); k < total; k += I(gridDim.x) * kThreads) {
    const I r = k / per_row;
    const int64_t c = int64_t(k - r * per_row) * V, row = int64_t(r);
    const Packet<T, V> d = *reinterpret_cast<const Packet<T, V>*>(dout + row * cols + c);
    const Packet<T, V> g = *reinterpret_cast<const Packet<T, V>*>(gate + row * ld_in + c);
    const Packet<T, V> u = *reinterpret_cast<const Packet<T, V>*>(up + row * ld_in + c);
    Packet<T, V> dg, du;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float gv = to_float(g.v[j]), dv = to_float(d.v[j]);
      const float s = 1.0f / (1.0f + expf(-gv));
      du.v[j] = from_float<T>(dv * gv * s);
      dg.v[j] = from_float<T>(dv * to_float(u.v[j]) * s * fmaf(gv, 1.0f - s, 1.0f));
    }
    store_packet(d_gate + row * ld_out + c, dg);
    store_packet(d_up + row * ld_out + c, du);
  }
}

template <class T, int V>
void launch_rope_backward(const T* dy, T* dx, int64_t tokens, int64_t heads, int64_t half, int64_t seq_len,
                          int64_t pos_offset, double log2_theta, cudaStream_t stream) {
  const int64_t groups = half / V, nhc = ceil_div(heads, kHeadsPerThread), items = tokens * nhc * groups;
  const unsigned blocks = grid_for(items);
  if (fits32(items, blocks))
    rope_backward_kernel<T, V, uint32_t><<<blocks, kThreads, 0, stream>>>(
        dy, dx, uint32_t(items), uint32_t(groups), uint32_t(nhc), heads, half, seq_len, pos_offset, log2_theta);
  else
    rope_backward_kernel<T, V, int64_t><<<blocks, kThreads, 0, stream>>>(dy, dx, items, groups, nhc, heads, half,
                                                                         seq_len, pos_offset, log2_theta);
}

template <class T, int V>
void launch_silu_gate_backward(const T* dout, const T* gate, const T* up, int64_t ld_in, T* d_gate, T* d_up,
                               int64_t ld_out, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t per_row = cols / V, total = rows * per_row;
  const unsigned blocks = grid_for(total);
  if (fits32(total, blocks))
    silu_gate_backward_kernel<T, V, uint32_t><<<blocks, kThreads, 0, stream>>>(
        dout, gate, up, ld_in, d_gate, d_up, ld_out, uint32_t(total), uint32_t(per_row));
  else
    silu_gate_backward_kernel<T, V, int64_t><<<blocks, kThreads, 0, stream>>>(dout, gate, up, ld_in, d_gate, d_up,
                                                                              ld_out, total, per_row);
}

}  // namespace

void rope_backward(opbench::DType dt, const void* dy, void* dx, int64_t tokens, int64_t heads, int64_t head_dim,
                   int64_t seq_len, int64_t pos_offset, double theta, cudaStream_t stream) {
  FW_REQUIRE(tokens >= 0 && heads > 0 && head_dim > 0 && head_dim % 2 == 0, "head_dim must be even and positive");
  FW_REQUIRE(seq_len > 0 && pos_offset >= 0 && theta > 1, "seq_len > 0, pos_offset >= 0, theta > 1");
  if (tokens == 0) return;
  FW_REQUIRE(dy != nullptr && dx != nullptr, "null pointer");
  const int64_t half = head_dim / 2;
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = int(16 / sizeof(T));
    const T* in = static_cast<const T*>(dy);
    T* out = static_cast<T*>(dx);
    // Packets of V pairs: the halves and every head's row then start on 16-byte boundaries too.
    if (half % V == 0 && aligned16(dy) && aligned16(dx))
      launch_rope_backward<T, V>(in, out, tokens, heads, half, seq_len, pos_offset, std::log2(theta), stream);
    else
      launch_rope_backward<T, 1>(in, out, tokens, heads, half, seq_len, pos_offset, std::log2(theta), stream);
  });
  FW_CHECK_LAUNCH();
}

void silu_gate_backward(opbench::DType dt, const void* dout, const void* gate, const void* up, int64_t ld_in,
                        void* d_gate, void* d_up, int64_t ld_out, int64_t rows, int64_t cols, cudaStream_t stream) {
  FW_REQUIRE(rows >= 0 && cols >= 0 && ld_in >= cols && ld_out >= cols, "ld_in and ld_out must be at least cols");
  if (rows == 0 || cols == 0) return;
  FW_REQUIRE(dout != nullptr && gate != nullptr && up != nullptr && d_gate != nullptr && d_up != nullptr,
             "null pointer");
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = int(16 / sizeof(T));
    const bool vec = cols % V == 0 && ld_in % V == 0 && ld_out % V == 0 && aligned16(dout) && aligned16(gate) &&
                     aligned16(up) && aligned16(d_gate) && aligned16(d_up);
    const T* d = static_cast<const T*>(dout);
    const T* g = static_cast<const T*>(gate);
    const T* u = static_cast<const T*>(up);
    T* dg = static_cast<T*>(d_gate);
    T* du = static_cast<T*>(d_up);
    if (vec)
      launch_silu_gate_backward<T, V>(d, g, u, ld_in, dg, du, ld_out, rows, cols, stream);
    else
      launch_silu_gate_backward<T, 1>(d, g, u, ld_in, dg, du, ld_out, rows, cols, stream);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
