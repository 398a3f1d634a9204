// The framework's matrix products: matmul (A[M,K] @ B[K,N]), bmm (batched), linear (x[M,K] @ W[N,K]^T + b).
// All row-major, contiguous. fp32 keeps fp32 accuracy unless the caller allows TF32: on cc 9.0 large
// problems run as three TF32 products of split operands (3xTF32), elsewhere fp32 SIMT; fp16/bf16 on tensor
// cores with fp32 accumulation, output rounded once to the input dtype.
//
// Paths, chosen per call (gemm_path() names the one a call would take):
//   fp32, allow_tf32  TF32 tensor cores, fp32 accumulation. On cc 9.0 the TMA + wgmma kernel below
//                     (TF32 operands = fp32 with the low mantissa bits ignored): W as [N,K] directly;
//                     B as [K,N] (no bias, N % 4 == 0) as the transposed problem C^T = B^T A^T, B^T's
//                     tiles loaded as they lie and read into registers for wgmma's register form (TF32
//                     wgmma reads K-major operands only from shared memory), C^T stored transposed, except
//                     where M >= 512 and that problem's tile is 64 rows (one consumer: the fragment loads
//                     go unhidden), which, like other B[K,N] with M >= 256, runs after transposing B into
//                     a per-device scratch; elsewhere
//                     mma.sync m16n8k8 (gemm_mma.cu, inputs rounded to nearest TF32). A B[K,N] vector (M = 1)
//                     that the cluster GEMV below takes stays on it.
//   fp32, B[K,N], M = 1, batch 1, N >= 2048, K >= 1024, 16-byte aligned, cc 9.0: the GEMV below
//                     (gemv_sm90.cu), 4 columns a lane.
//   W[N,K], M = 1, batch 1, N >= 2048, K >= 1024 (fp32, fp16, bf16): the row engine of the reductions over W's
//                     rows with a dot-product reducer (gemv_nk.cu): a warp a row, four 16-byte loads of W and of x a
//                     lane in flight together.
//   fp32, cc 9.0, K % 4 == 0, 16-byte aligned, B[K,N] (no bias, N % 4 == 0) or W[N,K], where the tiles of C^T
//                     times the K splits fill half a wave at M <= 64, and above it a wave of 128x128 tiles or a
//                     quarter of one of 128x64 tiles with K > 256 (tf32x3_split_a_pays): 3xTF32 in the kernel
//                     (gemm_tf32x3.cu, gemm_tf32x3_split_a). A is split into a scratch as big and small planes;
//                     the TF32 kernel of the transposed problem C^T = B^T A^T (or W A^T) loads B^T's (W's) tiles as
//                     they lie, splits each register fragment into its TF32 parts (the small one left for the
//                     tensor cores to truncate, tf32_split.hpp) and issues the three products of every k-step, each
//                     k-block's sum added in fp32 (+ a linear layer's bias). B is read once and never rewritten.
//                     Error against fp64 (normal operands, test_gemm_configs, K = 128-4096): normwise 3.0-3.4e-7
//                     for B[K,N] (H100), 3.0-3.5e-7 for W[N,K] with its bias (H200).
//   fp32, M <= 16     streaming kernel over B with split-K (gemm_skinny.cu), batch 1 only; before the 3xTF32 in
//                     the kernel above up to M = 4 with W[N,K] and M = 2 with B[K,N], where it was measured faster
//                     (gemm.cu, skinny_beats_split_a).
//   fp32, cc 9.0, K % 4 == 0, 16-byte aligned, M·N / (M + N) >= 512 and K >= 512: 3xTF32 (gemm_tf32x3.cu).
//                     A and B split into TF32 pairs (big + small, tf32_split.hpp), written to scratches as
//                     [A_big | A_big | A_small] and [B_big | B_small | B_big] (B[K,N] transposed first), and
//                     multiplied by the wgmma kernel's TF32 path with K tripled, each k-block's sum added in
//                     fp32 by the kernel (the tensor cores' own accumulation over K lost ~1e-8 K). Error
//                     against fp64 (H100, normal operands): normwise 2.5e-7 at K = 1024, 4.7e-7 at K = 4096,
//                     against cuBLAS's fp32 SIMT 5.7e-7 and 1.1e-6. An operand with ±inf gives NaN where an
//                     fp32 product gives ±inf (inf · 0 in a partial product).
//   fp32              SIMT kernel, warp-tiled (gemm_simt.cu): the tile configuration by problem size
//                     (simt_pick), double-buffered shared memory, 16-byte loads when the rows allow it,
//                     split-K when one problem has too few tiles to fill the GPU.
//   fp16/bf16, B[K,N], M = 1, batch 1, N >= 2048, K >= 1024, 16-byte aligned, cc 9.0: a stream over B
//                     (gemv_sm90.cu, 8 columns a lane): where N gives about one wave of 32-column strips and K
//                     is short, one CTA a strip over the whole of K, one kernel; elsewhere split along K, over
//                     a cluster of up to 8 CTAs summed in distributed shared memory or as plain CTAs whose
//                     partial sums a dependent kernel adds.
//   fp16/bf16, cc 9.0 TMA + wgmma kernel (gemm_sm90.cu), warp-specialized and persistent, when
//                     the tensor-map rules hold: A, B 16-byte aligned, K % 8 == 0, and for B as [K,N]
//                     also N % 8 == 0 (every row stride a multiple of 16 bytes). M, N, K need not be
//                     multiples of the tile (TMA zero-fills out-of-bounds boxes). The output goes out
//                     through TMA stores when C is 16-byte aligned and N % 8 == 0, else through
//                     bounds-checked stores from registers. The tile configuration and the split-K
//                     count come from one cost model fitted on the H100 (sm90_model_choice); a split
//                     writes fp32 partial sums to a per-device scratch, then a reduction kernel adds
//                     them and the bias and rounds once.
//   fp16/bf16, else   mma.sync m16n8k16 kernel (gemm_mma.cu): cp.async pipeline when the rows are
//                     16-byte aligned, element loads otherwise. Any shape, any element-aligned pointer.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "opbench/dtype.hpp"

