// Internal to kernels/matmul: the individual GEMM paths behind fw::gemm (matmul.hpp), callable directly
// so that a test can force a path or a tile configuration. Not part of the framework's API.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "kernels/common/device.hpp"
#include "kernels/matmul/matmul.hpp"

namespace fw::detail {

// How the TF32 wgmma kernel sums over K. tensor_core: in wgmma's fp32 accumulators across the whole of K. The
// tensor cores' accumulation does not round to nearest: 3xTF32's error against fp64 grew linearly with K,
// about 1.0e-8 K normwise (H100, 4.2e-5 at K = 4096, where fp32 SIMT is at 1.1e-6). per_k_block: wgmma sums
// one k-block (32 elements of K), the kernel adds the block sums in fp32 (tiles at most 192 wide).
enum class Accumulate { tensor_core, per_k_block };

struct GemmArgs {
  DType dt;
  GemmLayout b_layout;
  const void* A;
  const void* B;
  const void* bias;  // [N] or nullptr
  void* C;
  int64_t batch, M, N, K;
  Accumulate accumulate = Accumulate::tensor_core;  // fp32 (TF32) only
  // How the wgmma kernel (and a TF32 split) is queued (matmul.hpp). Inside a call, dependent queues the GEMM
  // behind the kernel the same call queued just before it (a transpose or a TF32 split, which allow it at their
  // start) only where the GEMM runs one round of tiles (sm90_one_round): its CTAs would otherwise hold SMs that
  // kernel's remaining blocks need (H100: 3xTF32 8192^3 13.1 -> 17.6 ms).
  GemmLaunch launch = GemmLaunch::after_previous;
  // fp32, per_k_block, 3xTF32 in the kernel (gemm_tf32x3_split_a): A holds A's 3xTF32 parts, [batch][2][M][K]
  // (each batch's big parts, then its small parts; tf32_split.hpp), and the kernel splits B's fragments itself.
  bool a_split = false;
};

// ---- TMA + wgmma (sm_90a), gemm_sm90.cu ------------------------------------------------------------
// Tile configurations: block tile BM x BN (BM = 64 per consumer warpgroup), k-block 64, and the thread-block
// cluster size along M (2: the pair shares its B tile through TMA multicast). Their sizes, stages and names are
// one table, kSm90Shapes in gemm_sm90.cu (sm90_shape below).
enum class Sm90Config : int {
  bm128_bn256_cl2,  // 2 consumers, B multicast to a pair of CTAs
  bm128_bn256_cl1,  // 2 consumers
  bm128_bn224,      // 2 consumers, 16-bit W[N, K] only (N = 896 in 4 tiles: 4096x896x4864 takes 128 tiles of 128x224
                    // in one round, where 128x256 computes 1024 columns for 896)
  bm128_bn192,      // 2 consumers (N = 9728 in 51 tiles: one wave at 128-256 rows, where 256 wide leaves 56
                    // of 132 SMs idle and 128 wide takes two rounds)
  bm128_bn160,      // 2 consumers, 16-bit W[N, K] only (N = 9728 in 61 tiles: one round at 256 rows, two full
                    // rounds at 512, where 192 wide leaves the second round 72 of 132 tiles)
  bm128_bn128_cl2,  // 2 consumers, a pair
  bm128_bn128_cl1,  // 2 consumers
  bm128_bn64,       // 2 consumers (3xTF32 in the kernel at decode-like M: the transposed problem is 64 wide)
  bm64_bn128,       // 1 consumer
  bm64_bn64,        // 1 consumer (narrow problems: decode-like M, small N)
  bm64_bn64_k2,     // 1 consumer, a K-pair: the cluster's two CTAs take the same tile, half of K each, and the second
                    // adds its sums into the first's through distributed shared memory (16-bit, and TF32 with W as
                    // [N, K]; decode-like M, whose 64x64 tiles leave half the SMs idle: 64x4096x4096 is 64 tiles on
                    // 132 SMs)
  count
};
const char* sm90_config_name(Sm90Config c);
// A configuration: its tile (bm x bn), its ring of stages, its cluster size (1, or 2: a pair sharing its B tile
// along M, or a K-pair), the ring of its TF32 B[K, N] kernels, its name, and whether its cluster splits K.
struct Sm90Shape {
  Sm90Config config;
  int bm, bn, stages, cl;
  int stages_regs;  // the stages of the register-A TF32 kernels (sm90_transposed_problem's); 0: none
  const char* name;
  bool k_split = false;  // the cluster's CTAs split K (one tile a cluster) instead of taking cl tiles along M
};
const Sm90Shape& sm90_shape(Sm90Config c);  // throws std::invalid_argument for an unknown configuration
// Whether configuration c runs calls of this dtype and B layout: tiles whose width is not a multiple of 64 (160, 224)
// take 16-bit W[N, K] only (B[K, N] comes in boxes of 64 columns, TF32 has no such wgmma here); a K-pair takes
// 16-bit calls of either layout and TF32 calls of W[N, K].
bool sm90_config_takes(Sm90Config c, DType dt, GemmLayout b_layout);
// True when the device is cc 9.0 with the sm_90a kernels loaded, the dtype is 16-bit (or fp32 with
// allow_tf32 and W as [N, K]: TF32 wgmma reads K-major operands only) and the tensor-map rules hold
// (16-byte aligned A and B, row strides multiples of 16 bytes).
bool sm90_supported(const GemmArgs& a, bool allow_tf32 = false);
Sm90Config sm90_pick(const GemmArgs& a);
// The configuration of fp32 with B as [K, N] on TF32 wgmma (the transposed problem below, register-A kernels):
// sm90_pick's TF32 tile for C^T = B^T A^T, cluster-free (no K-pair: the register-A kernels take no cluster).
Sm90Config sm90_tf32_kn_config(const GemmArgs& a);
// The transposed problem C^T = op(B)^T A^T: M and N swapped, fw::gemm's B as the kernel's A, A as its B (A^T's rows
// are A's, K-major). fp32 with B as [K, N] on TF32 wgmma, B never transposed in memory, runs it: the kernel loads
// B^T's tile by TMA as it lies and its fragments into registers (wgmma's register form), and stores C^T's tiles
// transposed; so does 3xTF32 in the kernel (gemm_tf32x3_split_a) with B as [K, N] or W as [N, K] (K-major
// fragments). gemm_sm90 takes such a call with the configuration sm90_pick gives for the transposed problem; it
// splits K where the tiles fill less than a round of the SMs (sm90_splitk says how many ways).
// sm90_tf32_kn_supported: cc 9.0, no bias, A and B 16-byte aligned, K and N multiples of 4.
GemmArgs sm90_transposed_problem(const GemmArgs& a);
bool sm90_tf32_kn_supported(const GemmArgs& a);
int64_t sm90_tiles(const GemmArgs& a, int bm, int bn);  // bm x bn output tiles, over the batch
// About a wave: `ctas` (one an SM) fill at least 9/10 of the `sms` SMs, the rule by which the GEMM paths and the
// GEMV's strips choose between a larger and a smaller tile, or whether a path pays at all.
constexpr bool fills_a_wave(int64_t ctas, int64_t sms) { return 10 * ctas >= 9 * sms; }
// The TF32 tile of a problem with less than a wave of 128x128 tiles: 64x128 where that gives about a wave
// (9/10 of the SMs), else 64x64 (sm90_pick's and tf32x3_config's rule).
Sm90Config sm90_tf32_below_a_wave(const GemmArgs& a, int sms);
// The cost model behind sm90_pick and the split-K count for 16-bit calls (gemm_sm90.cu), on a GPU of `sms`
// SMs. Pure: no CUDA call, so that a CPU test can check its picks.
struct Sm90Choice {
  Sm90Config config;
  int splits;
};
Sm90Choice sm90_model_choice(const GemmArgs& a, int sms);
// The configuration sm90_pick runs for the model's choice c (and for TF32 W[N, K] calls' tile, unsplit): the 64x64
// K-pair where c is 64x64 unsplit on at most half the SMs and K has 32 k-blocks or more (gemm_sm90.cu says why),
// else c's own. Pure, as sm90_model_choice.
Sm90Config sm90_with_k_pair(const GemmArgs& a, Sm90Choice c, int sms);
// What the model chooses from (tools/gemm_sweep times the same): the cluster-free configurations with
// their tile sizes, largest first (ties go to the larger tile), and the split-K counts.
struct Sm90Tile {
  Sm90Config config;
  int bm, bn;
};
inline constexpr Sm90Tile kSm90ModelTiles[] = {{Sm90Config::bm128_bn256_cl1, 128, 256},
                                               {Sm90Config::bm128_bn224, 128, 224},
                                               {Sm90Config::bm128_bn192, 128, 192},
                                               {Sm90Config::bm128_bn160, 128, 160},
                                               {Sm90Config::bm128_bn128_cl1, 128, 128},
                                               {Sm90Config::bm64_bn128, 64, 128},
                                               {Sm90Config::bm64_bn64, 64, 64}};
inline constexpr int kSm90SplitCounts[] = {1, 2, 3, 4, 6, 8};
// The splits a 16-bit launch asked for `asked` runs: K in 128-byte k-blocks, split evenly, none empty.
int sm90_splits_run(const GemmArgs& a, int asked);
int64_t sm90_k_blocks(const GemmArgs& a);  // K in 128-byte k-blocks (32 fp32 or 64 16-bit elements each)
// splits: 0 chooses the split-K count by rule (sm90_splitk says which); > 0 forces it (16-bit, or TF32 of the
// transposed problem; cluster-free configurations only).
void gemm_sm90(const GemmArgs& a, Sm90Config c, cudaStream_t s, int splits = 0);
int sm90_splitk(const GemmArgs& a, Sm90Config c);  // K splits a call with splits = 0 takes (1: none)
int sm90_resident_clusters(Sm90Config c);  // the occupancy API's answer (SM count for non-cluster configs)
// Whether every tile (and split) of the launch gets a CTA, or cluster, of its own at once: one round of the
// persistent grid. A kernel chain before the GEMM (a transpose, TF32 splits) is queued as dependent launches
// only then. H100, one machine, A/B/A (notes/performance.md, thirteenth round): one-round GEMMs gained 2-20%
// (TF32 matmul 256^3 7.6 -> 6.1 us); multi-round ones took 0.99-1.50x the time (3xTF32 8192^3 13.1 -> 17.6 ms).
bool sm90_one_round(const GemmArgs& a, Sm90Config c);

// ---- fp32 at fp32 accuracy on TF32 wgmma (3xTF32: split operands, K tripled), gemm_tf32x3.cu ---------------
// Supported: fp32, K % 4 == 0, A (and B as [N, K]) 16-byte aligned, and the wgmma kernel's rules (cc 9.0).
bool tf32x3_supported(const GemmArgs& a);
void gemm_tf32x3(const GemmArgs& a, cudaStream_t s);
Sm90Config tf32x3_config(const GemmArgs& a);  // the tile configuration its GEMM runs
// 3xTF32 in the kernel, B never transposed or split in memory (gemm_tf32x3_split_a): A's parts go into a scratch
// as [batch][2][M][K], and the TF32 kernel of the transposed problem (sm90_transposed_problem) splits each register
// fragment of B^T (B as [K, N]) or W (as [N, K]) into its parts (tf32_split_truncated_small) and issues the three
// products of every k-step, adding each k-block's sum in fp32. B is read once, as it lies. Supported: fp32, K % 4
// == 0, A 16-byte aligned, cc 9.0, and B as [K, N] with sm90_tf32_kn_supported's rules (no bias, N % 4 == 0) or W
// as [N, K] 16-byte aligned (a bias allowed). c and splits force a tile configuration (at most 192 wide,
// cluster-free) and a split-K count (0: by rule).
bool tf32x3_split_a_supported(const GemmArgs& a);
// Whether configuration c runs such a call: cluster-free and at most 192 wide (the block sums' second set of
// accumulators), 128 with a bias (the 192-wide tile's bias epilogue spilled).
bool tf32x3_split_a_takes(Sm90Config c, const GemmArgs& a);
Sm90Choice tf32x3_split_a_choice(const GemmArgs& a);  // the tile configuration and split-K count its GEMM runs
Sm90Choice tf32x3_split_a_choice(const GemmArgs& a, int sms);  // the same on `sms` SMs (pure, for a CPU test)
// Whether it pays against the SIMT and skinny kernels on `sms` SMs (gemm_tf32x3.cu says where; pure, for a CPU test).
bool tf32x3_split_a_pays(const GemmArgs& a, int sms);
// The split-K count of 128x64 tiles of the transposed problem (decode-like M, or less than a wave of 128x128 tiles):
// `tiles` tiles of `nkb` k-blocks on `sms` SMs (gemm_tf32x3.cu says how). Pure, for a CPU test.
int tf32x3_splits_by_rounds(int64_t tiles, int64_t nkb, int sms);
void gemm_tf32x3_split_a(const GemmArgs& a, cudaStream_t s);
void gemm_tf32x3_split_a(const GemmArgs& a, Sm90Config c, int splits, cudaStream_t s);

// ---- mma.sync (sm_80+), gemm_mma.cu: m16n8k16 for fp16/bf16, m16n8k8 TF32 for fp32 -------------------
bool mma_vector_ok(const GemmArgs& a);  // cp.async 16-byte path possible
void gemm_mma(const GemmArgs& a, cudaStream_t s);

// ---- fp32 decode-like shapes (M <= 16, batch 1), gemm_skinny.cu -----------------------------------------
bool skinny_supported(const GemmArgs& a);
void gemm_skinny(const GemmArgs& a, cudaStream_t s);

// ---- decode GEMV with W as [N, K] (any dtype, M = 1, batch 1): the row engine, gemv_nk.cu -------------
bool gemv_nk_supported(const GemmArgs& a);
void gemm_gemv_nk(const GemmArgs& a, cudaStream_t s);

// ---- decode GEMV with B as [K, N] (fp32/fp16/bf16, M = 1, batch 1, cc 9.0), gemv_sm90.cu ------------------
bool gemv_supported(const GemmArgs& a);
void gemm_gemv(const GemmArgs& a, cudaStream_t s);
std::string gemv_name(const GemmArgs& a);  // the kernel and its split of K, as reports name it

// ---- fp32 SIMT, gemm_simt.cu -------------------------------------------------------------------------
bool simt_vector_ok(const GemmArgs& a);  // 16-byte copies of B[K, N] possible
// Tile configurations (index: see simt_config_name, e.g. "128x128/8x16": block tile / thread tile).
constexpr int kSimtConfigs = 4;
const char* simt_config_name(int c);
int simt_pick(const GemmArgs& a);
// Split-K count for `tiles` output tiles of `nkb` k-blocks on `sms` SMs (1: none), chunks of at least
// `min_chunk` k-blocks (and at least four chunks' worth of K to split). Pure, for a CPU test.
int simt_split_count(int64_t tiles, int64_t nkb, int64_t sms, int64_t min_chunk = 8);
void gemm_simt(const GemmArgs& a, cudaStream_t s);

// ---- scratch buffers (gemm.cu): one grow-only buffer per device and use, freed at exit --------------------
// Growing one frees and allocates (synchronizing the device), which happens on the first calls of a size
// only. A buffer serves the calls of one stream at a time (as the framework's ops are issued).
enum class Scratch { tf32_b_transposed, splitk_partials, tf32x3_a, tf32x3_b, gemv_nk_partials, count };
void* scratch(Scratch use, size_t bytes);

// ---- K == 0: C = bias (or 0), gemm_simt.cu ---------------------------------------------------------
void gemm_fill_bias(const GemmArgs& a, cudaStream_t s);

}  // namespace fw::detail
