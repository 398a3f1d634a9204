// fp32 GEMM at fp32 accuracy on TF32 tensor cores: the 3xTF32 method (tf32_split.hpp). Each operand is split
// into a TF32 pair, big + small, and C = A_big·B_big + A_big·B_small + A_small·B_big. The three products are
// one GEMM with K tripled: A' = [A_big | A_big | A_small] ([M, 3K]) against B' = [B_big | B_small | B_big]
// ([N, 3K], K-major as TF32 wgmma needs), on the wgmma kernel's TF32 path (gemm_sm90.cu), which adds each
// k-block's sum (32 of the 3K products) in fp32 (Accumulate::per_k_block).
//
// Steps, on the caller's stream: B[K, N] is transposed into a scratch [N, K] (fw::layout); one split pass
// writes A' and one writes B' into per-device scratches (each reads its operand once and writes it three
// times); then the GEMM. Bytes moved before the GEMM: per element of A and of B, 4 read and 12 written (8
// more for B's transpose); the GEMM does 6·M·N·K FLOPs on tensor cores and reads 3× the operands' bytes.
// So the method pays where M·N·K is large against M·K + N·K (gemm.cu's rule, from the H100's
// measurements).
//
// gemm_tf32x3_split_a, B (as [K, N] or W as [N, K]) read as it lies: only A is split, into planes [batch][2][M][K]
// (big parts, then small parts), and the TF32 kernel of the transposed problem C^T = op(B)^T A^T splits its
// register fragments of B^T or W itself (gemm_sm90.cu, SPLIT_B), issuing the three products of every k-step and
// adding each k-block's sum in fp32 (+ W[N, K]'s bias, per row of C^T). Bytes before the GEMM: 12 per element of
// A; none for B.
#include <cstdint>
#include <stdexcept>

#include "kernels/common/check.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/types.cuh"
#include "kernels/layout/layout.hpp"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/matmul/tf32_split.hpp"

