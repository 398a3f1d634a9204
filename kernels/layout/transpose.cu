// Transpose of the last two dims, materialized: src [batch, M, N] → dst [batch, N, M]
// (torch: x.transpose(-1, -2).contiguous()).
//
// Versions:
//  - vec (16-byte loads AND stores on both sides): taken when both pointers are 16-B aligned and M, N
//    are multiples of V = 16/size (4 fp32, 8 fp16/bf16), so every row of src and dst starts 16-B
//    aligned. One block of 256 threads per T x T tile (T = 16*V: 64 fp32, 128 fp16/bf16; 16 / 32 KiB of
//    shared memory). Thread (a = t/16, v = t%16) loads the V x V sub-block at rows a*V.., cols v*V.. with
//    V 16-byte loads (a warp reads 2 (fp32) or 4 (16-bit) full rows of the tile: coalesced), transposes
//    it in registers (fp32: register renaming; 16-bit: 2x2 blocks of halves with byte permutes), and
//    writes its V output rows to the shared-memory tile of the OUTPUT with 16-byte stores. The tile is
//    XOR-swizzled (16-byte column c of row j stored at c ^ ((j/V) & 7)) so that both the 16-byte
//    writes (8 lanes of a quarter-warp: 8 different rows) and the 16-byte reads (8 lanes: one row) hit
//    8 distinct 16-byte bank groups: no conflicts. After one barrier each thread reads V 16-byte vectors
//    of output rows and stores them (a warp writes 2 full 256-B output rows). Edge tiles are predicated
//    per V x V sub-block and per 16-byte vector (whole ones are in or out because M, N are multiples of
//    V). Several tiles are in flight per SM (16/32 KiB smem, 256 threads per block).
//  - scalar: any alignment/size: 32x32 tiles, element loads/stores, padded shared memory (odd shapes).
//  - M == 1 or N == 1: the transpose moves nothing in memory: a plain copy (row_copy.cu).
//
// Bytes: read + write batch*M*N*size each: 8192x8192 fp32 = 512 MiB → ~179 us at the measured copy
// bandwidth (~3.0 TB/s) on H100; the floor is the copy's.
// Measured on H100 (median, L2 flushed; LibTorch = x.transpose(-1,-2).contiguous() in torch 2.11):
//   fp32 8192^2 199.0 us (2.70 TB/s, 91% of cudaMemcpy) vs 552.8 us: 2.78x;  128x512x512 96.0 vs 268.4
//   bf16 8192^2 100.8 us (2.66 TB/s, 90%)              vs 514.7 us: 5.10x;  128x512x512 51.5 vs 230.7
//   scalar path, fp32 1023x1025: 7.7 vs 12.8 us.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/types.cuh"
#include "kernels/layout/layout.hpp"

namespace fw::layout {
namespace {

constexpr int kThreads = 256;

// Tile decomposition shared by both versions: blockIdx.x → (batch b, tile row tm, tile col tn).
struct TileGrid {
  int64_t M, N, tiles_m, tiles_n;
};

__device__ __forceinline__ void tile_of(const TileGrid& g, int64_t& b, int64_t& tm, int64_t& tn) {
  const int64_t t = blockIdx.x;
  tn = t % g.tiles_n;
  const int64_t rest = t / g.tiles_n;
  tm = rest % g.tiles_m;
  b = rest / g.tiles_m;
}

// V x V transpose in registers of V 16-byte vectors: x[q] = row q → y[p] = column p.
template <int ES>
__device__ __forceinline__ void transpose_regs(const uint4 (&x)[16 / ES], uint4 (&y)[16 / ES]) {
  if constexpr (ES == 4) {
    y[0] = make_uint4(x[0].x, x[1].x, x[2].x, x[3].x);
    y[1] = make_uint4(x[0].y, x[1].y, x[2].y, x[3].y);
    y[2] = make_uint4(x[0].z, x[1].z, x[2].z, x[3].z);
    y[3] = make_uint4(x[0].w, x[1].w, x[2].w, x[3].w);
  } else {
    // 8x8 of 16-bit: y[p] word w = (x[2w] elem p, x[2w+1] elem p); elem p sits in word p/2, half p%2.
    uint32_t xw[8][4];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      xw[q][0] = x[q].x;
      xw[q][1] = x[q].y;
      xw[q][2] = x[q].z;
      xw[q][3] = x[q].w;
    }
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      const uint32_t sel = (p & 1) ? 0x7632u : 0x5410u;
      uint32_t yw[4];
#pragma unroll
      for (int w = 0; w < 4; ++w) yw[w] = __byte_perm(xw[2 * w][p / 2], xw[2 * w + 1][p / 2], sel);
      y[p] = make_uint4(yw[0], yw[1], yw[2], yw[3]);
    }
  }
}

// Blocks an SM the kernel is bounded to keep resident: fp32 8 (32 registers), 16-bit 5 (48; at 6 it spilled). With the
// sub-block test below, unbounded, fp32 took 34 registers (6 blocks) and ran 1-3% slower at every size; the 16-bit
// kernel, at 48 registers where it had 54 (4 blocks), runs 3.5-7.5% faster up to 8 MB and ~1% at 32-64 MB (H200,
// x112-x114; notes/performance.md, forty-fourth round).
template <int ES>
constexpr int kVecMinBlocks = ES == 4 ? 8 : 5;

