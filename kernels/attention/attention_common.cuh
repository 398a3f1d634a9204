// Device helpers shared by the attention forward and backward kernels: cp.async tile loads into
// swizzled shared memory, ldmatrix, mma.sync m16n8k16 (fp32 accumulators) and register packing.
//
// Shared tiles are [rows][D] of 16-bit elements, row-major, with the 16-byte chunk c of row r stored at
// chunk c ^ (r & 7): the 8 rows an ldmatrix phase reads at one logical chunk land on 8 different bank
// groups (conflict-free for rows of 128 and 256 bytes), and the cp.async writes stay 16-byte aligned.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/attention/attention.hpp"
#include "kernels/common/async_copy.cuh"
#include "kernels/common/types.cuh"

namespace fw::attn {

constexpr int kBlockM = 64;   // query rows per CTA (forward) / per step (backward): 4 warps x 16 rows
constexpr int kBlockN = 64;   // keys per tile (forward)
constexpr int kThreads = 128;  // forward; the backward's main kernel runs a warp per 16 keys of its block

// Element offset of (row, 8-element chunk) in a swizzled tile of D columns.
template <int D>
__device__ __forceinline__ int swz(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

// Loads rows [0, ROWS) x D of a global tile (row stride ld elements) into a swizzled shared tile; rows at
// or beyond `valid` are zero-filled, by the CTA's THREADS threads. VEC: the global rows are 16-byte
// aligned (cp.async, asynchronous); otherwise element loads (any alignment, synchronous), for views the
// harness shifts off alignment.
template <class T, int D, int ROWS, bool VEC, int THREADS = kThreads>
__device__ __forceinline__ void load_tile(T* s, const T* __restrict__ g, int64_t ld, int valid, int tid) {
  constexpr int kChunks = D / 8;
  static_assert(ROWS * kChunks % THREADS == 0, "whole chunks per thread");
#pragma unroll
  for (int i = 0; i < ROWS * kChunks / THREADS; ++i) {
    const int c = tid + i * THREADS;
    const int r = c / kChunks, ch = c % kChunks;
    T* dst = s + swz<D>(r, ch);
    const bool ok = r < valid;
    const T* src = ok ? g + int64_t(r) * ld + ch * 8 : g;
    if constexpr (VEC) {
      cp_async<16>(dst, src, ok);
    } else {
      Packet<T, 8> p;
#pragma unroll
      for (int i = 0; i < 8; ++i) p.v[i] = ok ? src[i] : from_float<T>(0.0f);
      *reinterpret_cast<Packet<T, 8>*>(dst) = p;  // shared memory (store_packet is for global)
    }
  }
}

// Stores the first `valid` of the 16 rows starting at `row0` of a swizzled shared tile to global memory
// (row stride ld), one warp.
template <class T, int D, bool VEC>
__device__ __forceinline__ void store_rows16(T* __restrict__ g, int64_t ld, const T* s, int row0, int valid,
                                             int lane) {
  constexpr int kChunks = D / 8;
#pragma unroll
  for (int i = 0; i < 16 * kChunks / 32; ++i) {
    const int c = lane + i * 32;
    const int r = c / kChunks, ch = c % kChunks;
    if (r >= valid) continue;
    const Packet<T, 8> p = *reinterpret_cast<const Packet<T, 8>*>(s + swz<D>(row0 + r, ch));
    T* dst = g + int64_t(r) * ld + ch * 8;
    if constexpr (VEC) {
      store_packet(dst, p);
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) dst[i] = p.v[i];
    }
  }
}

__device__ __forceinline__ void ldsm_x4(const void* p, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4_t(const void* p, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}

// Fire-and-forget vector adds into global fp32 (sm_90: one L2 request for 8 or 16 contiguous bytes; no
// value comes back, so the warp does not wait for it). 16- and 8-byte aligned addresses.
__device__ __forceinline__ void red_add(float* p, float4 v) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}
__device__ __forceinline__ void red_add(float* p, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
}

// d += a (16x16, row) * b (16x8, col), fp32 accumulators.
template <class T>
__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same<T, __half>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two fp32 values rounded to T and packed (lo in the low half), as an mma operand register.
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same<T, __half>::value) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
}

