// Tensor-core GEMM for Hopper (sm_90a): C[b] = A[b] @ op(B[b]) (+ bias), fp32 accumulation; fp16/bf16,
// and fp32 on TF32 when the caller allows it (W as [N, K] only: TF32 wgmma reads K-major operands; gemm.cu
// transposes a B[K, N] into a scratch first). TF32 operands are the fp32 values with the low 13 mantissa
// bits ignored by the tensor cores (truncation), as loaded by TMA. fp32 at fp32 accuracy without splitting B in
// memory (3xTF32, gemm_tf32x3.cu's gemm_tf32x3_split_a) runs the transposed problem with two B boxes a stage (the
// big and small TF32 parts of fw::gemm's A) and its A fragments (fw::gemm's B[K, N] or W[N, K]) loaded into
// registers and split in the kernel (SPLIT_B).
//
// One persistent, warp-specialized kernel, templated on the tile configuration (gemm_detail.hpp):
//   - warpgroup 0 is the producer: one thread issues TMA loads (cp.async.bulk.tensor, 128-byte swizzle)
//     of A [BM x 128 bytes of K] and B k-blocks into a ring of shared-memory stages; each stage has a
//     "full" mbarrier (TMA transaction bytes) and an "empty" mbarrier (one arrival per consumer
//     warpgroup of every CTA that reads it).
//   - warpgroups 1..NC are consumers: each owns 64 rows of the tile and issues wgmma.mma_async
//     m64nBNk16 (k8 for TF32; A K-major; B K-major for W[N,K], N-major through the descriptor's
//     transpose bit for B[K,N]), keeping one k-block of wgmma in flight.
//   - Epilogue: fp32 accumulators (+ bias: read before the tile's main loop, staged in shared memory)
//     -> dtype -> a 128-byte-swizzled staging buffer of 64 rows x 128 bytes (64 bytes, 64-byte swizzle, for
//     the 160- and 224-wide tiles; stmatrix for 16 bits; two buffers per consumer where they fit) -> TMA store (clips
//     the tails). C that cannot be a TMA target (not 16-byte aligned, rows not a multiple of 16 bytes),
//     split-K's partial sums, 3xTF32's tiles and the register-A kernels' transposed tiles below 128 wide are
//     stored from registers straight to global memory, bounds-checked.
//   - The grid is one CTA per SM (persistent) walking the output tiles in M-grouped order (16 tile rows
//     per group) for L2 reuse. setmaxnreg gives 2-consumer configurations 232 registers per consumer
//     thread and 40 per producer thread.
//   - Cluster configurations (a pair along M sharing its B tile through TMA multicast) are implemented
//     and correct. Until the consumers' remote release lost its cluster-scope fence (mbar_arrive_cluster) a
//     pair paid for it every k-block (~510 vs ~780 TFLOP/s at 4096^3; [512, 4864] @ W[896, 4864]^T 69 us in
//     128x128 pairs against 28 unpaired; a 64x64 pair, tried and dropped then, 59 us against 18; gemm_sweep).
//     Since, 128x256 pairs run as fast as single CTAs, not faster (bf16 4096^3 175.9 against 174.0 us, 4096x896
//     x4864 52.7 against 51.5; bench_ops, H100): sm90_pick does not choose them. A pair also paid a fixed cost
//     a launch, its two cluster barriers (globaltimer stamps, 2048^3: +0.5-0.75 us at the start, +0.75-1.8 at
//     exit); they went: the arrive after the barriers' initialization is relaxed, each thread waits only before
//     its first remote operation, the first STAGES k-blocks load the whole B tile in each CTA, and the producer's
//     tail (every stage released by both CTAs) replaces the barrier at exit. gemm_sweep, H100, 2048^3 bf16 kn:
//     pair 27.49 us against 26.62 unpaired (29.44 against 26.82 before, another H100); stamps: first CTA start to
//     last exit 24.00 us against 24.13.
// Out-of-range rows/columns/k: TMA fills zeros on load and clips on store, so tails need no special case.
// Where the fill costs about as much as a load, loads stop short instead and the stale shared memory only feeds
// accumulators the epilogue never stores: A's (and C's) boxes at M when all of M is one short tile (decode-like
// M < BM; see launch), W[N, K]'s rows at N in the last column of tiles (b_tail_rows), and B[K, N]'s 64-column
// chunks wholly past N (the producer).
// The tensor maps are built on the host (cuTensorMapEncodeTiled, obtained through
// cudaGetDriverEntryPointByVersion, so nothing links libcuda) and cached per thread by (address, dims).
//
// Cost: 2*B*M*N*K FLOPs; bytes at least (M*K + K*N + M*N)*2*B. For 4096^3: 137 GFLOP, 100 MB, so
// compute-bound: at the H100 SXM dense bf16 peak (989 TFLOP/s) the floor is 139 us. Measured on the
// H100 here: 740-785 TFLOP/s at 4096^3 (cuBLAS 670-800 in the same runs).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>

#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_common.cuh"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/matmul/tf32_split.hpp"

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FW_MATMUL_SM90A 1
#include "kernels/matmul/sm90_wgmma.cuh"
#endif

namespace fw::sm90 {

// Element type T: __half / __nv_bfloat16, or float for TF32. A k-block is one 128-byte swizzle row of
// K: 64 16-bit or 32 fp32 elements, four wgmma k-steps of 32 bytes (k16 or k8 TF32).
// BLOCK_SUMS (Accumulate::per_k_block): wgmma sums each k-block into its own registers and the consumer adds
// that block sum to the tile's accumulators with fp32 adds (round to nearest). That takes a second set of
// BN / 2 accumulators a thread (so BN <= 192, within the 232 registers a consumer gets) and a wait for each
// k-block's wgmma before the next is issued.
// SPLIT_B (3xTF32 in a register-A kernel, gemm_tf32x3_split_a): each stage holds two B boxes, B's big and small TF32
// parts (GemmArgs::a_split's planes), and the consumers split their A fragments; block sums throughout.
// KSPLIT (a K-pair, CL = 2): the cluster's two CTAs take the same tile, the first half of its k-blocks and the
// second; the second CTA's consumers put their fp32 sums into the first's shared memory (RED_BYTES, through
// distributed shared memory) and the first adds them before its epilogue. CLM: the CTAs of a cluster along M.
template <class T, int BN_, int NC_, int STAGES_, int CL_, bool BLOCK_SUMS_ = false, bool SPLIT_B_ = false,
          bool KSPLIT_ = false>
struct TileCfg {
  static constexpr int BN = BN_, NC = NC_, STAGES = STAGES_, CL = CL_;
  static constexpr bool BLOCK_SUMS = BLOCK_SUMS_, SPLIT_B = SPLIT_B_, KSPLIT = KSPLIT_;
  static constexpr int CLM = KSPLIT ? 1 : CL;
  static constexpr int BM = 64 * NC;
  static constexpr int ESZ = int(sizeof(T));
  static constexpr int BK = 128 / ESZ;  // elements of K per k-block
  static constexpr int A_BYTES = BM * 128;
  static constexpr int B_BOX_BYTES = BN * 128;  // one B box (a k-block of BN rows)
  static constexpr int B_BYTES = (SPLIT_B ? 2 : 1) * B_BOX_BYTES;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static constexpr int THREADS = 128 * (NC + 1);
  // Shared memory: the stages, the barriers, the bias, then (1024-byte aligned) the epilogue's staging for
  // C's TMA stores: per consumer, chunks of 64 rows x 128 bytes (64 16-bit or 32 fp32 columns; 8 KB, 128-byte
  // swizzle), or of 64 rows x 64 bytes (64-byte swizzle) where BN is not a multiple of 128 bytes (the 160-
  // and 224-wide tiles), two buffers where they fit (fp32 128x256: one). fp32 with BLOCK_SUMS (3xTF32) stores from
  // registers and has neither the staging nor the code: with the TMA-store epilogue compiled in, used or
  // not, its fp32 8192^3 took 13.6 ms against 11.1-11.3 (bench_ops, H100, two leases; the cause was not
  // measured). An fp32 launch that stores from registers (split partial sums, unaligned C) leaves the
  // staging out of its dynamic shared memory, as before the staging existed.
  static constexpr int C_ROW_BYTES = (BN * ESZ) % 128 == 0 ? 128 : 64;  // a staged chunk's row, its swizzle span
  static constexpr int C_CHUNK_COLS = C_ROW_BYTES / ESZ;
  static constexpr int BIAS_BYTES = NC * BN * ESZ;  // per consumer: the tile's bias
  static constexpr int C_OFFSET = (STAGES * STAGE_BYTES + 2 * STAGES * 8 + BIAS_BYTES + 1023) / 1024 * 1024;
  // KSPLIT: after the staging, per consumer BN / 2 fp32 sums of each of its 128 threads (16-byte groups, thread-
  // minor: conflict-free), then two barriers (the sums are in; the first CTA has read them).
  static constexpr int RED_BYTES = KSPLIT ? NC * (BN / 2) * 128 * 4 + 16 : 0;
  static constexpr int C_BUFS = C_OFFSET + NC * 2 * 8192 + RED_BYTES + 1024 <= 227 * 1024 ? 2 : 1;
  static constexpr int C_BYTES = ESZ == 4 && BLOCK_SUMS ? 0 : NC * C_BUFS * 8192;
  static constexpr int RED_OFFSET = C_OFFSET + C_BYTES;
  static constexpr int SMEM = RED_OFFSET + RED_BYTES + 1024;  // + the base's alignment
  // BN: a multiple of 64, or of 32 for 16-bit tiles (then for W[N, K] only: B[K, N] comes in 64-column boxes,
  // sm90_config_takes).
  static_assert((BN % 64 == 0 || (BN % 32 == 0 && ESZ == 2 && CL == 1)) && BN <= 256, "BN");
  static_assert(CL == 1 || (CL == 2 && (BN >= 128 || KSPLIT)), "a cluster pair splits B into two boxes");
  static_assert(!KSPLIT || (CL == 2 && !BLOCK_SUMS), "a K-pair: two CTAs, tensor-core sums");
  static_assert(!BLOCK_SUMS || BN <= 192, "block sums take a second set of accumulators");
  static_assert(!SPLIT_B || (ESZ == 4 && BLOCK_SUMS && CL == 1), "3xTF32 in the kernel: TF32, block sums");
  static_assert(SMEM <= 227 * 1024, "shared memory");
};

struct Params {
  void* C;
  const void* bias;
  int M, N, K, batch;
  int cm_tiles;  // cluster tiles along M: ceil(M / (CLM * BM))
  int n_tiles;   // ceil(N / BN)
  int group_m;   // cluster tiles per group along M (tile order)
  uint32_t b_lbo, b_sbo;  // N-major B descriptor: byte offsets between 64-column chunks / 8-row k groups
  int tma_store;          // 1: epilogue through shared memory + TMA store (C 16-byte aligned, 16-byte rows)
  int c_evict_first;      // 1: M-major A's TMA stores mark C's lines evict-first in L2 (C larger than L2; see launch)
  // Rows of A each k-block's TMA load brings: BM, or M rounded up to 8 when the whole of M is one short
  // tile (decode-like M < BM). The rows past it in the stage are stale; they only feed accumulator rows
  // >= M, which the epilogue never stores.
  int a_rows;
  // W[N, K] (cluster-free) with N % BN != 0: the rows of B the last column tile's loads bring, N % BN rounded
  // up to 8, through a second tensor map with that box (0: every tile loads BN rows). As for A, the rows past
  // it are stale and only feed columns >= N. A box half outside N cost as much as a full one: bf16
  // [4096, 4864] @ W[896, 4864]^T took 63-64 us on 128x256 tiles, against 52.5 for B[K, N] (whose 64-column
  // boxes past N lie wholly outside) and 54 for N = 1024 (gemm_sweep, H100).
  int b_tail_rows;
  // Split-K (splits > 1): unit u works on k-blocks [s * kb_per_split, (s + 1) * kb_per_split) of its tile,
  // s = u / tiles, and stores fp32 partial sums (no bias) to partial[s][b][M][N]; k_splitk_reduce adds
  // them up.
  int splits;
  int kb_per_split;
  float* partial;
};

// What a kernel's epilogue writes: C in T (plain, or + bias), or a split's fp32 partial sums. A template
// parameter, so that the unsplit kernels carry neither the bias code when they have no bias nor the
// partial-sum stores (split kernels exist for 16-bit, cluster-free configurations only).
enum class Epi { plain, bias, partial };

// Where the kernel's A operand comes from. smem: wgmma reads A's TMA tiles (K-major) from shared memory. The
// register-A kernels (TF32 only) run a transposed problem, C^T = op(B)^T A^T, whose A is fw::gemm's B: each thread
// loads its fragments from the TMA tile for wgmma's register form (TF32 wgmma reads K-major operands only from
// shared memory), and the epilogue stores the tile transposed. regs_m_major: A as it lies M-major (fw::gemm's
// B[K, N], sm90_tf32_kn_supported, and its 3xTF32 form); regs_k_major: A K-major (a linear layer's W[N, K]), for
// 3xTF32 in the kernel only (SPLIT_B: splitting the fragments is what the registers are for; a bias, per row of
// C^T, is added by its epilogue, or by the split-K reduction).
enum class AFrom { smem, regs_m_major, regs_k_major };

// Whether a kernel has the epilogue through shared memory and TMA stores (a launch uses it where C allows, see
// launch): its configuration has the staging, it stores C (not split partials), and a register-A kernel's tiles
// are 128 or 256 wide (its 64-wide tiles store from registers; launch says why).
template <class Cfg, Epi E, AFrom AF>
constexpr bool has_tma_store() {
  return Cfg::C_BYTES > 0 && E != Epi::partial && (AF == AFrom::smem || Cfg::BN >= 128);
}

#ifdef FW_MATMUL_SM90A
using gemm_dev::smem_u32;
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// The memory ordering of an mbarrier wait (its acquire) and of an arrive on another CTA's barrier (its release):
// the instructions' defaults (.cta), or cluster scope for a K-pair's exchange (mbar_arrive_cluster says which is
// used where). SEM below is the instruction's qualifier, "" or ".acquire.cluster" / ".release.cluster".
enum class MbarOrder { cta, cluster };
#define FW_MBAR_TRY_WAIT(SEM)                                          \
  asm volatile(                                                        \
      "{\n.reg .pred p;\n"                                             \
      "mbarrier.try_wait.parity" SEM ".shared::cta.b64 p, [%1], %2;\n" \
      "selp.u32 %0, 1, 0, p;\n}\n"                                     \
      : "=r"(done)                                                     \
      : "r"(bar), "r"(parity)                                          \
      : "memory")
template <MbarOrder O = MbarOrder::cta>
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    if constexpr (O == MbarOrder::cluster)
      FW_MBAR_TRY_WAIT(".acquire.cluster");
    else
      FW_MBAR_TRY_WAIT("");
  } while (!done);
}
#undef FW_MBAR_TRY_WAIT
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Arrive on the barrier at the same shared-memory offset in CTA `cta` of the cluster.
// MbarOrder::cta, a stage's release: the arrive's default (.release.cta) semantics, as CUTLASS's
// ClusterBarrier::arrive: the reads of the stage it releases (wgmma's) have completed at wgmma.wait_group before it, so
// no cluster-scope release has anything left to order. With .release.cluster every k-block of a pair waited for it:
// bf16 4096x896x4864 in 128x256 pairs took 81.2-81.3 us, 52.7-52.8 without (unpaired 51.4-51.6), 4096^3 265.3-266.7
// against 175.8-175.9 (174.0) (bench_ops, H100).
// MbarOrder::cluster, a K-pair's exchange (TileCfg::KSPLIT): the second CTA's stores into the first's shared memory
// are ordered before its arrive by .release.cluster, and the first CTA's wait (mbar_wait<MbarOrder::cluster>)
// acquires at cluster scope before it reads them; its arrive back orders those reads before the second CTA's next
// stores.
#define FW_MBAR_ARRIVE_REMOTE(SEM)                                           \
  asm volatile(                                                              \
      "{\n.reg .b32 ra;\n"                                                   \
      "mapa.shared::cluster.u32 ra, %0, %1;\n"                               \
      "mbarrier.arrive" SEM ".shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar), \
      "r"(cta)                                                               \
      : "memory")
template <MbarOrder O = MbarOrder::cta>
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  if constexpr (O == MbarOrder::cluster)
    FW_MBAR_ARRIVE_REMOTE(".release.cluster");
  else
    FW_MBAR_ARRIVE_REMOTE("");
}
#undef FW_MBAR_ARRIVE_REMOTE
__device__ __forceinline__ uint32_t map_shared(uint32_t addr, uint32_t cta) {  // the address in CTA `cta`
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(cta));
  return r;
}
__device__ __forceinline__ void st_cluster_v4(uint32_t addr, float a, float b, float c, float d) {
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(a), "f"(b), "f"(c), "f"(d)
               : "memory");
}
__device__ __forceinline__ float4 ld_shared_v4(uint32_t addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr)
               : "memory");
  return v;
}
// Fetches a tensor map (a __grid_constant__ parameter) into the TMA unit's descriptor cache ahead of its first
// copy, which would otherwise wait for it.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1,
                                         int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0,
                                                   int c1, int c2, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(mask)
      : "memory");
}
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// The cluster barrier in two halves: a pair's CTAs arrive once their barriers are initialized and wait only before
// their first remote operation. The arrive is relaxed: fence.mbarrier_init.release.cluster already orders the
// barriers' initialization before it (CUTLASS's cluster_arrive_relaxed), and a releasing arrive compiles to
// MEMBAR.ALL.GPU ahead of the barrier (sm_90a SASS). The wait is warp-wide (.aligned: every lane of the warp).
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ uint32_t ld_shared_u32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
// evict_first: an L2 evict-first policy for the stored lines (lines that later loads will not read).
__device__ __forceinline__ void tma_store(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2,
                                          bool evict_first = false) {
  const uint64_t m = reinterpret_cast<uint64_t>(map);
  if (!evict_first) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(m),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
    return;
  }
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint [%0, {%2, %3, %4}], [%1], %5;" ::"l"(
          m),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "l"(policy)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void named_bar(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void st_shared_f32(uint32_t addr, float a) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(a) : "memory");
}
__device__ __forceinline__ void st_shared_v2(uint32_t addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");
}
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}
template <class T>
__device__ __forceinline__ uint32_t pack2(float a, float b) {
  Packet<T, 2> p;
  p.v[0] = from_float<T>(a);
  p.v[1] = from_float<T>(b);
  return *reinterpret_cast<uint32_t*>(&p);
}

// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((saddr & 0x3FFFF) >> 4) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}

// Unit -> (k split, batch, cluster tile row, tile column), M-grouped for L2 reuse.
__device__ __forceinline__ void unit_coords(int u, const Params& p, int& sp, int& b, int& cm, int& tn) {
  const int per_batch = p.cm_tiles * p.n_tiles;
  const int tiles = p.batch * per_batch;
  sp = u / tiles;
  u -= sp * tiles;
  b = u / per_batch;
  const int r = u - b * per_batch;
  const int per_group = p.group_m * p.n_tiles;
  const int g = r / per_group;
  const int first = g * p.group_m;
  const int gsize = min(p.cm_tiles - first, p.group_m);
  const int q = r - g * per_group;
  cm = first + q % gsize;
  tn = q / gsize;
}

// The next stage of the ring; the barriers' phase parity flips each time the ring wraps around.
template <int STAGES>
__device__ __forceinline__ void advance_stage(int& s, uint32_t& ph) {
  if (++s == STAGES) {
    s = 0;
    ph ^= 1;
  }
}
#endif  // FW_MATMUL_SM90A

// AF (AFrom): where A comes from. The register-A kernels run fw::gemm's problem transposed (sm90_transposed_problem):
// A's tile comes in by TMA as it lies (M-major: boxes of 32 M-rows x 32 k; K-major: BM rows x 32 k; 128-byte
// swizzled) and each thread loads its fragment into registers for wgmma's register form; the epilogue stores the
// transposed tile (C[n][m] = C^T[m][n]).
template <class T, class Cfg, bool B_NK, Epi E, AFrom AF = AFrom::smem>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    k_gemm_sm90(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                const __grid_constant__ CUtensorMap tmBt, const __grid_constant__ CUtensorMap tmC, const Params p) {
#ifdef FW_MATMUL_SM90A
  constexpr int BM = Cfg::BM, BN = Cfg::BN, NC = Cfg::NC, STAGES = Cfg::STAGES, CL = Cfg::CL, CLM = Cfg::CLM;
  constexpr bool HAS_BIAS = E == Epi::bias, KSPLIT = Cfg::KSPLIT;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t bars = base + STAGES * Cfg::STAGE_BYTES;
  const uint32_t cbuf = base + Cfg::C_OFFSET;  // epilogue staging
  auto sA = [&](int s) { return base + s * Cfg::STAGE_BYTES; };
  auto sB = [&](int s) { return base + s * Cfg::STAGE_BYTES + Cfg::A_BYTES; };
  auto full = [&](int s) { return bars + 8 * s; };
  auto empty = [&](int s) { return bars + 8 * (STAGES + s); };

  const int wg = threadIdx.x / 128;
  const int tid = threadIdx.x % 128;
  const uint32_t rank = CL > 1 ? cluster_ctarank() : 0;
  const uint32_t mrank = CLM > 1 ? rank : 0;  // along M (a pair sharing B); a K-pair's CTAs take the same rows
  const int cluster_id = blockIdx.x / CL, num_clusters = gridDim.x / CL;
  // A K-pair's exchange (KSPLIT): the second CTA's sums, and the barriers at the same offsets in both CTAs.
  const uint32_t red = base + Cfg::RED_OFFSET;
  const uint32_t red_full = red + Cfg::RED_BYTES - 16, red_empty = red_full + 8;
  const int units = p.batch * p.cm_tiles * p.n_tiles * p.splits;
  constexpr int BK = Cfg::BK;
  static_assert(sizeof(T) == 2 || B_NK, "TF32 wgmma takes K-major B only");
  static_assert(B_NK || BN % 64 == 0, "B[K, N] comes in 64-column boxes");
  constexpr bool A_REGS = AF != AFrom::smem;
  static_assert(!A_REGS || (sizeof(T) == 4 && B_NK && CL == 1 && Cfg::BLOCK_SUMS == Cfg::SPLIT_B),
                "A from registers: TF32, cluster-free; block sums only with 3xTF32");
  static_assert(AF != AFrom::regs_m_major || E != Epi::bias, "M-major A from registers: bias-free");
  static_assert(AF != AFrom::regs_k_major || Cfg::SPLIT_B, "K-major A from registers: 3xTF32 in the kernel only");
  static_assert(!Cfg::SPLIT_B || A_REGS, "3xTF32 in the kernel: a register-A kernel");
  const int nkb = (p.K + BK - 1) / BK;
  // A unit's k-blocks: its split's, or a K-pair's half (the first CTA's ceil(nkb / 2), the second's the rest: none
  // when nkb == 1).
  auto k_range = [&](int sp, int& kb0, int& kb1) {
    if constexpr (KSPLIT) {
      const int half = (nkb + 1) / 2;
      kb0 = int(rank) * half;
      kb1 = min(nkb, kb0 + half);
    } else {
      kb0 = sp * p.kb_per_split;
      kb1 = min(nkb, kb0 + p.kb_per_split);
    }
  };
  // The kernel queued after this one as a programmatic dependent may be scheduled now: a split launch's reduction
  // (k_splitk_reduce), or the next GEMM of a chain (fw::GemmLaunch::dependent, e.g. the decoder's linear layers).
  // Its blocks take SMs only as this persistent grid's CTAs leave them (or ones it leaves idle) and wait in
  // griddepcontrol.wait for this grid to finish, so their launch and set-up are off the critical path.
  allow_dependents();

  if (threadIdx.x == 0) {
    // The maps' fetch overlaps the barriers' set-up (the producer's first load is this thread's).
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    if (B_NK && CLM == 1 && p.b_tail_rows > 0) prefetch_tensormap(&tmBt);
    if (has_tma_store<Cfg, E, AF>() && p.tma_store) prefetch_tensormap(&tmC);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), 1);
      mbar_init(empty(s), NC * CLM);
    }
    if (KSPLIT) {
      mbar_init(red_full, NC * 128);   // the second CTA's consumer threads, each after its own stores
      mbar_init(red_empty, NC * 128);  // the first CTA's, each after its own reads
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (CL > 1)
    cluster_arrive_relaxed();  // the consumers wait (cluster_wait) before their first release, the producer before it
                               // multicasts
  else
    __syncthreads();
  // GemmLaunch::dependent: the kernel before this one (a transpose or a TF32 split writing A or B, or the previous
  // GEMM of a chain) may still be running; nothing is read or written before it has completed. A no-op after
  // an ordinary launch.
  wait_for_prerequisite();

  if (wg == 0) {
    // ---------------- producer ----------------
    if (NC == 2) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    // One thread issues the loads; a pair's producer runs as the whole warp (its lane 0 issuing), so that the warp
    // can wait on the cluster barrier together.
    if (tid < (CLM > 1 ? 32 : 1)) {
      const bool lead = CLM == 1 || tid == 0;
      int s = 0;
      uint32_t ph = 0;
      // A pair's first STAGES k-blocks: each CTA loads the whole B tile itself (no multicast), so that neither CTA
      // waits for the other's barriers to exist before its first loads; multicast from the next k-block on, after
      // cluster_wait. Every stage still takes both CTAs' releases before it is refilled.
      int fills = 0;
      for (int u = cluster_id; u < units; u += num_clusters) {
        int sp, b, cm, tn;
        unit_coords(u, p, sp, b, cm, tn);
        const int m0 = (cm * CLM + int(mrank)) * BM, n0 = tn * BN;
        int kb0, kb1;
        k_range(sp, kb0, kb1);
        const bool b_tail = B_NK && CLM == 1 && p.b_tail_rows > 0 && n0 + BN > p.N;
        // B[K, N] (cluster-free): the tile's 64-column chunks that lie wholly past N are not loaded; as for
        // b_tail's rows, their stale shared memory only feeds columns >= N, which the epilogue never stores.
        // Loading them (TMA's zero fill) made bf16 [4096, 4864] @ [4864, 896] bimodal on 128x256 tiles: in 6
        // of 8 runs up to half of the samples took 52-60 us instead of 50.4-51.5; without the loads 0 of 8
        // (bench_ops, H100, three leases). The k-loop is instantiated twice, so that tiles without such
        // chunks run the loop without the test: with it in every tile's loop, the 64-wide tiles were 8-15%
        // slower (512x896x4864 15.4 -> 16.7 us, 1024x896x4864 18.8 -> 21.7).
        const int kn_chunks = !B_NK && CLM == 1 ? min(BN / 64, (p.N - n0 + 63) / 64) : BN / 64;
        auto k_loop = [&](auto kn_tail) {
          constexpr bool KN_TAIL = decltype(kn_tail)::value;
          for (int kb = kb0; kb < kb1; ++kb) {
            const bool b_local = CLM == 1 || fills < STAGES;
            if (CLM > 1 && fills == STAGES) {
              __syncwarp();  // the lanes past their last iteration's branch, together for the aligned wait
              cluster_wait();
            }
            ++fills;
            mbar_wait(empty(s), ph ^ 1);
            if (!lead) {
              advance_stage<STAGES>(s, ph);
              continue;
            }
            constexpr int B_PARTS = Cfg::SPLIT_B ? 2 : 1;
            const uint32_t b_bytes = KN_TAIL ? uint32_t(kn_chunks * 8192)
                                             : uint32_t(b_tail ? p.b_tail_rows * 128 : Cfg::B_BOX_BYTES);
            mbar_expect_tx(full(s), uint32_t(p.a_rows * 128) + B_PARTS * b_bytes);
            const int k0 = kb * BK;
            if constexpr (AF == AFrom::regs_m_major) {
              // A as [K, M]: boxes {32 M-rows, 32 k}, 4 KB each (a 128-byte row per k).
#pragma unroll
              for (int j = 0; j < BM / 32; ++j) tma_load(sA(s) + j * 4096, &tmA, full(s), m0 + 32 * j, k0, b);
            } else {
              tma_load(sA(s), &tmA, full(s), k0, m0, b);
            }
            if (B_NK) {
              // W[N,K]: box {64 k, BN/CLM rows}; rank r loads rows [r*BN/CLM, (r+1)*BN/CLM) of the tile.
              // SPLIT_B: the planes' batch index is 2b (big parts) and 2b + 1 (small parts).
              constexpr int ROWS = BN / CLM;
              if (CLM == 1)
#pragma unroll
                for (int part = 0; part < B_PARTS; ++part)
                  tma_load(sB(s) + part * Cfg::B_BOX_BYTES, b_tail ? &tmBt : &tmB, full(s), k0, n0, B_PARTS * b + part);
              else if (b_local)
#pragma unroll
                for (int r = 0; r < CLM; ++r) tma_load(sB(s) + r * ROWS * 128, &tmB, full(s), k0, n0 + r * ROWS, b);
              else
                tma_load_multicast(sB(s) + rank * ROWS * 128, &tmB, full(s), k0, n0 + int(rank) * ROWS, b,
                                   uint16_t((1u << CLM) - 1));
            } else {
              // B[K,N]: boxes {64 n, 64 k}, one per 64-column chunk (8 KB each).
              constexpr int CHUNKS = BN / 64 / CLM;
              if (CLM > 1 && b_local) {
#pragma unroll
                for (int c = 0; c < BN / 64; ++c) tma_load(sB(s) + c * 8192, &tmB, full(s), n0 + 64 * c, k0, b);
              } else {
#pragma unroll
                for (int j = 0; j < CHUNKS; ++j) {
                  const int c = int(mrank) * CHUNKS + j;
                  if (CLM == 1) {
                    if (!KN_TAIL || j < kn_chunks) tma_load(sB(s) + c * 8192, &tmB, full(s), n0 + 64 * c, k0, b);
                  } else {
                    tma_load_multicast(sB(s) + c * 8192, &tmB, full(s), n0 + 64 * c, k0, b,
                                       uint16_t((1u << CLM) - 1));
                  }
                }
              }
            }
            advance_stage<STAGES>(s, ph);
          }
        };
        if (kn_chunks < BN / 64)
          k_loop(std::true_type{});
        else
          k_loop(std::false_type{});
      }
      // A pair's tail, in place of a cluster barrier at exit: wait until both CTAs' consumers have released every
      // stage, after which the other CTA sends this one nothing more (its multicasts were all consumed here) and
      // this CTA may leave. (At exit, a cluster barrier cost 0.75-1.8 us a launch.)
      if constexpr (CLM > 1)
        for (int i = 0; i < STAGES; ++i) {
          mbar_wait(empty(s), ph ^ 1);
          advance_stage<STAGES>(s, ph);
        }
    }
    __syncwarp();
  } else {
    // ---------------- consumers ----------------
    if (NC == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    // This CTA's barriers initialized, and the other's, which release() signals (a K-pair's exchange, its barriers).
    if constexpr (CL > 1) cluster_wait();
    const int c = wg - 1;
    constexpr bool BLOCK_SUMS = Cfg::BLOCK_SUMS;
    float acc[BN / 2];
    float blk[BLOCK_SUMS ? BN / 2 : 1];  // BLOCK_SUMS: one k-block's sum, wgmma's accumulators
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
    int s = 0;
    uint32_t ph = 0;
    const int warp = tid / 32, lane = tid % 32;
    T* __restrict__ Cp = static_cast<T*>(p.C);
    const T* __restrict__ bias = static_cast<const T*>(p.bias);
    const bool pair_ok = (p.N % 2 == 0) && ((reinterpret_cast<uintptr_t>(Cp) % (2 * sizeof(T))) == 0);
    T* sbias = reinterpret_cast<T*>(smem_raw + (bars + 16 * STAGES - smem_u32(smem_raw))) + c * BN;

    uint32_t epi_count = 0;
    uint32_t reds = 0;  // a K-pair's exchanges so far
    auto release = [&](int st) {
      if (CLM == 1) {
        if (tid == 0) mbar_arrive(empty(st));
      } else {
        if (tid < CLM) mbar_arrive_cluster(empty(st), uint32_t(tid));
      }
    };

    for (int u = cluster_id; u < units; u += num_clusters) {
      int sp, b, cm, tn;
      unit_coords(u, p, sp, b, cm, tn);
      const int m0 = (cm * CLM + int(mrank)) * BM, n0 = tn * BN;
      int kb0, kb1;
      k_range(sp, kb0, kb1);  // never empty (host), but for a K-pair's second CTA when nkb == 1
      const bool no_k = KSPLIT && kb0 >= kb1;
      const int row0 = m0 + c * 64 + warp * 16 + lane / 4;
      const int colb = n0 + 2 * (lane % 4);
      // The tile's bias: each thread reads up to BN / 128 values now (their latency hides behind the
      // main loop) and puts them into the consumer's shared row after it; the epilogue reads pairs there.
      // (A register-A kernel's bias is C^T's, per row: its epilogue reads it.)
      constexpr int NBIAS = (BN + 127) / 128;
      T bpre[NBIAS];
      if constexpr (HAS_BIAS && !A_REGS) {
#pragma unroll
        for (int r = 0; r < NBIAS; ++r) {
          const int col = n0 + tid + 128 * r;
          bpre[r] = col < p.N ? bias[col] : from_float<T>(0.f);
        }
      }
      int prev = 0;
      if constexpr (BLOCK_SUMS) {  // the tile's sums start from zero (wgmma's first k-step does that otherwise)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
      }
      if constexpr (A_REGS) {
        // The thread's fragment of each k8 step: rows r, r + 8 of its warp's 16 and k = t, t + 4 (t = lane % 4),
        // read through the tile's swizzle, all four steps' before their wgmmas: M-major, a 128-byte line per k of
        // a 32-row box, the rows' 16-byte chunk ^ k % 8; K-major, a 128-byte line per row, k's 16-byte chunk ^ the
        // row % 8 (= lane / 4: every 8 lanes of one k read 8 different chunks, conflict-free either way). wgmma
        // reads the registers asynchronously, so each k-block's wgmmas complete (wgmma_wait<0>) before the
        // next k-block's fragments are loaded; the other consumer's wgmmas keep the tensor cores busy meanwhile.
        // (Two fragment buffers, loading one while the other's wgmmas ran, made ptxas serialize every wgmma,
        // C7513: 5-18% slower on the --tf32 matmul report, H100.)
        // SPLIT_B (3xTF32): each fragment value x splits into its TF32 parts, and each k-step issues big(A)·big(B)
        // + small(A)·big(B) + big(A)·small(B) into the k-block's sums, which are added in fp32. The split is on the
        // consumer's critical path (16 values a thread a k-block): tf32_split_truncated_small (6 PTX operations a
        // value against tf32_split's 14 and a branch) took bmm 8x512^3 (128x128 tiles) from 41.0 to 28.2 us and
        // 448x1024x1024x64 (128x192) from 1256 to 1121; with tf32_split the decode's consumers (64x64 tiles) issued an
        // instruction every 6 cycles on 18% of the issue slots (H100, bench_ops and ncu).
        const uint32_t box_off = AF == AFrom::regs_m_major ? uint32_t((c * 64 + warp * 16) / 32) * 4096
                                                           : uint32_t(c * 64 + warp * 16 + lane / 4) * 128;
        const int r = (warp * 16) % 32 + lane / 4;
        uint32_t af[4][4];
        for (int kb = kb0; kb < kb1; ++kb) {
          mbar_wait(full(s), ph);
          const uint32_t box = sA(s) + box_off;
#pragma unroll
          for (int kk = 0; kk < 4; ++kk)
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              if constexpr (AF == AFrom::regs_m_major) {
                const int row = r + 8 * (q & 1), k = 8 * kk + lane % 4 + 4 * (q >> 1);
                af[kk][q] = ld_shared_u32(box + k * 128 + (((row / 4) ^ (k % 8)) << 4) + (row % 4) * 4);
              } else {
                const int chunk = 2 * kk + (q >> 1);  // k / 4
                af[kk][q] = ld_shared_u32(box + (q & 1) * 8 * 128 + ((chunk ^ (lane / 4)) << 4) + (lane % 4) * 4);
              }
            }
          const uint64_t db = make_desc(sB(s), 16, 1024);
          if constexpr (Cfg::SPLIT_B) {
            uint32_t as[4][4];  // the small parts; af keeps the big ones
#pragma unroll
            for (int kk = 0; kk < 4; ++kk)
#pragma unroll
              for (int q = 0; q < 4; ++q) {
                const detail::Tf32Pair x = detail::tf32_split_truncated_small(detail::bits_to_f32(af[kk][q]));
                af[kk][q] = detail::f32_to_bits(x.big);
                as[kk][q] = detail::f32_to_bits(x.small);
              }
            const uint64_t dbs = make_desc(sB(s) + Cfg::B_BOX_BYTES, 16, 1024);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
              WgmmaTf32Rs<BN>::mma(blk, af[kk], db + uint64_t(2 * kk), kk != 0);
              WgmmaTf32Rs<BN>::mma(blk, as[kk], db + uint64_t(2 * kk), 1);
              WgmmaTf32Rs<BN>::mma(blk, af[kk], dbs + uint64_t(2 * kk), 1);
            }
            wgmma_commit();
            wgmma_wait<0>();
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) {
              fence_operand(blk[i]);
              acc[i] += blk[i];
            }
          } else {
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < 4; ++kk)
              WgmmaTf32Rs<BN>::mma(acc, af[kk], db + uint64_t(2 * kk), kb != kb0 || kk != 0);
            wgmma_commit();
            wgmma_wait<0>();
          }
          release(s);
          advance_stage<STAGES>(s, ph);
        }
      } else {
        if (no_k) {  // a K-pair's second CTA with no k-block: it sends zeros
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
        }
        for (int kb = kb0; kb < kb1; ++kb) {
          mbar_wait(full(s), ph);
          wgmma_fence();
          const uint64_t da = make_desc(sA(s) + c * 64 * 128, 16, 1024);
          const uint64_t db = B_NK ? make_desc(sB(s), 16, 1024) : make_desc(sB(s), p.b_lbo, p.b_sbo);
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            // +32 bytes per k-step inside a 128-byte swizzled row (K-major); +16 rows (N-major).
            const uint64_t dbk = B_NK ? db + uint64_t(2 * kk) : db + uint64_t(128 * kk);
            if constexpr (BLOCK_SUMS)
              Wgmma<BN, T, B_NK ? 0 : 1>::mma(blk, da + uint64_t(2 * kk), dbk, kk != 0);
            else
              Wgmma<BN, T, B_NK ? 0 : 1>::mma(acc, da + uint64_t(2 * kk), dbk, kb != kb0 || kk != 0);
          }
          wgmma_commit();
          if constexpr (BLOCK_SUMS) {
            wgmma_wait<0>();
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) {
              fence_operand(blk[i]);
              acc[i] += blk[i];
            }
            release(s);
          } else {
            wgmma_wait<1>();
            if (kb > kb0) release(prev);
            prev = s;
          }
          advance_stage<STAGES>(s, ph);
        }
      }
      if constexpr (A_REGS) {
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) fence_operand(acc[i]);
      } else if constexpr (!BLOCK_SUMS) {
        if (!no_k) {
          wgmma_wait<0>();
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) fence_operand(acc[i]);
          release(prev);
        }
      }
      if constexpr (KSPLIT) {
        // The exchange: thread tid's sums as 16-byte groups g at (g * 128 + tid) * 16 of its consumer's buffer, in
        // the first CTA. The second CTA waits until the first has read the previous unit's (red_empty), stores its
        // sums, arrives on the first's red_full and takes its next unit; the first waits on red_full, adds them,
        // arrives on the second's red_empty, and runs the epilogue.
        const uint32_t mine = red + uint32_t(c) * (BN / 2) * 128 * 4 + uint32_t(tid) * 16;
        const uint32_t phase = reds & 1;  // the units this CTA has exchanged so far, mod 2
        ++reds;
        if (rank == 1) {
          if (reds > 1) mbar_wait<MbarOrder::cluster>(red_empty, phase ^ 1);
          const uint32_t dst = map_shared(mine, 0);
#pragma unroll
          for (int g = 0; g < BN / 8; ++g)
            st_cluster_v4(dst + g * 128 * 16, acc[4 * g], acc[4 * g + 1], acc[4 * g + 2], acc[4 * g + 3]);
          mbar_arrive_cluster<MbarOrder::cluster>(red_full, 0);
          continue;
        }
        mbar_wait<MbarOrder::cluster>(red_full, phase);
#pragma unroll
        for (int g = 0; g < BN / 8; ++g) {
          const float4 v = ld_shared_v4(mine + g * 128 * 16);
          acc[4 * g] += v.x;
          acc[4 * g + 1] += v.y;
          acc[4 * g + 2] += v.z;
          acc[4 * g + 3] += v.w;
        }
        mbar_arrive_cluster<MbarOrder::cluster>(red_empty, 1);
      }

      // Epilogue: thread holds rows r, r+8 and column pairs (8j + 2*(lane%4)) for j < BN/8.
      if (HAS_BIAS && !A_REGS) {
        // The previous tile's epilogue finished reading sbias before this tile's (warpgroup-wide) wgmma.
#pragma unroll
        for (int r = 0; r < NBIAS; ++r)
          if (tid + 128 * r < BN) sbias[tid + 128 * r] = bpre[r];
        named_bar(1 + c, 128);
      }
      auto bias_at = [&](int j) {  // bias of columns (colb + 8j, +1), relative to the tile
        if (!HAS_BIAS) return make_float2(0.f, 0.f);
        const Packet<T, 2> pk = *reinterpret_cast<const Packet<T, 2>*>(sbias + 2 * (lane % 4) + 8 * j);
        return make_float2(to_float(pk.v[0]), to_float(pk.v[1]));
      };
      // From registers to global memory: the thread's column pairs of rows row0 and row0 + 8 (+ bias),
      // bounds-checked; pairs are stored together where dst_pair_ok (N even, dst 2-element aligned).
      auto store_regs = [&](auto* dst, bool dst_pair_ok) {
        const bool rows_in = row0 + 8 < p.M;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int col = colb + 8 * j;
          if (col >= p.N) continue;
          const bool two = col + 1 < p.N;
          const float2 bb = bias_at(j);
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            const int row = row0 + 8 * i;
            if (!rows_in && row >= p.M) continue;
            gemm_dev::store_pair(dst + int64_t(row) * p.N + col, acc[4 * j + 2 * i] + bb.x,
                                 acc[4 * j + 2 * i + 1] + bb.y, two, dst_pair_ok);
          }
        }
      };
      if constexpr (A_REGS && has_tma_store<Cfg, E, AF>()) {
        if (p.tma_store) {
          // C^T's tile into C through shared memory, 32 of the tile's columns n (32 rows of C) at a time: the
          // consumer's 64 rows r (C's columns) as two 128-byte halves of 32 (a warp pair's rows each), 128-byte
          // swizzled, one TMA store a half. From registers, a store instruction wrote 32 bytes of each of 4 C
          // rows, and C's stream evicted the A and B tiles later tiles reuse (H100, ncu, bmm 448x1024x1024x64:
          // 444 MB read from DRAM against cuBLAS's 235, 857 us against 751). A thread's values go as single
          // words: the 8 lanes of one n fill 8 consecutive words of a half-row, and the 4 values of n (2
          // apart) fall in 4 different pairs of 16-byte chunks under the swizzle: no bank conflicts.
          constexpr int CB = Cfg::C_BUFS;
          const uint32_t my_buf = cbuf + c * CB * 8192;
          const int half = warp / 2;
#pragma unroll
          for (int g = 0; g < BN / 32; ++g) {
            const uint32_t buf = my_buf + (CB == 2 ? (epi_count & 1) * 8192 : 0);
            if (tid == 0) bulk_wait_read<CB - 1>();
            named_bar(1 + c, 128);
#pragma unroll
            for (int jl = 0; jl < 4; ++jl)
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int n = 8 * jl + 2 * (lane % 4) + e;  // C's row inside the chunk
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                  const int r = (warp % 2) * 16 + 8 * i + lane / 4;  // C's column inside the half
                  st_shared_f32(buf + half * 4096 + n * 128 + (((r / 4) ^ (n & 7)) << 4) + 4 * (r % 4),
                                acc[4 * (4 * g + jl) + 2 * i + e]);
                }
              }
            fence_proxy_async();
            named_bar(1 + c, 128);
            if (tid == 0) {
              tma_store(&tmC, buf, m0 + c * 64, n0 + 32 * g, b, p.c_evict_first != 0);
              tma_store(&tmC, buf + 4096, m0 + c * 64 + 32, n0 + 32 * g, b, p.c_evict_first != 0);
              bulk_commit();
            }
            ++epi_count;
          }
          continue;
        }
      }
      if constexpr (A_REGS) {
        // C^T's tile (+ its rows' bias) into C (or, split, into this split's partial sums in C's layout, which
        // k_splitk_reduce adds up element by element, with the bias): acc row r (C's column) and column n (C's row)
        // go to C[n][r]. A store instruction's lanes write 8 consecutive rows r (32 bytes of one C row) for each of
        // 4 columns n.
        T* dst = E == Epi::partial ? reinterpret_cast<T*>(p.partial) + (int64_t(sp) * p.batch + b) * p.M * p.N
                                   : Cp + int64_t(b) * p.M * p.N;
        // The bias of the thread's rows row0 and row0 + 8, read here rather than held through the main loop (split
        // launches, the decode shapes, add it in the reduction).
        float brow[2] = {0.f, 0.f};
        if constexpr (HAS_BIAS) {
#pragma unroll
          for (int i = 0; i < 2; ++i) brow[i] = row0 + 8 * i < p.M ? to_float(bias[row0 + 8 * i]) : 0.f;
        }
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int col = colb + 8 * j + e;
            if (col >= p.N) continue;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
              const int row = row0 + 8 * i;
              const float v = acc[4 * j + 2 * i + e];
              if (row < p.M) dst[int64_t(col) * p.M + row] = HAS_BIAS ? v + brow[i] : v;
            }
          }
        continue;
      }
      if constexpr (E == Epi::partial) {
        // Split-K: this split's fp32 partial sums, bias-free (k_splitk_reduce adds the bias).
        store_regs(p.partial + (int64_t(sp) * p.batch + b) * p.M * p.N, p.N % 2 == 0);
        continue;
      }
      if constexpr (has_tma_store<Cfg, E, AF>()) {
        if (p.tma_store) {
          // Chunks of 64 rows x C_ROW_BYTES (128, or 64 for the 160- and 224-wide tiles) of C: registers (+ bias) -> a
          // buffer swizzled as the TMA map's span (16-bit: stmatrix; fp32: 8-byte stores) -> TMA store (clips
          // rows >= M, columns >= N). With two buffers a consumer rewrites one only after the store issued from
          // it two chunks earlier has read it; with one, after the last.
          constexpr int CB = Cfg::C_BUFS, CC = Cfg::C_CHUNK_COLS, RB = Cfg::C_ROW_BYTES;
          const uint32_t my_buf = cbuf + c * CB * 8192;
          // The staged byte of (row, 16-byte chunk), as TMA's 128- or 64-byte swizzle places it: the chunk's
          // index XOR the address's 128-byte line (mod 8 or 4). A stmatrix's 8 rows of one chunk land in 8
          // different 16-byte bank groups either way.
          auto staged = [](int row, int chunk16) {
            const int lin = row * RB + chunk16 * 16;
            return uint32_t(lin ^ (((lin >> 7) & (RB / 16 - 1)) << 4));
          };
#pragma unroll
          for (int ch = 0; ch < BN / CC; ++ch) {
            const uint32_t buf = my_buf + (CB == 2 ? (epi_count & 1) * 8192 : 0);
            if (tid == 0) bulk_wait_read<CB - 1>();
            named_bar(1 + c, 128);
            if constexpr (sizeof(T) == 2) {
              const int q8 = lane / 8, rr = lane % 8;  // stmatrix: lanes 8q..8q+7 address matrix q's rows
#pragma unroll
              for (int jp = 0; jp < CC / 16; ++jp) {  // column groups 2jp, 2jp+1 of this chunk
                uint32_t r[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                  const int jl = 2 * jp + q / 2, i = q % 2;  // matrix q: rows +8i, column group jl
                  const int j = ch * (CC / 8) + jl;
                  const float2 bb = bias_at(j);
                  r[q] = pack2<T>(acc[4 * j + 2 * i] + bb.x, acc[4 * j + 2 * i + 1] + bb.y);
                }
                const int row = warp * 16 + (q8 % 2) * 8 + rr;  // row inside the consumer's 64
                const int chunk16 = 2 * jp + q8 / 2;             // 16-byte column chunk inside the row
                stmatrix_x4(buf + staged(row, chunk16), r[0], r[1], r[2], r[3]);
              }
            } else {
              // The thread's column pair 8jl + 2t of rows r, r + 8: 16-byte chunk 2jl + t / 2, byte 8 (t % 2).
              const int t = lane % 4;
#pragma unroll
              for (int jl = 0; jl < CC / 8; ++jl) {
                const int j = ch * (CC / 8) + jl;
                const float2 bb = bias_at(j);
#pragma unroll
                for (int i = 0; i < 2; ++i) {
                  const int row = warp * 16 + 8 * i + lane / 4;
                  const int chunk16 = 2 * jl + t / 2;
                  st_shared_v2(buf + staged(row, chunk16) + 8 * (t % 2), acc[4 * j + 2 * i] + bb.x,
                               acc[4 * j + 2 * i + 1] + bb.y);
                }
              }
            }
            fence_proxy_async();
            named_bar(1 + c, 128);
            if (tid == 0) {
              tma_store(&tmC, buf, n0 + CC * ch, m0 + c * 64, b);
              bulk_commit();
            }
            ++epi_count;
          }
          continue;
        }
      }
      store_regs(Cp + int64_t(b) * p.M * p.N, pair_ok);
    }
    // A K-pair's second CTA stays until the first has read its last sums: the first's arrive targets this CTA's
    // shared memory.
    if (KSPLIT && rank == 1 && reds > 0) mbar_wait<MbarOrder::cluster>(red_empty, (reds - 1) & 1);
    if (p.tma_store && tid == 0) bulk_wait_all();  // stores done reading (and writing) before exit
  }