template <int ES>
__global__ void __launch_bounds__(kThreads, kVecMinBlocks<ES>)
    transpose_vec_kernel(const char* __restrict__ src, char* __restrict__ dst, const TileGrid g) {
  constexpr int V = 16 / ES;  // elements per 16-byte vector
  constexpr int T = 16 * V;   // tile edge, elements (16 vectors)
  __shared__ uint4 tile[T][16];  // the OUTPUT tile: T rows (input columns) of 16 vectors (T input rows)
  allow_dependents();  // a GEMM that reads the result may be queued as a dependent launch (gemm.cu)

  int64_t b, tm, tn;
  tile_of(g, b, tm, tn);
  const int64_t row0 = tm * T, col0 = tn * T;  // in input coordinates
  const int64_t plane = g.M * g.N * ES;
  const char* in = src + b * plane;
  char* out = dst + b * plane;
  const int t = threadIdx.x;

  // Load the V x V sub-block (rows a*V + q, cols v*V ..). M and N are multiples of V: a sub-block is wholly in the
  // plane or wholly out, and only those in are transposed and stored (an edge tile's others are never read).
  const int v = t % 16, a = t / 16;
  const int64_t c = col0 + v * V;
  if (row0 + a * V < g.M && c < g.N) {
    uint4 x[V];
#pragma unroll
    for (int q = 0; q < V; ++q) x[q] = __ldg(reinterpret_cast<const uint4*>(in + ((row0 + a * V + q) * g.N + c) * ES));
    uint4 y[V];
    transpose_regs<ES>(x, y);
    // Output-tile row v*V + p, 16-byte column a (swizzled by the row's V-group v).
#pragma unroll
    for (int p = 0; p < V; ++p) tile[v * V + p][a ^ (v & 7)] = y[p];
  }
  __syncthreads();

  const int w = t % 16;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const int j = k * 16 + t / 16;             // output-tile row
    const int64_t orow = col0 + j;             // output row (an input column)
    const int64_t ocol = row0 + w * V;         // output column (an input row)
    if (orow < g.N && ocol < g.M) {
      const uint4 val = tile[j][w ^ ((j / V) & 7)];
      *reinterpret_cast<uint4*>(out + (orow * g.M + ocol) * ES) = val;
    }
  }
}

template <class E>
__global__ void __launch_bounds__(kThreads) transpose_scalar_kernel(const E* __restrict__ src, E* __restrict__ dst,
                                                                    const TileGrid g) {
  __shared__ uint32_t tile[32][33];
  allow_dependents();
  int64_t b, tm, tn;
  tile_of(g, b, tm, tn);
  const int64_t row0 = tm * 32, col0 = tn * 32;
  const int64_t plane = g.M * g.N;
  const E* in = src + b * plane;
  E* out = dst + b * plane;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t r = row0 + ty + 8 * k, c = col0 + tx;
    if (r < g.M && c < g.N) tile[ty + 8 * k][tx] = in[r * g.N + c];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t orow = col0 + ty + 8 * k, ocol = row0 + tx;
    if (orow < g.N && ocol < g.M) out[orow * g.M + ocol] = E(tile[tx][ty + 8 * k]);
  }
}

}  // namespace

void transpose_last2(const void* src, void* dst, int64_t batch, int64_t M, int64_t N, DType dt,
                     cudaStream_t stream) {
  if (dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw std::invalid_argument(std::string("transpose_last2: unsupported dtype ") + opbench::dtype_name(dt));
  FW_REQUIRE(batch >= 0 && M >= 0 && N >= 0, "negative size");
  if (batch == 0 || M == 0 || N == 0) return;
  if (M == 1 || N == 1) {  // same bytes in the same order
    copy(src, dst, batch * M * N, dt, stream);
    return;
  }
  const int es = int(opbench::dtype_size(dt));
  FW_REQUIRE(reinterpret_cast<uintptr_t>(src) % es == 0 && reinterpret_cast<uintptr_t>(dst) % es == 0,
             "pointers not aligned to the element size");
  const int V = 16 / es;
  const bool vec = reinterpret_cast<uintptr_t>(src) % 16 == 0 && reinterpret_cast<uintptr_t>(dst) % 16 == 0 &&
                   M % V == 0 && N % V == 0;
  const int64_t T = vec ? 16 * V : 32;
  TileGrid g{M, N, ceil_div(M, T), ceil_div(N, T)};
  const int64_t blocks = batch * g.tiles_m * g.tiles_n;
  FW_REQUIRE(blocks <= int64_t(INT32_MAX), "too many tiles");
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (vec) {
    if (es == 4) transpose_vec_kernel<4><<<unsigned(blocks), kThreads, 0, stream>>>(s, d, g);
    else transpose_vec_kernel<2><<<unsigned(blocks), kThreads, 0, stream>>>(s, d, g);
  } else {
    if (es == 4)
      transpose_scalar_kernel<uint32_t><<<unsigned(blocks), kThreads, 0, stream>>>(
          static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), g);
    else
      transpose_scalar_kernel<uint16_t><<<unsigned(blocks), kThreads, 0, stream>>>(
          static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), g);
  }
  FW_CHECK_LAUNCH();
}

}  // namespace fw::layout