namespace fw {

using opbench::DType;

// How B is stored: kn = [K, N] row-major (N contiguous: matmul, bmm); nk = [N, K] row-major (K
// contiguous: a linear layer's weight W, so the product is x @ W^T).
enum class GemmLayout { kn, nk };

// How a call's GEMM kernel is queued behind the kernel before it on the stream. after_previous: an ordinary,
// stream-ordered launch. dependent: a programmatic dependent launch (sm_90): its CTAs are scheduled and set up
// as that kernel's SMs free up (or on SMs it leaves idle), and every thread waits in griddepcontrol.wait, which
// returns once that kernel has completed and its writes are visible, before its first memory access. It pays
// after another GEMM, whose wgmma kernel allows its dependents from its start; after a kernel that never
// allows them it runs as an ordinary launch. Not after a kernel with more blocks than fit at once that allows
// dependents early: the GEMM's waiting CTAs would hold SMs its remaining blocks need. The wgmma path (16-bit,
// and TF32 without a kernel before the GEMM) queues this way; the other paths launch as usual.
enum class GemmLaunch { after_previous, dependent };

// C[b] = A[b] @ op(B[b]) (+ bias), b in [0, batch), each operand contiguous with batch stride M*K,
// K*N (or N*K) and M*N. A: [M, K]; C: [M, N]; bias: [N] or nullptr, shared by all batches. Sizes
// must be non-negative and below 2^31 each; K == 0 writes the bias (or zeros). Throws
// std::invalid_argument on bad arguments and fw::CudaError on a CUDA failure. Launches on `stream`
// (no synchronisation, no allocation), queued as `launch` says.
void gemm(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* bias, void* C,
          int64_t batch, int64_t M, int64_t N, int64_t K, bool allow_tf32, cudaStream_t stream,
          GemmLaunch launch = GemmLaunch::after_previous);

// The kernel (and tile configuration) gemm() picks for these arguments on the current device, e.g.
// "sm90_tma_wgmma 128x256", "mma_sync_cp_async", "simt_f32 128x128/8x16 vec4", "mma_sync_tf32_cp_async".
std::string gemm_path(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* C,
                      int64_t batch, int64_t M, int64_t N, int64_t K, bool allow_tf32 = false);

}  // namespace fw