#else
  __trap();  // built without sm_90a: the host never launches this (see sm90_supported)
#endif
}

// Split-K's second step: C[b][m][n] = sum over s of partial[s][b][m][n] (+ bias[n]), in T. V elements a
// thread: 4 when N % 4 == 0 and C is 4-element aligned (a quad then never straddles a row), else 1.
// Launched as a programmatic dependent of the split GEMM (splitk_reduce): its blocks may start while the
// GEMM runs and wait for it here; the partials are then read through L2 (ld.global.cg), not a cache line
// an earlier launch left in L1.
template <class T, int V>
__global__ void __launch_bounds__(256) k_splitk_reduce(const float* __restrict__ part, const T* __restrict__ bias,
                                                       T* __restrict__ C, int64_t count, int N, int splits) {
  wait_for_prerequisite();
  const int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (i >= count) return;
  float acc[V] = {};
  for (int sp = 0; sp < splits; ++sp) {
    const float* src = part + sp * count + i;
    if constexpr (V == 4) {
      const float4 v = __ldcg(reinterpret_cast<const float4*>(src));
      acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w;
    } else {
      acc[0] += __ldcg(src);
    }
  }
  const int n = int(i % N);
  Packet<T, V> pk;
#pragma unroll
  for (int j = 0; j < V; ++j) pk.v[j] = from_float<T>(acc[j] + (bias ? to_float(bias[n + j]) : 0.f));
  if constexpr (V == 4)
    store_packet(C + i, pk);
  else
    C[i] = pk.v[0];
}

}  // namespace fw::sm90

