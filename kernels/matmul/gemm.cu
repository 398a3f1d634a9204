// fw::gemm: argument checks and the choice of path (matmul.hpp lists the paths and their rules).
//   fp32, TF32 allowed, W[N,K], cc 9.0    -> TMA + wgmma TF32 kernel (gemm_sm90.cu)
//   fp32, TF32 allowed, B[K,N], cc 9.0,   -> the same kernel on the transposed problem C^T = B^T A^T, B^T's
//     no bias, N % 4 == 0, not M = 1        fragments through registers (sm90_tf32_kn_supported)
//     on the streaming kernel, unless M >= 512 and its tile has one consumer (tf32_transpose_pays):
//   fp32, TF32 allowed, B[K,N], cc 9.0,   -> B transposed into a scratch [N,K] (fw::layout), then the
//     M >= 256, otherwise                    wgmma kernel on W[N,K] (TF32 wgmma reads K-major B only)
//   fp32, TF32 allowed, not cc 9.0 or     -> mma.sync m16n8k8 TF32 kernel (gemm_mma.cu)
//     rows not 16-byte aligned
//   any dtype, B[K,N], M = 1, batch 1,    -> streaming kernel: column strips, or split-K (gemv_sm90.cu)
//     N >= 2048, K >= 1024, cc 9.0
//   any dtype, W[N,K], M = 1, batch 1,    -> the row engine over W's rows with a dot-product reducer
//     N >= 2048, K >= 1024                   (gemv_nk.cu)
//   fp32, batch 1, M <= 4 (W[N,K]) or     -> skinny streaming kernel (gemm_skinny.cu)
//     M <= 2 (B[K,N]) (skinny_beats_split_a)
//   fp32, cc 9.0, K % 4 == 0, B[K,N]      -> 3xTF32 in the kernel: A split into planes, the transposed problem's
//     (no bias, N % 4 == 0) or W[N,K],      TF32 kernel splitting B^T's or W's fragments itself (gemm_tf32x3.cu,
//     its CTAs fill half a wave at M <=     gemm_tf32x3_split_a), fp32 accuracy
//     64; above, a wave of 128x128 tiles,
//     or a quarter wave and K > 256
//     (tf32x3_split_a_pays)
//   fp32, M <= 16, batch 1, otherwise     -> skinny streaming kernel (gemm_skinny.cu)
//   fp32, cc 9.0, K % 4 == 0, large enough -> 3xTF32: split operands, the TF32 wgmma kernel with K tripled
//     (tf32x3_pays)                           (gemm_tf32x3.cu), fp32 accuracy
//   fp32                                  -> SIMT kernel (gemm_simt.cu)
//   fp16/bf16, cc 9.0, tensor-map rules   -> TMA + wgmma kernel (gemm_sm90.cu), tile configuration
//                                            and split-K count by a cost model (sm90_model_choice)
//   fp16/bf16 otherwise                   -> mma.sync kernel (gemm_mma.cu)
//   K == 0                                -> C = bias (or 0)
// Host cost per call: a cached device query, and for the wgmma path two tensor maps (~1 us).
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/common/check.hpp"
#include "kernels/layout/layout.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/matmul/matmul.hpp"