namespace fw::detail {
namespace {

// Where the parts of an operand go. a_rows / b_rows: row r of src ([rows, K], K % 4 == 0) becomes row r of dst
// ([rows, 3K]), its three segments the parts in the order A takes (big, big, small) or B's (big, small, big).
// planes: matrix b of src ([rows, K]) becomes dst's matrices 2b (big) and 2b + 1 (small).
enum class Parts { a_rows, b_rows, planes };

// One float4 of src a thread; k4 is K / 4 (rows) or a matrix's float4s (planes).
template <Parts L>
__global__ void __launch_bounds__(256) split_parts(const float4* __restrict__ src, float4* __restrict__ dst,
                                                   int64_t n4, int64_t k4) {
  // Queued as a dependent of the kernel before it in gemm_tf32x3 (or first, then the wait returns at once):
  // the next kernel may be scheduled now; this one reads nothing before its prerequisite has completed.
  allow_dependents();
  wait_for_prerequisite();
  const int64_t i = int64_t(blockIdx.x) * 256 + threadIdx.x;
  if (i >= n4) return;
  const int64_t r = i / k4, c = i - r * k4;
  const float4 v = __ldg(src + i);
  const Tf32Pair x = tf32_split(v.x), y = tf32_split(v.y), z = tf32_split(v.z), w = tf32_split(v.w);
  const float4 big = make_float4(x.big, y.big, z.big, w.big);
  const float4 small = make_float4(x.small, y.small, z.small, w.small);
  // Plain stores: the GEMM reads them next, from L2 where they fit.
  if constexpr (L == Parts::planes) {
    float4* big_plane = dst + 2 * r * k4 + c;
    big_plane[0] = big;
    big_plane[k4] = small;
  } else {
    float4* row = dst + r * 3 * k4 + c;
    row[0] = big;
    row[k4] = L == Parts::b_rows ? small : big;
    row[2 * k4] = L == Parts::b_rows ? big : small;
  }
}

// src is `mats` matrices of [rows, K]. GemmLaunch::dependent: a programmatic dependent of the kernel queued before
// it by the same GEMM call.
template <Parts L>
void split(const void* src, int64_t mats, int64_t rows, int64_t K, void* dst, GemmLaunch launch, cudaStream_t s) {
  const int64_t n4 = mats * rows * (K / 4);
  const int64_t k4 = L == Parts::planes ? rows * (K / 4) : K / 4;
  if (n4 == 0) return;
  const int64_t blocks = ceil_div(n4, 256);
  FW_REQUIRE(blocks <= int64_t(INT32_MAX), "operand too large for the TF32 split");
  const auto* in = static_cast<const float4*>(src);
  auto* out = static_cast<float4*>(dst);
  if (launch == GemmLaunch::dependent) {
    launch_dependent(split_parts<L>, dim3(unsigned(blocks)), dim3(256), s, in, out, n4, k4);
  } else {
    split_parts<L><<<unsigned(blocks), 256, 0, s>>>(in, out, n4, k4);
    FW_CHECK_LAUNCH();
  }
}

// The GEMM the split operands go through: fp32 (TF32 wgmma), both operands [rows, 3K] in scratches.
// Its k-block sums are added in fp32 (Accumulate::per_k_block): summed over all of K by the tensor cores,
// the error grew as ~1e-8 K (4.2e-5 at K = 4096 on H100, against fp32 SIMT's 1.1e-6).
GemmArgs tripled(const GemmArgs& a, const void* a3, const void* b3) {
  GemmArgs t{DType::f32, GemmLayout::nk, a3, b3, a.bias, a.C, a.batch, a.M, a.N, 3 * a.K};
  t.accumulate = Accumulate::per_k_block;
  return t;
}

}  // namespace

bool tf32x3_supported(const GemmArgs& a) {
  if (a.dt != DType::f32 || a.K % 4 != 0 || a.K == 0) return false;
  // The split reads A (and B as [N, K]) as float4; the transposed B and the split operands are cudaMalloc'ed.
  if (reinterpret_cast<uintptr_t>(a.A) & 15) return false;
  if (a.b_layout == GemmLayout::nk && (reinterpret_cast<uintptr_t>(a.B) & 15)) return false;
  if (3 * a.K > INT32_MAX) return false;
  return sm90_supported(tripled(a, nullptr, nullptr), true);
}

void gemm_tf32x3(const GemmArgs& a, cudaStream_t s) {
  FW_REQUIRE(tf32x3_supported(a), "gemm_tf32x3: needs fp32, K % 4 == 0, 16-byte aligned operands and cc 9.0");
  const int64_t a_rows = a.batch * a.M, b_rows = a.batch * a.N;
  void* a3 = scratch(Scratch::tf32x3_a, size_t(a_rows * 3 * a.K) * sizeof(float));
  void* b3 = scratch(Scratch::tf32x3_b, size_t(b_rows * 3 * a.K) * sizeof(float));
  GemmArgs g = tripled(a, a3, b3);
  const Sm90Config c = tf32x3_config(a);
  // Where the GEMM runs one round of tiles, each kernel after the first is a programmatic dependent of the one
  // before (its launch overlaps that kernel's end; it waits for it to complete before reading), so the chain
  // keeps stream order (sm90_one_round says why only then).
  const GemmLaunch chain = sm90_one_round(g, c) ? GemmLaunch::dependent : GemmLaunch::after_previous;
  g.launch = chain;
  if (a.b_layout == GemmLayout::kn) {
    void* t = scratch(Scratch::tf32_b_transposed, size_t(b_rows * a.K) * sizeof(float));
    layout::transpose_last2(a.B, t, a.batch, a.K, a.N, DType::f32, s);
    split<Parts::b_rows>(t, 1, b_rows, a.K, b3, chain, s);
  } else {
    split<Parts::b_rows>(a.B, 1, b_rows, a.K, b3, GemmLaunch::after_previous, s);
  }
  split<Parts::a_rows>(a.A, 1, a_rows, a.K, a3, chain, s);
  gemm_sm90(g, c, s);
}

namespace {
GemmArgs with_a_planes(const GemmArgs& a, const void* planes) {
  GemmArgs g = a;
  g.A = planes;
  g.accumulate = Accumulate::per_k_block;
  g.a_split = true;
  return g;
}

// The CTAs of the transposed problem's tiles on configuration c times the K splits a launch asking for `splits` runs.
int64_t split_a_ctas(const GemmArgs& a, Sm90Config c, int splits) {
  const Sm90Shape& k = sm90_shape(c);
  return sm90_tiles(sm90_transposed_problem(a), k.bm, k.bn) * sm90_splits_run(a, splits);
}
}  // namespace

bool tf32x3_split_a_supported(const GemmArgs& a) {
  if (a.dt != DType::f32 || a.K % 4 != 0 || a.K == 0) return false;
  if (reinterpret_cast<uintptr_t>(a.A) & 15) return false;  // the split reads A as float4; the planes are cudaMalloc'ed
  // B[K, N]: M-major fragments, bias-free; W[N, K]: K-major fragments through a tensor map of W (16-byte aligned,
  // rows of K % 4 floats), the bias added per row of C^T.
  return a.b_layout == GemmLayout::kn ? sm90_tf32_kn_supported(a) : sm90_supported(sm90_transposed_problem(a), true);
}

bool tf32x3_split_a_takes(Sm90Config c, const GemmArgs& a) {
  const Sm90Shape& k = sm90_shape(c);
  return k.cl == 1 && sm90_config_takes(c, DType::f32, GemmLayout::kn) && k.bn <= (a.bias == nullptr ? 192 : 128);
}

void gemm_tf32x3_split_a(const GemmArgs& a, cudaStream_t s) {
  const Sm90Choice c = tf32x3_split_a_choice(a);
  gemm_tf32x3_split_a(a, c.config, c.splits, s);
}

void gemm_tf32x3_split_a(const GemmArgs& a, Sm90Config c, int splits, cudaStream_t s) {
  FW_REQUIRE(tf32x3_split_a_supported(a), "gemm_tf32x3_split_a: needs fp32, K a multiple of 4, a 16-byte aligned A "
                                          "and cc 9.0, and B as [K, N] (no bias, N a multiple of 4) or a 16-byte "
                                          "aligned W as [N, K]");
  FW_REQUIRE(tf32x3_split_a_takes(c, a), std::string("gemm_tf32x3_split_a: the ") + sm90_config_name(c) +
                                             " configuration does not take this call (tf32x3_split_a_takes)");
  void* planes = scratch(Scratch::tf32x3_a, size_t(a.batch * a.M * 2 * a.K) * sizeof(float));
  GemmArgs g = with_a_planes(a, planes);
  if (splits == 0) {  // by rule: the choice's count on its configuration, else the configuration's own
    const Sm90Choice rule = tf32x3_split_a_choice(a);
    splits = rule.config == c ? rule.splits : sm90_splitk(g, c);
  }
  // One round of tiles x splits: the GEMM queued as a dependent of the split (sm90_one_round says why only then).
  if (split_a_ctas(a, c, splits) <= sm90_resident_clusters(c)) g.launch = GemmLaunch::dependent;
  split<Parts::planes>(a.A, a.batch, a.M, a.K, planes, GemmLaunch::after_previous, s);
  gemm_sm90(g, c, s, splits);
}

// The tile: 128 rows by 192 or 128 columns (the block sums' second set of accumulators allows at most 192),
// whichever costs fewer rounds of tiles over the SMs, a round of 192-wide tiles weighing 1.5 x 0.875 of a
// 128-wide one (the wider tile reads less from L2 per FLOP; 0.875 fitted on H100: 4096^3 1702 against
// 1729 us, 2048^3 312 against 246, 4096x896x4864 732 against 573, 4096x11008x4096 4323 against 4610);
// problems of less than a wave of 128x128 tiles take 64-row tiles, as the TF32 path does.
Sm90Config tf32x3_config(const GemmArgs& a) {
  const int sms = device_props().sms;
  if (sm90_tiles(a, 128, 128) >= sms) {
    const int64_t rounds192 = ceil_div(sm90_tiles(a, 128, 192), int64_t(sms));
    const int64_t rounds128 = ceil_div(sm90_tiles(a, 128, 128), int64_t(sms));
    // 192-wide when rounds192 x 1.5 x 0.875 (= 21/16) < rounds128.
    return rounds192 * 21 < rounds128 * 16 ? Sm90Config::bm128_bn192 : Sm90Config::bm128_bn128_cl1;
  }
  return sm90_tf32_below_a_wave(a, sms);
}

// 128x128 tiles of the transposed problem: two consumer warpgroups, four stages of A's box and two B boxes. H100,
// bench_ops, one lease: against 128x192 (three stages) bmm 32x512^3 111 against 121 us, 448x1024x1024x64 979
// against 1121; the 64-row tiles (one consumer) ran the decode [64, 4096] @ [4096, 4096] in 91 us against 72 on
// 128x128 with the fragments split as tf32_split does, before the cheaper split (50 us on 128x128).
// 128x64 tiles, split by tf32x3_splits_by_rounds, where 128x128 tiles do not fill a wave, and at decode-like M (at
// most 64: the transposed problem's N, one column of 64-wide tiles, where a 128-wide tile spends half its tensor work
// on columns past N; H100, bench_ops, three turns of one lease: [64, 4096] @ [4096, 4096] 50.56 us on 128x128 in four
// splits, 38.30 on 64x64 in two, 33.70 on 128x64 in four). Below a wave of 128x128 tiles, twice as many 128x64 tiles
// fill the SMs where the wide ones leave half of them idle or split K: gemm_sweep --dtype fp32, us, on H200 GPUs
// 58ff84fd and 49f0ef3c (notes/performance.md, fifty-first and fifty-second rounds): 1024^3 W[N, K] 28.0 / 28.1 on
// 128x64 unsplit against 33.3 / 33.6 on 128x128 in two splits, 512^3 13.2 / 13.0 on 128x64 in four against 14.9 on
// 128x128 in four, [128, 4096] x [4096, 4096] 49.0 on 128x64 in two against 52.9 on 128x128 in four. From a wave up
// 128x128, unsplit (2048^3: 139.7 against 172.3 on 128x64; 128x128 tiles in splits measured slower than 128x64 tiles
// wherever 128x128 did not fill a wave, and with a wave of tiles tf32_transposed_splits gives 1 too).
Sm90Choice tf32x3_split_a_choice(const GemmArgs& a, int sms) {
  const GemmArgs t = sm90_transposed_problem(a);
  if (a.M > 64 && fills_a_wave(sm90_tiles(t, 128, 128), sms)) return {Sm90Config::bm128_bn128_cl1, 1};
  return {Sm90Config::bm128_bn64, tf32x3_splits_by_rounds(sm90_tiles(t, 128, 64), sm90_k_blocks(a), sms)};
}

Sm90Choice tf32x3_split_a_choice(const GemmArgs& a) { return tf32x3_split_a_choice(a, device_props().sms); }

// The fewest rounds of tiles x s over the SMs per split, each split charged 0.02 of a round (its partial sums and
// their share of the reduction), at least one k-block a split. H200 GPU 983c8f9a (x133, gemm_sweep --dtype fp32, every
// configuration and split, M = 16 and 64, K = 4096, N = 1024..14336, both layouts; notes/performance.md, fifty-first
// round): its pick was the fastest configuration at N = 2048..14336, and 5-11% behind 64x64 tiles in eight splits at
// N = 1024. Over the 117 shapes of x133-x136 (M = 8..1024, K = 256..4864; fifty-second round) its split count came
// within 1.004x of the fastest 128x64 one on average, over 5% behind it at three (128x9728x896 six splits 44.1 us
// against three 39.5, 768^3 three against one 24.0 / 22.1, 512x1152x896 25.7 / 23.9). Short K wants many short
// splits: with at least 4 k-blocks a split the mean was 1.013x (256^3 in two splits 11.5 against eight 9.8, 320^3
// 12.3 against 10.6), with 16 1.09x. The rule before (splits within one round; 64x64 tiles where 128x64 did not fill
// a wave) ran N = 11008 and 14336 on 64x64 tiles in two rounds (122 us against 62 and 81) and left N = 3072..6144 to
// the skinny or SIMT kernel (54-132 us against 29-43).
int tf32x3_splits_by_rounds(int64_t tiles, int64_t nkb, int sms) {
  int best = 1;
  double best_cost = 0;
  for (int s : kSm90SplitCounts) {  // ascending
    if (s > nkb) break;
    const double cost = double(ceil_div(tiles * s, int64_t(sms))) / s + 0.02 * s;
    if (s == 1 || cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

// Whether 3xTF32 in the kernel pays against the SIMT kernel (and the skinny kernel, gemm.cu): at decode-like M its CTAs
// (tiles x splits) fill half a wave; above it, 128x128 tiles fill a wave, or the 128x64 tiles and their splits fill a
// quarter of one over K > 256. With a wave, and B as [K, N], it beat every other fp32 path on every shape measured,
// the 3xTF32 of a transposed, split B included (H100, bench_ops, one lease: 4096^3 1075 against SIMT's 1629 us, bmm
// 8x512^3 28.4 against 54.5). Measured (gemm_sweep --dtype fp32, us, the rule's pick against SIMT; decode: H200 GPU
// 983c8f9a, notes/performance.md, fifty-first round; above: H200 GPUs 49f0ef3c and af5deb9e, fifty-second round):
// [16 | 64, 4096] x [1024, 4096] (64 CTAs) 19.6 / 19.9 against 23.4 / 28.5; above M = 64 faster at each of the 45
// shapes and layouts measured with K > 256 and 64 or more CTAs, from 256x256x512 (64 CTAs: 10.9 against 12.2) and 320^3
// (75: 10.6 against 12.3) to 512x896x4864 (112: 60.2 against 140.0) and 1024^3 (128: 28.1 against 65.3); slower with 16
// CTAs (128x128x4096 18.7 against 14.7; none measured between 16 and 64, where the quarter wave divides) and at K = 256
// (256^3 9.8 against 8.6, 512x512x256 11.8 against 11.3; bench_ops, bmm 8x256^3 in two splits 11.5 against 11.1).
bool tf32x3_split_a_pays(const GemmArgs& a, int sms) {
  const Sm90Choice c = tf32x3_split_a_choice(a, sms);
  const int64_t ctas = split_a_ctas(a, c.config, c.splits);
  if (a.M <= 64) return fills_a_wave(2 * ctas, sms);
  return c.config == Sm90Config::bm128_bn128_cl1 || (a.K > 256 && 4 * ctas >= sms);
}

}  // namespace fw::detail