// ======================================= host side ==================================================
namespace fw::detail {
namespace {

using namespace fw::sm90;

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    FW_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw CudaError(cudaErrorNotSupported, "cuTensorMapEncodeTiled is not available from the driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// 3-D map over a contiguous [d2][d1][d0] tensor of 16-bit or fp32 elements, box {box0, box1, 1}, swizzled
// over the box's row: 128 bytes (every load and most C stores), or 64 (the 160- and 224-wide tiles' C chunks).
// L2 promotion of 64 bytes: against 256 the W streams of the decode shapes ran 1-3.5% faster (64x4096x16384
// W[N, K] 42.55 -> 40.94 us, the K-pair at 64x4096x4096 14.66 -> 14.36) and the compute-bound shapes the same
// (2048^3, 4096^3, 512x896x4864 within 0.3%; gemm_sweep, H200, notes/performance.md's fifty-third round).
CUtensorMap make_map(const void* ptr, DType dt, uint64_t d0, uint64_t d1, uint64_t d2, uint32_t box0,
                     uint32_t box1) {
  CUtensorMap m;
  const cuuint64_t dims[3] = {d0, d1, d2};
  const uint64_t esz = opbench::dtype_size(dt);
  const cuuint64_t strides[2] = {d0 * esz, d0 * d1 * esz};
  const cuuint32_t box[3] = {box0, box1, 1};
  const cuuint32_t estr[3] = {1, 1, 1};
  const uint64_t row_bytes = box0 * esz;
  if (row_bytes != 128 && row_bytes != 64)
    throw std::invalid_argument("gemm_sm90: a TMA box row of " + std::to_string(row_bytes) + " bytes (64 or 128)");
  const CUtensorMapSwizzle swizzle = row_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  const CUtensorMapDataType t = dt == DType::bf16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                : dt == DType::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUresult r = encode_fn()(&m, t, 3, const_cast<void*>(ptr), dims, strides, box, estr,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_64B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(cudaErrorInvalidValue, "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)) +
                                               " (dims " + std::to_string(d0) + "x" + std::to_string(d1) + "x" +
                                               std::to_string(d2) + ")");
  return m;
}

// The last N values computed per key, for per-thread memos of host work (round-robin replacement). The
// value is made before its key is stored, so a make() that throws leaves the cache as it was.
template <class Key, class Value, int N>
struct RecentCache {
  Key key[N];
  Value value[N];
  int n = 0, next = 0;
  template <class Make>
  Value get(const Key& k, Make&& make) {
    for (int i = 0; i < n; ++i)
      if (key[i] == k) return value[i];
    const Value v = make();
    key[next] = k;
    value[next] = v;
    next = (next + 1) % N;
    if (n < N) ++n;
    return v;
  }
};

// The maps depend only on (address, dtype, dims, box): a small per-thread cache keeps repeated calls on
// the same buffers (the usual case) from re-encoding them.
CUtensorMap cached_map(const void* ptr, DType dt, uint64_t d0, uint64_t d1, uint64_t d2, uint32_t box0,
                       uint32_t box1) {
  struct Key {
    const void* ptr;
    int dt;
    uint64_t d0, d1, d2;
    uint32_t b0, b1;
    bool operator==(const Key& o) const {
      return ptr == o.ptr && dt == o.dt && d0 == o.d0 && d1 == o.d1 && d2 == o.d2 && b0 == o.b0 && b1 == o.b1;
    }
  };
  thread_local RecentCache<Key, CUtensorMap, 8> cache;
  return cache.get(Key{ptr, int(dt), d0, d1, d2, box0, box1},
                   [&] { return make_map(ptr, dt, d0, d1, d2, box0, box1); });
}

// The launch attribute of a cluster of cl CTAs along x.
cudaLaunchAttribute cluster_dim_attr(int cl) {
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = unsigned(cl);
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  return a;
}

// Sets the kernel's shared-memory limit once per device and returns how many clusters (CTAs when
// CL == 1) can be resident at once: the persistent grid size.
template <class T, class Cfg, bool B_NK, Epi E, AFrom AF = AFrom::smem>
int resident_clusters() {
  constexpr int CL = Cfg::CL;
  auto kern = k_gemm_sm90<T, Cfg, B_NK, E, AF>;
  static PerDevice<int> resident;
  return resident.get([&] {
    const DeviceProps& dev = device_props();
    FW_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM));
    int n = dev.sms / CL;
    if (CL > 1) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(unsigned(CL * n));
      cfg.blockDim = dim3(Cfg::THREADS);
      cfg.dynamicSmemBytes = Cfg::SMEM;
      cudaLaunchAttribute attr[1] = {cluster_dim_attr(CL)};
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      int c = 0;
      FW_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&c, kern, &cfg));
      if (c > 0) n = c;
    }
    return n;
  });
}