namespace fw {
namespace detail {

// Grow-only scratch buffers, one per device and use (gemm_detail.hpp), freed at exit.
void* scratch(Scratch use, size_t bytes) {
  struct Buf {
    void* p = nullptr;
    size_t n = 0;
    ~Buf() {
      if (p) (void)cudaFree(p);
    }
  };
  constexpr int kUses = int(Scratch::count);
  static std::mutex mu;
  static Buf bufs[64][kUses];
  int dev = 0;
  FW_CUDA_CHECK(cudaGetDevice(&dev));
  FW_REQUIRE(dev >= 0 && dev < 64, "device ordinal out of range");
  FW_REQUIRE(int(use) >= 0 && int(use) < kUses, "unknown scratch use");
  std::lock_guard<std::mutex> lock(mu);
  Buf& b = bufs[dev][int(use)];
  if (b.n < bytes) {
    if (b.p) FW_CUDA_CHECK(cudaFree(b.p));
    b.p = nullptr;
    b.n = 0;
    FW_CUDA_CHECK(cudaMalloc(&b.p, bytes));
    b.n = bytes;
  }
  return b.p;
}

}  // namespace detail

namespace {

// B as [K, N] transposed into b_t ([N, K]) for the wgmma path: the GEMM's arguments. b_t = nullptr stands for
// the scratch (cudaMalloc'ed, so aligned) where only the sizes and layout matter: the alignment rules, the pick.
detail::GemmArgs transposed_b_args(const detail::GemmArgs& a, const void* b_t) {
  detail::GemmArgs t = a;
  t.b_layout = GemmLayout::nk;
  t.B = b_t;
  return t;
}

// fp32 with TF32 allowed and B as [K, N] on the wgmma path, B^T in the scratch.
bool tf32_transposed_ok(const detail::GemmArgs& a) {
  if (a.dt != DType::f32 || a.b_layout != GemmLayout::kn) return false;
  return detail::sm90_supported(transposed_b_args(a, nullptr), true);
}

detail::GemmArgs make_args(DType dt, GemmLayout bl, const void* A, const void* B, const void* bias, void* C,
                           int64_t batch, int64_t M, int64_t N, int64_t K) {
  FW_REQUIRE(dt == DType::f32 || dt == DType::f16 || dt == DType::bf16,
             std::string("unsupported dtype ") + opbench::dtype_name(dt));
  FW_REQUIRE(batch >= 0 && M >= 0 && N >= 0 && K >= 0, "negative size");
  FW_REQUIRE(batch < (int64_t(1) << 31) && M < (int64_t(1) << 31) && N < (int64_t(1) << 31) &&
                 K < (int64_t(1) << 31),
             "sizes must be below 2^31");
  const bool empty = batch == 0 || M == 0 || N == 0;
  FW_REQUIRE(empty || C != nullptr, "null output");
  FW_REQUIRE(empty || K == 0 || (A != nullptr && B != nullptr), "null input");
  return detail::GemmArgs{dt, bl, A, B, bias, C, batch, M, N, K};
}

// The path a call takes (see the table at the top of this file and matmul.hpp).
enum class Path {
  empty, fill_bias, skinny, gemv, gemv_nk, sm90, sm90_tf32_kn, sm90_transposed_b, tf32x3, tf32x3_split_a, mma, simt
};

// Whether 3xTF32 beats the SIMT kernel for an fp32 problem. The split moves 16 bytes per element of A and
// of B (24 for a B[K, N], transposed first) for 6 tensor-core FLOPs per M·N·K, so it pays where an operand
// element meets many others, M·N / (M + N), and K is long enough to amortize the tiles' start. Measured on
// H100 (bench_ops, the fp32 suite's shapes on 3xTF32, against the SIMT kernel's report): faster from
// M·N / (M + N) = 512 and K >= 512 (matmul 1024^3 49.8-50.3 against 58.2 us, bmm 8x1024^3 314-331 against
// 386); slower at 256 (matmul 512^3 23.6 against 15.8, bmm 32x512^3 226 against 197) and at K = 64
// (bmm 448x1024x1024x64 1814 against 1687).
bool tf32x3_pays(const detail::GemmArgs& a) { return a.M * a.N >= 512 * (a.M + a.N) && a.K >= 512; }

// Whether the skinny kernel (gemm_skinny.cu), whose time grows with M, comes before 3xTF32 in the kernel, whose
// decode-like tiles take M <= 64 for about the same time: up to M = 4 with W as [N, K], M = 2 with B as [K, N]. H200
// GPU a05d38ee, gemm_sweep --dtype fp32 (notes/performance.md, fifty-first round), us, skinny against 3xTF32 in the
// kernel: [M, 4096] x 4096^2 nk M = 2 24.1 / 29.0, 3 27.1 / 28.7, 4 27.1 / 29.3, 5 35.9 / 28.9, 8 40.8 / 29.3; kn
// M = 2 26.5 / 28.1, 3 29.4 / 28.5, 4 29.6 / 28.5.
bool skinny_beats_split_a(const detail::GemmArgs& a) { return a.M <= (a.b_layout == GemmLayout::nk ? 4 : 2); }

// Whether TF32 with B as [K, N] runs faster with B transposed first (a pass over B, then W[N, K]'s kernel) than as the
// transposed problem. The A_MN kernel reads B^T's fragments into registers; on its one-consumer tiles (64 rows of
// C^T) no second consumer's wgmma hides those loads, and the same tile on W[N, K] runs 1.4-1.6x faster (matmul
// 1024^3: 10.1 against 16.1 us), so the transpose pays once M amortizes it. H200 GPU 01ae8b01, bench_ops --tf32,
// A/B twice (notes/performance.md, forty-second round), us: matmul 1024^3 16.1 -> 12.9 (cuBLAS 13.0), 512^3 7.8 ->
// 7.1, bmm 8x512^3 17.9 -> 17.3; at M = 256 it lost (matmul 256^3 5.25 -> 5.45, bmm 8x256^3 5.91 -> 6.59), and the
// two-consumer tiles stay (the H100 in the fourteenth round: 2048^3 46.6 against 55.8 transposed).
bool tf32_transpose_pays(const detail::GemmArgs& a) {
  return a.M >= 512 && tf32_transposed_ok(a) && detail::sm90_shape(detail::sm90_tf32_kn_config(a)).bm == 64;
}

Path choose(const detail::GemmArgs& a, bool allow_tf32) {
  if (a.batch == 0 || a.M == 0 || a.N == 0) return Path::empty;
  if (a.K == 0) return Path::fill_bias;
  if (a.dt == DType::f32 && allow_tf32) {
    // W as [N, K]: TF32 wgmma directly, at any M (it also beats streaming B in fp32 at M = 1).
    if (detail::sm90_supported(a, true)) return Path::sm90;
    // B as [K, N]: the transposed problem, except a vector (M = 1) that the streaming kernel takes below.
    if (detail::sm90_tf32_kn_supported(a) && !detail::gemv_supported(a))
      return tf32_transpose_pays(a) ? Path::sm90_transposed_b : Path::sm90_tf32_kn;
    if (!tf32_transposed_ok(a)) return Path::mma;  // not Hopper, or rows not 16-byte aligned
    // B as [K, N]: transposing B pays off from a few hundred rows; below that exact fp32 is faster.
    if (a.M >= 256) return Path::sm90_transposed_b;
  }
  if (detail::gemv_supported(a)) return Path::gemv;
  if (detail::gemv_nk_supported(a)) return Path::gemv_nk;
  // fp32: 3xTF32 in the kernel where it pays, but the skinny kernel first at the smallest M.
  const bool split_a = detail::tf32x3_split_a_supported(a) && detail::tf32x3_split_a_pays(a, device_props().sms);
  if (detail::skinny_supported(a) && (skinny_beats_split_a(a) || !split_a)) return Path::skinny;
  if (split_a) return Path::tf32x3_split_a;
  if (a.dt == DType::f32) return detail::tf32x3_supported(a) && tf32x3_pays(a) ? Path::tf32x3 : Path::simt;
  if (detail::sm90_supported(a)) return Path::sm90;
  return Path::mma;
}

}  // namespace

void gemm(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* bias, void* C, int64_t batch,
          int64_t M, int64_t N, int64_t K, bool allow_tf32, cudaStream_t stream, GemmLaunch launch) {
  const detail::GemmArgs a = make_args(dt, b_layout, A, B, bias, C, batch, M, N, K);
  detail::GemmArgs queued = a;  // for the wgmma paths whose first kernel is the GEMM
  queued.launch = launch;
  switch (choose(a, allow_tf32)) {
    case Path::empty: return;
    case Path::fill_bias: return detail::gemm_fill_bias(a, stream);
    case Path::skinny: return detail::gemm_skinny(a, stream);
    case Path::gemv: return detail::gemm_gemv(a, stream);
    case Path::gemv_nk: return detail::gemm_gemv_nk(a, stream);
    case Path::sm90: return detail::gemm_sm90(queued, detail::sm90_pick(a), stream);
    case Path::sm90_tf32_kn: return detail::gemm_sm90(queued, detail::sm90_tf32_kn_config(a), stream);
    case Path::sm90_transposed_b: {
      detail::GemmArgs t = transposed_b_args(
          a, detail::scratch(detail::Scratch::tf32_b_transposed, size_t(batch * K * N) * sizeof(float)));
      const detail::Sm90Config c = detail::sm90_pick(t);
      if (detail::sm90_one_round(t, c)) t.launch = GemmLaunch::dependent;  // overlaps the transpose's end
      layout::transpose_last2(a.B, const_cast<void*>(t.B), batch, K, N, dt, stream);
      return detail::gemm_sm90(t, c, stream);
    }
    case Path::tf32x3: return detail::gemm_tf32x3(a, stream);
    case Path::tf32x3_split_a: return detail::gemm_tf32x3_split_a(a, stream);
    case Path::mma: return detail::gemm_mma(a, stream);
    case Path::simt: return detail::gemm_simt(a, stream);
  }
}

std::string gemm_path(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* C, int64_t batch,
                      int64_t M, int64_t N, int64_t K, bool allow_tf32) {
  const detail::GemmArgs a = make_args(dt, b_layout, A, B, nullptr, const_cast<void*>(C), batch, M, N, K);
  const std::string tf32 = dt == DType::f32 ? "_tf32" : "";
  switch (choose(a, allow_tf32)) {
    case Path::empty: return "empty";
    case Path::fill_bias: return "fill_bias";
    case Path::skinny: return "skinny_f32";
    case Path::gemv_nk: return "gemv_nk row reduction";
    case Path::gemv: return detail::gemv_name(a);
    case Path::sm90: {
      const detail::Sm90Config c = detail::sm90_pick(a);
      const int splits = detail::sm90_splitk(a, c);
      return "sm90_tma_wgmma" + tf32 + " " + detail::sm90_config_name(c) +
             (splits > 1 ? " split-K " + std::to_string(splits) : "");
    }
    case Path::sm90_tf32_kn: {
      const detail::Sm90Config c = detail::sm90_tf32_kn_config(a);
      const int splits = detail::sm90_splitk(a, c);
      return "sm90_tma_wgmma_tf32 C^T = B^T A^T " + std::string(detail::sm90_config_name(c)) +
             (splits > 1 ? " split-K " + std::to_string(splits) : "");
    }
    case Path::sm90_transposed_b:
      return "transpose_b + sm90_tma_wgmma_tf32 " +
             std::string(detail::sm90_config_name(detail::sm90_pick(transposed_b_args(a, nullptr))));
    case Path::tf32x3:
      return std::string(b_layout == GemmLayout::kn ? "transpose_b + " : "") + "tf32x3 split + sm90_tma_wgmma_tf32 " +
             detail::sm90_config_name(detail::tf32x3_config(a));
    case Path::tf32x3_split_a: {
      const detail::Sm90Choice c = detail::tf32x3_split_a_choice(a);
      const int splits = detail::sm90_splits_run(a, c.splits);
      return std::string("tf32x3 split A + sm90_tma_wgmma_tf32x3 ") +
             (b_layout == GemmLayout::kn ? "C^T = B^T A^T " : "C^T = W A^T ") + detail::sm90_config_name(c.config) +
             (splits > 1 ? " split-K " + std::to_string(splits) : "");
    }
    case Path::mma: return (detail::mma_vector_ok(a) ? "mma_sync" + tf32 + "_cp_async" : "mma_sync" + tf32 + "_scalar");
    case Path::simt:
      return std::string("simt_f32 ") + detail::simt_config_name(detail::simt_pick(a)) +
             (detail::simt_vector_ok(a) ? " vec4" : " scalar");
  }
  return "?";
}

}  // namespace fw