// A fragment (16 rows x 16 k) of a row-major swizzled tile: rows row0.., k columns 16*kk.. .
template <int D, class T>
__device__ __forceinline__ void load_a(const T* s, int row0, int kk, int lane, uint32_t (&a)[4]) {
  const int m = lane >> 3;
  ldsm_x4(s + swz<D>(row0 + ((m & 1) << 3) + (lane & 7), kk * 2 + (m >> 1)), a);
}

// B fragments of two n-tiles (n0.., n0+8..) x 16 k (k columns 16*kk..) from a tile stored [n][k]
// (k contiguous): b[0], b[1] for tile n0, b[2], b[3] for tile n0 + 8.
template <int D, class T>
__device__ __forceinline__ void load_b_nk(const T* s, int n0, int kk, int lane, uint32_t (&b)[4]) {
  const int m = lane >> 3;
  ldsm_x4(s + swz<D>(n0 + ((m >> 1) << 3) + (lane & 7), kk * 2 + (m & 1)), b);
}

// B fragments of two n-tiles (columns 16*np.., 16*np+8..) x 16 k (rows k0..) from a tile stored [k][n]
// (n contiguous), through ldmatrix.trans.
template <int D, class T>
__device__ __forceinline__ void load_b_kn(const T* s, int k0, int np, int lane, uint32_t (&b)[4]) {
  const int m = lane >> 3;
  ldsm_x4_t(s + swz<D>(k0 + ((m & 1) << 3) + (lane & 7), np * 2 + (m >> 1)), b);
}

// The accumulators of two adjacent 16x8 tiles (keys 16*kk.. of a 16x64 score tile) as the A operand of
// the next product (FA2 keeps P in registers).
template <class T>
__device__ __forceinline__ void acc_to_a(const float (&c0)[4], const float (&c1)[4], uint32_t (&a)[4]) {
  a[0] = pack2<T>(c0[0], c0[1]);
  a[1] = pack2<T>(c0[2], c0[3]);
  a[2] = pack2<T>(c1[0], c1[1]);
  a[3] = pack2<T>(c1[2], c1[3]);
}

// Writes a warp's 16 x (8 * NT) accumulator tile, rounded to T, into rows row0.. of a swizzled tile.
template <int D, int NT, class T>
__device__ __forceinline__ void acc_to_smem(T* s, int row0, const float (&c)[NT][4], int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    *reinterpret_cast<uint32_t*>(s + swz<D>(row0 + g, j) + 2 * t) = pack2<T>(c[j][0], c[j][1]);
    *reinterpret_cast<uint32_t*>(s + swz<D>(row0 + g + 8, j) + 2 * t) = pack2<T>(c[j][2], c[j][3]);
  }
}

struct Args {
  const void *q, *k, *v, *o, *d_o;
  void *out, *dq, *dk, *dv;
  const float* lse_in;
  float* lse_out;
  float* dq_accum;
  float* delta;
  float* lse_log2;  // backward: lse * log2(e) per (b, h, i), -inf -> 0 (the delta kernel writes it)
  float *dk_accum, *dv_accum;  // backward with the group's heads split over CTAs: fp32 sums; else null
  int64_t dkv_clear4;          // backward: float4s from dk_accum the delta kernel clears (both sums; 0: none)
  int heads_per_cta;           // backward: query heads of the group one CTA loops over
  int seq_q, seq_kv, heads_q, heads_kv, group;
  int off;            // seq_kv - seq_q: query i sees keys j <= i + off (causal)
  bool causal;
  float scale;        // softmax scale
  float scale_log2;   // scale * log2(e): scores in log2 units for ex2
};

// Host side, defined in attention_forward.cu.
bool aligned16(const void* p);
void check_shape(const AttentionShape& s);  // throws std::invalid_argument
Args make_args(const AttentionShape& s);

}  // namespace fw::attn