// ---- the choice of tile configuration and split-K count ----------------------------------------------
// One cost model for both, fitted to tools/gemm_sweep on the H100 (bf16, 31 shapes x 4 configurations x 6
// split counts, then 33 shapes with the 128x192 tile added; notes/performance.md): a CTA takes each k-block
// (A and B tiles, 128 bytes of K a row) at the slower of ~100 GB/s of TMA loads and 1/sms of the dense
// tensor peak, then stores its tile; the units (tiles x splits) run in ceil(units / sms) rounds of one CTA
// a SM; a split adds its fp32 partials and the reduction kernel (~6 us with its launch). Its picks came
// within 7% of the best measured configuration on every shape, where the former rule (the largest tile
// that still fills a wave) lost up to 1.56x ([1024, 4864] @ [4864, 896]: 64x64 in two rounds, 32.5 us,
// against 64x128 in one, 20.8 us). Split-K pays only on long K with few tiles (Qwen2's down projection at
// 128 tokens: 64x64 in 4 splits, 12.4 us against 16.8). The 128x192 and 128x160 tiles fill rounds where 128x256
// leaves SMs idle (Qwen2's gate_up, N = 9728: at 256 tokens 128x160's 122 tiles in one round, 14.2 us against
// 15.3 for 128x192's 102 and 16.8 for 128x256's 76; at 512 tokens its 244 tiles in two full rounds, 20.2 us
// against 22.4 for 128x192, whose second round holds 72 tiles; the sweep table of tests/data, whose picks the
// model still makes within 10% of the best on every shape). The 128x224 tile computes N = 896 in 4 tiles where
// 128x256 computes 1024 columns (a linear layer of 4096x896x4864: 128 tiles in one round either way, 47.0 us
// against 51.6, bf16, H200; cuBLAS's own kernel there is 112x128). 160 and 224 wide run 16-bit W[N, K] only
// (sm90_config_takes). 16-bit only; TF32 keeps the wave rule in sm90_pick (not swept), 3xTF32 its own
// (tf32x3_config).
struct SplitK {
  int splits = 1;
  int kb_per_split = 0;
};

// `want` splits of nkb k-blocks, none left empty.
SplitK make_splitk(int64_t nkb, int64_t want) {
  SplitK r;
  want = std::max<int64_t>(1, std::min(want, nkb));
  r.kb_per_split = int(ceil_div(nkb, want));
  r.splits = int(ceil_div(nkb, int64_t(r.kb_per_split)));
  return r;
}

constexpr double kLoadBytesPerUs = 100e3;     // per SM, TMA loads of A and B tiles
constexpr double kSmFlopsPerUs = 989e6 / 132;  // per SM: the H100 SXM dense fp16/bf16 peak over its SMs
// The split-K reduction kernel's fixed cost, launch included. Since it is a programmatic dependent launch
// (splitk_reduce) the split shapes run 1.0-1.3 us faster (bench_ops, H100), yet refitting to the sweep
// after that change still gives 6: at 5 or less the model splits [16 | 64, 4096] @ [4096, 4096], which
// measured 7-21% slower split than whole.
constexpr double kReduceUs = 6.0;
constexpr double kReduceBytesPerUs = 2.5e6;   // its reads of the partials

int bk_of(DType dt) { return 128 / int(opbench::dtype_size(dt)); }  // elements of K in a 128-byte k-block
bool is_16bit(DType dt) { return dt == DType::f16 || dt == DType::bf16; }
// Whether a TF32 call runs the transposed problem (sm90_transposed_problem) on a register-A kernel: B as [K, N], or
// 3xTF32 in the kernel (a_split) of either layout.
bool tf32_transposed(const GemmArgs& a) { return a.dt == DType::f32 && (a.b_layout == GemmLayout::kn || a.a_split); }

double cost_us(const GemmArgs& a, int bm, int bn, int bk, int64_t want_splits, int sms) {
  const int64_t nkb = ceil_div(a.K, int64_t(bk));
  const SplitK sk = make_splitk(nkb, want_splits);
  const int64_t units = a.batch * ceil_div(a.M, int64_t(bm)) * ceil_div(a.N, int64_t(bn)) * sk.splits;
  const int64_t rounds = ceil_div(units, int64_t(sms));
  const double per_kb = std::max((bm + bn) * 128.0 / kLoadBytesPerUs, 2.0 * bm * bn * bk / kSmFlopsPerUs);
  const double epilogue = double(bm) * bn * (sk.splits > 1 ? 4 : 2) / kLoadBytesPerUs;
  double t = double(rounds) * (sk.kb_per_split * per_kb + epilogue);
  if (sk.splits > 1) t += kReduceUs + double(sk.splits) * a.batch * a.M * a.N * 4 / kReduceBytesPerUs;
  return t;
}

// The cheapest split count for a tile by the model (1 for TF32).
int model_splits(const GemmArgs& a, int bm, int bn, int sms) {
  if (!is_16bit(a.dt)) return 1;
  const int bk = bk_of(a.dt);
  const int64_t nkb = ceil_div(a.K, int64_t(bk));
  int best = 1;
  double best_us = cost_us(a, bm, bn, bk, 1, sms);
  for (int sp : kSm90SplitCounts) {
    if (sp > nkb) break;
    const double us = cost_us(a, bm, bn, bk, sp, sms);
    if (us < best_us) best = sp, best_us = us;
  }
  return make_splitk(nkb, best).splits;
}

// The model's choice for a 16-bit call, memoized per thread and shape: the model runs ~50 cost evaluations,
// and a decode step issues hundreds of GEMMs whose host time is its cost (bench_ops times model runs as
// issued).
Sm90Choice memo_choice(const GemmArgs& a) {
  struct Key {
    int dev, dt;
    int64_t batch, M, N, K;
    bool operator==(const Key& o) const {
      return dev == o.dev && dt == o.dt && batch == o.batch && M == o.M && N == o.N && K == o.K;
    }
  };
  thread_local RecentCache<Key, Sm90Choice, 16> memo;
  const DeviceProps& d = device_props();
  return memo.get(Key{d.device, int(a.dt), a.batch, a.M, a.N, a.K}, [&] { return sm90_model_choice(a, d.sms); });
}

// TF32 of the transposed problem t (B as [K, N], or 3xTF32 in the kernel; tiles bm x bn): the most splits, up to 4,
// that keep tiles x splits within one round of the SMs and chunks of at least 16 k-blocks (512 of K). Decode-like M:
// [16, 4096] @ [4096, 4096] is 64 tiles of 64x64, and 64 CTAs pulled B at 40 us where cuBLAS's TF32 took 30.
int tf32_transposed_splits(const GemmArgs& t, int bm, int bn, int64_t nkb) {
  const int64_t tiles = sm90_tiles(t, bm, bn), sms = device_props().sms;
  int best = 1;
  for (int sp = 2; sp <= 4; ++sp)
    if (tiles * sp <= sms && nkb / sp >= 16) best = sp;
  return best;
}

// Split-K for a launch of configuration c: forced > 0 (a test's or a sweep's choice), else the model's
// (16-bit) or tf32_transposed_splits (TF32 of the transposed problem; other TF32 launches do not split).
SplitK splitk_for(const GemmArgs& a, Sm90Config c, int forced) {
  const int bm = sm90_shape(c).bm, bn = sm90_shape(c).bn;
  const int64_t nkb = sm90_k_blocks(a);
  if (!is_16bit(a.dt)) {
    if (!tf32_transposed(a)) return make_splitk(nkb, 1);
    return make_splitk(nkb, forced > 0 ? forced : tf32_transposed_splits(sm90_transposed_problem(a), bm, bn, nkb));
  }
  if (forced > 0) return make_splitk(nkb, forced);
  const Sm90Choice m = memo_choice(a);
  return make_splitk(nkb, m.config == c ? m.splits : model_splits(a, bm, bn, device_props().sms));
}

// c_row: the length of C's rows, the bias's period (a.N, or a.M for the transposed problem of a register-A kernel,
// whose partial sums are in C's layout).
template <class T>
void splitk_reduce(const GemmArgs& a, const float* partial, int splits, int64_t c_row, cudaStream_t s) {
  const int64_t count = a.batch * a.M * a.N;
  const T* bias = static_cast<const T*>(a.bias);
  T* C = static_cast<T*>(a.C);
  constexpr int kThreads = 256;
  const bool quads = c_row % 4 == 0 && (reinterpret_cast<uintptr_t>(C) % (4 * sizeof(T))) == 0;
  // A programmatic dependent of the GEMM just queued (which allows it at its start): the reduction's
  // launch overlaps the GEMM, and wait_for_prerequisite in the kernel orders its reads after the partials.
  const dim3 grid(unsigned(ceil_div(count, int64_t((quads ? 4 : 1) * kThreads))));
  if (quads)
    launch_dependent(k_splitk_reduce<T, 4>, grid, dim3(kThreads), s, partial, bias, C, count, int(c_row), splits);
  else
    launch_dependent(k_splitk_reduce<T, 1>, grid, dim3(kThreads), s, partial, bias, C, count, int(c_row), splits);
}

// A register-A kernel (AF != smem) takes the transposed problem (sm90_transposed_problem): a.A is fw::gemm's B,
// M-major ([K, M] per batch) or K-major ([M, K]), and C is [N][M].
template <class T, class Cfg, bool B_NK, Epi E, AFrom AF = AFrom::smem>
void launch(const GemmArgs& a, const SplitK& sk, cudaStream_t stream) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, CL = Cfg::CL, CLM = Cfg::CLM;
  constexpr bool A_REGS = AF != AFrom::smem, A_MN = AF == AFrom::regs_m_major;
  auto kern = k_gemm_sm90<T, Cfg, B_NK, E, AF>;
  const int resident = resident_clusters<T, Cfg, B_NK, E, AF>();

  const int64_t M = a.M, N = a.N, K = a.K, B = a.batch;
  constexpr int BK = Cfg::BK;
  // Rows of a box past M come in as TMA's zero fill, which costs about as much as loading them: with
  // 64-row boxes, bf16 [16, 4096] @ [4096, 4096] took 19.9 us against 17.1 us at M = 64 on the same 64x64
  // grid (gemm_sweep, H100). When M is one short tile the boxes (A's, and C's for the TMA store) stop at
  // M, rounded up to a swizzle atom of 8 rows: 17.0 us at M = 16, 17.3 at M = 32 (bench_ops: matmul
  // 16x4096x4096 bf16 18.2 -> 14.6 us, 0.84x -> 1.08x LibTorch).
  const int a_rows = !A_MN && CLM == 1 && M < BM ? int(std::min<int64_t>(BM, (M + 7) / 8 * 8)) : BM;
  const CUtensorMap tmA = A_MN ? cached_map(a.A, a.dt, uint64_t(M), uint64_t(K), uint64_t(B), 32, BK)
                               : cached_map(a.A, a.dt, uint64_t(K), uint64_t(M), uint64_t(B), BK, uint32_t(a_rows));
  // SPLIT_B: B is GemmArgs::a_split's planes, [B][2][N][K]: 2B matrices of [N, K].
  const uint64_t b_mats = uint64_t(B) * (Cfg::SPLIT_B ? 2 : 1);
  const CUtensorMap tmB = B_NK ? cached_map(a.B, a.dt, uint64_t(K), uint64_t(N), b_mats, BK, BN / CLM)
                               : cached_map(a.B, a.dt, uint64_t(N), uint64_t(K), uint64_t(B), 64, BK);
  const int b_tail_rows = B_NK && CLM == 1 && N % BN != 0 ? int((N % BN + 7) / 8 * 8) : 0;
  const CUtensorMap tmBt =
      b_tail_rows ? cached_map(a.B, a.dt, uint64_t(K), uint64_t(N), b_mats, BK, uint32_t(b_tail_rows)) : tmB;
  // The TMA-store epilogue needs C to satisfy the same rules as a TMA source. Split partial sums are stored
  // from registers.
  // A register-A kernel's C is [N][M] (the transposed problem's C^T): boxes of 32 of its columns (128 bytes) x 32
  // rows (only M-major A's kernels have the staging: the 3xTF32 ones store from registers, TileCfg). Its
  // 64-wide tiles store from registers: through the staging, bmm 8x256^3 took 6.11 / 6.34 us against 5.95
  // (A/B/A, H100), where the 128- and 256-wide tiles gained (matmul 1024^3 15.90 -> 15.62 / 15.47, 4096^3
  // 353.6 -> 346.9 / 346.3, bmm 8x2048^3 375.2 -> 366.7 / 366.2).
  const int64_t c_row = A_REGS ? M : N;
  const bool tma_store = has_tma_store<Cfg, E, AF>() &&
                         (reinterpret_cast<uintptr_t>(a.C) & 15) == 0 && (c_row * int64_t(sizeof(T))) % 16 == 0;
  CUtensorMap tmC;
  if (tma_store && A_REGS)
    tmC = cached_map(a.C, a.dt, uint64_t(M), uint64_t(N), uint64_t(B), 32u, 32u);
  else if (tma_store)
    tmC = cached_map(a.C, a.dt, uint64_t(N), uint64_t(M), uint64_t(B), uint32_t(Cfg::C_CHUNK_COLS),
                     uint32_t(std::min(64, a_rows)));
  else
    std::memset(&tmC, 0, sizeof tmC);
  Params p;
  p.C = a.C;
  p.bias = a.bias;
  p.M = int(M);
  p.N = int(N);
  p.K = int(K);
  p.batch = int(B);
  p.cm_tiles = int(ceil_div(M, int64_t(CLM) * BM));
  p.n_tiles = int(ceil_div(N, BN));
  // Tile order: groups of 16 CTA rows (2048 rows for BM = 128), column by column inside a group.
  p.group_m = 16 / CLM;
  p.b_lbo = 8192u;  // next 64-column chunk: one TMA box of 64 k-rows x 128 B
  p.b_sbo = 1024u;  // next 8 k-rows
  p.tma_store = tma_store ? 1 : 0;
  // Where C outgrows L2 and A and B together (short K), its lines, written once, would evict the A and B
  // tiles that later tiles reuse: evict-first (H100, A/B/A: bmm 448x1024x1024x64 858.8 -> 835.9 / 831.6 us;
  // ncu: 419 -> 373 MB read from DRAM). With long K it cost (bmm 8x4096^3 3086 -> 3169 / 3137). What is left
  // of the gap to cuBLAS (ncu, another H100: 752 us and 235 MB read, A and B once; ours 837 us and 360 MB) is
  // neither: evict-last loads of A and B on top read 368 MB in 829 us, and two staging buffers a consumer (the
  // bias's room left out of M-major A's shared memory) changed nothing (bench_ops A/B/A: 828.6 / 823.2 against
  // 835.9 / 820.8 us).
  const bool c_dominates = M * N > K * (M + N) && B * M * N * int64_t(sizeof(T)) > int64_t(device_props().l2_bytes);
  p.c_evict_first = A_REGS && tma_store && c_dominates ? 1 : 0;
  p.a_rows = a_rows;
  p.b_tail_rows = b_tail_rows;
  FW_REQUIRE(!Cfg::KSPLIT || sk.splits == 1, "gemm_sm90: a K-pair does not split K further");
  p.splits = sk.splits;
  p.kb_per_split = sk.kb_per_split;
  p.partial = sk.splits > 1 ? static_cast<float*>(scratch(Scratch::splitk_partials,
                                                          size_t(sk.splits) * size_t(B * M * N) * sizeof(float)))
                            : nullptr;
  const int64_t units = B * p.cm_tiles * p.n_tiles * sk.splits;
  if (units >= (int64_t(1) << 31)) throw std::invalid_argument("gemm_sm90: too many tiles");
  const int clusters = int(units < resident ? units : resident);

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(clusters * CL));
  cfg.blockDim = dim3(Cfg::THREADS);
  // fp32 launches that store from registers leave the staging out (TileCfg); 16-bit ones keep it, and so does a
  // K-pair, whose exchange lies after it.
  cfg.dynamicSmemBytes = sizeof(T) == 4 && !tma_store && !Cfg::KSPLIT ? Cfg::SMEM - Cfg::C_BYTES : Cfg::SMEM;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  unsigned n_attr = 0;
  if (CL > 1) attr[n_attr++] = cluster_dim_attr(CL);
  if (a.launch == GemmLaunch::dependent) attr[n_attr++] = programmatic_serialization_attr();
  cfg.attrs = attr;
  cfg.numAttrs = n_attr;
  FW_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kern, tmA, tmB, tmBt, tmC, p));
  FW_CHECK_LAUNCH();
  if (sk.splits > 1) splitk_reduce<T>(a, p.partial, sk.splits, c_row, stream);
}

// The epilogue's kernel for a launch: a split-K launch stores partials (its reduction adds the bias);
// bias-free launches use kernels without the bias code.
template <class T, class Cfg, bool B_NK>
void launch_epi(const GemmArgs& a, const SplitK& sk, cudaStream_t s) {
  if (sk.splits > 1) {
    if constexpr (Cfg::CL == 1 && sizeof(T) == 2)
      launch<T, Cfg, B_NK, Epi::partial>(a, sk, s);
    else
      FW_REQUIRE(false, "gemm_sm90: split-K is for 16-bit, cluster-free configurations");
    return;
  }
  if (a.bias != nullptr) return launch<T, Cfg, B_NK, Epi::bias>(a, sk, s);
  launch<T, Cfg, B_NK, Epi::plain>(a, sk, s);
}

// What each Sm90Config stands for: its tile (BM = 64 per consumer warpgroup), the ring's stages, the cluster
// size along M (2: a pair sharing its B tile through TMA multicast), the stages of its register-A (TF32) kernels
// and its name. The kernels' template parameters (TileCfgOf) and the host's tile arithmetic
// (sm90_one_round) both read it. The 64x64 tile keeps 12 stages (192 KB) in flight where it streams K for
// decode-like M (bf16 16x4096x4096 14.75 -> 13.76 us against 8), but its M-major A kernels were faster at 8 (H100,
// one lease, A/B/A: TF32 matmul 64x4096x4096 28.54 us at 8 against 30.19 / 30.18 at 12, 16x4096x4096 27.82
// against 29.60 / 29.38; both split in two; not explained; at 6 stages, probed in another lease, 27.55 and 27.07
// against 28.61 and 27.94 at 8, the rest of the --tf32 report within noise: 8 kept).
constexpr Sm90Shape kSm90Shapes[] = {
    {Sm90Config::bm128_bn256_cl2, 128, 256, 4, 2, 4, "128x256 cluster2"},
    {Sm90Config::bm128_bn256_cl1, 128, 256, 4, 1, 4, "128x256"},
    {Sm90Config::bm128_bn224, 128, 224, 4, 1, 0, "128x224"},  // no TF32 kernel (takes_every_layout)
    {Sm90Config::bm128_bn192, 128, 192, 4, 1, 4, "128x192"},
    {Sm90Config::bm128_bn160, 128, 160, 5, 1, 0, "128x160"},  // no TF32 kernel (takes_every_layout)
    {Sm90Config::bm128_bn128_cl2, 128, 128, 6, 2, 6, "128x128 cluster2"},
    {Sm90Config::bm128_bn128_cl1, 128, 128, 6, 1, 6, "128x128"},
    {Sm90Config::bm128_bn64, 128, 64, 8, 1, 8, "128x64"},
    {Sm90Config::bm64_bn128, 64, 128, 8, 1, 8, "64x128"},
    {Sm90Config::bm64_bn64, 64, 64, 12, 1, 8, "64x64"},
    {Sm90Config::bm64_bn64_k2, 64, 64, 12, 2, 0, "64x64 K-pair", true},  // TF32: W[N, K] only (takes_every_layout)
};
constexpr bool known(Sm90Config c) { return int(c) >= 0 && int(c) < int(Sm90Config::count); }
constexpr const Sm90Shape& shape_of(Sm90Config c) { return kSm90Shapes[int(c)]; }
// Whether c's kernels exist for every dtype and B layout: B[K, N] comes in 64-column boxes and TF32 has wgmma
// widths of 64, 128, 192 and 256 here, so a tile of another width (160, 224) runs 16-bit W[N, K] only
// (sm90_config_takes); launch_cfg instantiates nothing else for it. A K-pair runs 16-bit calls of both layouts and
// TF32 calls of W[N, K] with tensor-core sums (a cluster: no register-A kernel; its exchange adds the tensor cores'
// sums).
constexpr bool takes_b_kn(Sm90Config c) { return shape_of(c).bn % 64 == 0; }
constexpr bool takes_every_layout(Sm90Config c) { return takes_b_kn(c) && !shape_of(c).k_split; }

// The table is indexed by the enum, and the model's tiles (gemm_detail.hpp) have its sizes.
constexpr bool shapes_consistent() {
  if (std::size(kSm90Shapes) != size_t(Sm90Config::count)) return false;
  for (int i = 0; i < int(Sm90Config::count); ++i)
    if (int(kSm90Shapes[i].config) != i) return false;
  for (const Sm90Tile& t : kSm90ModelTiles)
    if (shape_of(t.config).cl != 1 || shape_of(t.config).bm != t.bm || shape_of(t.config).bn != t.bn) return false;
  return true;
}
static_assert(shapes_consistent(), "kSm90Shapes: one entry per Sm90Config, in order; kSm90ModelTiles' sizes");

// The stages of configuration c's ring: stages_regs for the register-A kernels; with 3xTF32 in the kernel (block
// sums: two B boxes a stage) as many of those as fit 200 KB.
constexpr int stages_of(Sm90Config c, bool a_regs, bool split_b) {
  if (!a_regs) return shape_of(c).stages;
  if (!split_b) return shape_of(c).stages_regs;
  const int stage_bytes = (shape_of(c).bm + 2 * shape_of(c).bn) * 128;
  return std::min(shape_of(c).stages_regs, 200 * 1024 / stage_bytes);
}

// The kernel's tile configuration for configuration C and element type T (A_REGS: of the register-A kernels;
// A_REGS with BLOCK_SUMS: 3xTF32 in the kernel, SPLIT_B).
template <class T, Sm90Config C, bool BLOCK_SUMS = false, bool A_REGS = false>
using TileCfgOf = TileCfg<T, shape_of(C).bn, shape_of(C).bm / 64, stages_of(C, A_REGS, A_REGS && BLOCK_SUMS),
                          shape_of(C).cl, BLOCK_SUMS, A_REGS && BLOCK_SUMS, shape_of(C).k_split>;

// Calls f(std::integral_constant<Sm90Config, c>{}), c as a template argument:
//   dispatch_config(c, [&](auto k) { constexpr Sm90Config C = decltype(k)::value; ... });
template <class F>
auto dispatch_config(Sm90Config c, F&& f) {
  using C = Sm90Config;
  switch (c) {
    case C::bm128_bn256_cl2: return f(std::integral_constant<C, C::bm128_bn256_cl2>{});
    case C::bm128_bn256_cl1: return f(std::integral_constant<C, C::bm128_bn256_cl1>{});
    case C::bm128_bn224: return f(std::integral_constant<C, C::bm128_bn224>{});
    case C::bm128_bn192: return f(std::integral_constant<C, C::bm128_bn192>{});
    case C::bm128_bn160: return f(std::integral_constant<C, C::bm128_bn160>{});
    case C::bm128_bn128_cl2: return f(std::integral_constant<C, C::bm128_bn128_cl2>{});
    case C::bm128_bn128_cl1: return f(std::integral_constant<C, C::bm128_bn128_cl1>{});
    case C::bm128_bn64: return f(std::integral_constant<C, C::bm128_bn64>{});
    case C::bm64_bn128: return f(std::integral_constant<C, C::bm64_bn128>{});
    case C::bm64_bn64: return f(std::integral_constant<C, C::bm64_bn64>{});
    case C::bm64_bn64_k2: return f(std::integral_constant<C, C::bm64_bn64_k2>{});
    default: break;
  }
  throw std::invalid_argument("gemm_sm90: unknown tile configuration");
}

// TF32 (fp32 data): W as [N, K] unsplit (block sums too); B as [K, N] as the transposed problem (M-major A from
// registers), split where it pays; and 3xTF32 in the kernel (a_split) of either, W[N, K]'s as the transposed problem
// with K-major A from registers.
template <Sm90Config C>
void launch_tf32(const GemmArgs& a, cudaStream_t s, int splits) {
  using T = float;
  using Cfg = TileCfgOf<T, C>;
  constexpr int BN = Cfg::BN, CL = Cfg::CL;
  const SplitK one{1, int(ceil_div(a.K, int64_t(Cfg::BK)))};
  if (tf32_transposed(a)) {  // fw::gemm's B through registers
    // a_split (3xTF32 in the kernel, gemm_tf32x3_split_a): A's parts as planes, block sums, at most 192 wide.
    const bool x3 = a.a_split, kn = a.b_layout == GemmLayout::kn;
    FW_REQUIRE(CL == 1 && (x3 ? tf32x3_split_a_supported(a) : sm90_tf32_kn_supported(a)) &&
                   a.accumulate == (x3 ? Accumulate::per_k_block : Accumulate::tensor_core),
               "gemm_sm90: TF32 of the transposed problem takes a cluster-free configuration, B as [K, N] without a "
               "bias or W as [N, K] with 3xTF32, and block sums exactly with A's 3xTF32 parts");
    if constexpr (CL == 1) {
      const SplitK sk = splitk_for(a, C, splits);
      const GemmArgs t = sm90_transposed_problem(a);
      auto run = [&](auto cfg, auto from) {
        using CfgT = decltype(cfg);
        constexpr AFrom AF = decltype(from)::value;
        if (sk.splits > 1) {
          launch<T, CfgT, true, Epi::partial, AF>(t, sk, s);  // the reduction adds the bias
        } else if (t.bias != nullptr) {
          // The bias's epilogue on the 192-wide 3xTF32 tile spilled (24 bytes of 232 registers a consumer thread):
          // tf32x3_split_a_takes leaves it out.
          if constexpr (AF == AFrom::regs_k_major && CfgT::BN <= 128)
            launch<T, CfgT, true, Epi::bias, AF>(t, one, s);
          else
            FW_REQUIRE(false, "gemm_sm90: a bias takes W as [N, K] and 3xTF32 tiles at most 128 wide");
        } else {
          launch<T, CfgT, true, Epi::plain, AF>(t, one, s);
        }
      };
      using MMajor = std::integral_constant<AFrom, AFrom::regs_m_major>;
      using KMajor = std::integral_constant<AFrom, AFrom::regs_k_major>;
      if (!x3) {
        run(TileCfgOf<T, C, false, true>{}, MMajor{});
      } else if constexpr (BN <= 192) {
        if (kn)
          run(TileCfgOf<T, C, true, true>{}, MMajor{});
        else
          run(TileCfgOf<T, C, true, true>{}, KMajor{});
      } else {
        FW_REQUIRE(false, "gemm_sm90: 3xTF32 in the kernel takes tiles at most 192 wide");
      }
    }
    return;
  }
  if (a.accumulate == Accumulate::tensor_core) return launch_epi<T, Cfg, true>(a, one, s);
  if constexpr (BN <= 192 && !Cfg::KSPLIT)
    launch_epi<T, TileCfgOf<T, C, true>, true>(a, one, s);
  else
    FW_REQUIRE(false, "gemm_sm90: per-k-block sums take cluster-free tiles at most 192 wide");
}

// Linear layers (W as [N, K]) carry a bias, B[K, N] with a bias is supported too; 16-bit calls split K where the
// cost model says (splitk_for), on cluster-free configurations.
template <Sm90Config C>
void launch_cfg(const GemmArgs& a, cudaStream_t s, int splits) {
  FW_REQUIRE(sm90_config_takes(C, a.dt, a.b_layout),
             std::string("gemm_sm90: the ") + shape_of(C).name +
                 (shape_of(C).k_split ? " configuration takes 16-bit calls, or TF32 with W as [N, K]"
                                      : " tile takes 16-bit W[N, K] only"));
  dispatch_float(a.dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same<T, float>::value) {
      if constexpr (takes_b_kn(C)) launch_tf32<C>(a, s, splits);  // every layout, or a K-pair's W[N, K]
    } else {
      using Cfg = TileCfgOf<T, C>;
      const SplitK sk = Cfg::CL == 1 ? splitk_for(a, C, splits) : SplitK{1, int(ceil_div(a.K, int64_t(Cfg::BK)))};
      if constexpr (takes_b_kn(C)) {
        if (a.b_layout == GemmLayout::kn) return launch_epi<T, Cfg, false>(a, sk, s);
      }
      launch_epi<T, Cfg, true>(a, sk, s);
    }
  });
}

// The kernels exist for the device only when built for sm_90a; a compute_80 PTX JIT would not do.
bool sm90_kernels_loaded() {
  static PerDevice<bool> loaded;
  return loaded.get([] {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr, k_gemm_sm90<__nv_bfloat16, TileCfgOf<__nv_bfloat16, Sm90Config::bm128_bn256_cl2>, false, Epi::plain>);
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess && attr.ptxVersion >= 90 && attr.binaryVersion >= 90;
  });
}

}  // namespace

int sm90_resident_clusters(Sm90Config c) {
  if (!known(c)) return device_props().sms;
  return dispatch_config(c, [](auto k) {
    constexpr Sm90Config C = decltype(k)::value;
    if constexpr (shape_of(C).cl == 1)
      return device_props().sms;
    else
      return resident_clusters<__nv_bfloat16, TileCfgOf<__nv_bfloat16, C>, false, Epi::plain>();
  });
}

bool sm90_one_round(const GemmArgs& a, Sm90Config c) {
  if (!known(c)) return false;
  const Sm90Shape& k = shape_of(c);
  const GemmArgs& tiled = tf32_transposed(a) ? sm90_transposed_problem(a) : a;  // whose tiles the kernel runs
  const int64_t tiles = sm90_tiles(tiled, (k.k_split ? 1 : k.cl) * k.bm, k.bn);
  return tiles * sm90_splitk(a, c) <= sm90_resident_clusters(c);
}

int sm90_splitk(const GemmArgs& a, Sm90Config c) {
  return known(c) && shape_of(c).cl == 1 ? splitk_for(a, c, 0).splits : 1;  // cluster configurations do not split
}

int sm90_splits_run(const GemmArgs& a, int asked) {
  return make_splitk(sm90_k_blocks(a), asked).splits;
}

int64_t sm90_k_blocks(const GemmArgs& a) { return ceil_div(a.K, int64_t(bk_of(a.dt))); }

Sm90Choice sm90_model_choice(const GemmArgs& a, int sms) {
  Sm90Choice best{kSm90ModelTiles[0].config, 1};
  double best_us = 0;
  for (const Sm90Tile& t : kSm90ModelTiles) {
    if (!sm90_config_takes(t.config, a.dt, a.b_layout)) continue;
    const int sp = model_splits(a, t.bm, t.bn, sms);
    const double us = cost_us(a, t.bm, t.bn, bk_of(a.dt), sp, sms);
    if (t.config == kSm90ModelTiles[0].config || us < best_us) best = {t.config, sp}, best_us = us;
  }
  return best;
}

const char* sm90_config_name(Sm90Config c) { return known(c) ? shape_of(c).name : "?"; }

bool sm90_config_takes(Sm90Config c, DType dt, GemmLayout b_layout) {
  return known(c) && (takes_every_layout(c) || (is_16bit(dt) && (b_layout == GemmLayout::nk || takes_b_kn(c))) ||
                      (shape_of(c).k_split && b_layout == GemmLayout::nk));
}

const Sm90Shape& sm90_shape(Sm90Config c) {
  if (!known(c)) throw std::invalid_argument("gemm_sm90: unknown tile configuration");
  return shape_of(c);
}

bool sm90_supported(const GemmArgs& a, bool allow_tf32) {
  const bool tf32 = a.dt == DType::f32 && allow_tf32 && a.b_layout == GemmLayout::nk;
  if (a.dt != DType::f16 && a.dt != DType::bf16 && !tf32) return false;
  const DeviceProps& dev = device_props();
  if (dev.cc_major != 9 || dev.cc_minor != 0) return false;
  // Tensor-map rules: 16-byte aligned base addresses and row strides (K and, for B as [K,N], N
  // elements a multiple of 16 bytes).
  if ((reinterpret_cast<uintptr_t>(a.A) & 15) || (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  const int64_t e16 = 16 / int64_t(opbench::dtype_size(a.dt));
  if (a.K % e16) return false;
  if (a.b_layout == GemmLayout::kn && a.N % e16) return false;
  if (a.M > INT32_MAX || a.N > INT32_MAX || a.K > INT32_MAX || a.batch > INT32_MAX) return false;
  return sm90_kernels_loaded();
}

GemmArgs sm90_transposed_problem(const GemmArgs& a) {
  GemmArgs t = a;
  t.A = a.B;
  t.B = a.A;
  t.M = a.N;
  t.N = a.M;
  t.b_layout = GemmLayout::nk;
  return t;
}

bool sm90_tf32_kn_supported(const GemmArgs& a) {
  if (a.dt != DType::f32 || a.b_layout != GemmLayout::kn || a.bias != nullptr) return false;
  // The kernel's tensor maps: A^T from A's rows (K % 4, checked as the problem's K), B^T from B [K, N], whose
  // rows of N floats must be 16-byte multiples too.
  return a.N % 4 == 0 && sm90_supported(sm90_transposed_problem(a), true);
}

int64_t sm90_tiles(const GemmArgs& a, int bm, int bn) {
  return a.batch * ceil_div(a.M, int64_t(bm)) * ceil_div(a.N, int64_t(bn));
}

Sm90Config sm90_tf32_below_a_wave(const GemmArgs& a, int sms) {
  return fills_a_wave(sm90_tiles(a, 64, 128), sms) ? Sm90Config::bm64_bn128 : Sm90Config::bm64_bn64;
}

// Where the model takes 64x64 tiles unsplit and they fill at most half the SMs (decode-like M: 64x4096x4096 is 64
// tiles), a K-pair gives each tile two SMs, half of its k-blocks each, and adds the halves in shared memory instead of
// split-K's partial sums and second kernel: on the H200 the 64 CTAs of 64x64 moved 51% of the DRAM peak where
// cuBLAS's 128 (64x32 pairs) moved 58% (ncu, notes/performance.md, thirty-eighth round). It pays only with a long K:
// at 64 k-blocks (K = 4096) 64x4096x4096 bf16 went 12.70 -> 12.35 us, while with 8 (512^3) it took 1.2 us longer
// (3.65 -> 4.83) and with 14 (Qwen2's K = 896 projections) 3-9% longer (bench_ops, H200, thirty-ninth round).
Sm90Config sm90_with_k_pair(const GemmArgs& a, Sm90Choice c, int sms) {
  if (c.config == Sm90Config::bm64_bn64 && c.splits == 1 && sm90_k_blocks(a) >= 32 &&
      2 * sm90_tiles(a, 64, 64) <= sms)
    return Sm90Config::bm64_bn64_k2;
  return c.config;
}

// TF32, cluster-free: the largest tile that still gives about a full wave (measured on H100: 128x256 from 2048^3 up),
// or that takes no more rounds of the persistent grid than 128x128 at twice the work a tile (C^T = B^T A^T of matmul
// 4096x896x4864: 112 tiles of 128x256 in one round, where 128x128 took two rounds of 224 tiles).
static Sm90Config sm90_tf32_tile(const GemmArgs& a, int sms) {
  const int64_t t256 = sm90_tiles(a, 128, 256), t128 = sm90_tiles(a, 128, 128);
  const int64_t rounds256 = ceil_div(t256, int64_t(sms)), rounds128 = ceil_div(t128, int64_t(sms));
  if (fills_a_wave(t256, sms) || (rounds128 > 1 && 2 * rounds256 <= rounds128)) return Sm90Config::bm128_bn256_cl1;
  if (t128 >= sms) return Sm90Config::bm128_bn128_cl1;
  return sm90_tf32_below_a_wave(a, sms);
}

Sm90Config sm90_tf32_kn_config(const GemmArgs& a) {
  return sm90_tf32_tile(sm90_transposed_problem(a), device_props().sms);
}

Sm90Config sm90_pick(const GemmArgs& a) {
  const int sms = device_props().sms;
  if (is_16bit(a.dt)) return sm90_with_k_pair(a, memo_choice(a), sms);  // the cost model (sm90_model_choice)
  // TF32 with W as [N, K]: the K-pair where 64x64 leaves half the SMs idle, as for 16-bit calls, with tensor-core
  // sums (per-k-block sums take a second set of accumulators the exchange does not carry). H200 GPU 47af2219,
  // bench_ops --tf32, A/B twice (notes/performance.md, forty-first round): linear 64x4096x4096 23.7 -> 20.8 us
  // (cuBLAS 21.7), 16x4096x4096 23.6 -> 20.6 (20.8), 1x4096x4096 23.7 -> 20.5 (22.0).
  const Sm90Config c = sm90_tf32_tile(a, sms);
  const bool k_pair_ok = a.b_layout == GemmLayout::nk && a.accumulate == Accumulate::tensor_core;
  return k_pair_ok ? sm90_with_k_pair(a, {c, 1}, sms) : c;
}

void gemm_sm90(const GemmArgs& a, Sm90Config c, cudaStream_t s, int splits) {
  dispatch_config(c, [&](auto k) { launch_cfg<decltype(k)::value>(a, s, splits); });
}

}  // namespace fw::detail
