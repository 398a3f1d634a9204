// Every tile configuration of the wgmma GEMM (gemm_sm90.cu), forced, split and unsplit (TF32: also with
// per-k-block sums, Accumulate::per_k_block, on tiles up to 192 wide but the K-pair, whose TF32 form takes W as
// [N, K] with tensor-core sums), against an exact host reference:
// fw::gemm runs the one its cost model picks per shape, so the configurations it picks for none of the test
// shapes (the cluster pairs, 128x192 outside N ~ 10^4) would otherwise go untested. Operands are multiples
// of 1/32 in [-1, 1] (exact in bf16, fp16 and TF32), so every product and every fp32 partial sum at these K
// is exact: the only error left is the one rounding of C to its type, at most half an ulp (TF32 with fp32
// C: none). Shapes with tails in M, N and K, a batch, decode-like M = 1, and more tiles than SMs. TF32 with B
// as [K, N] runs the transposed problem with A's fragments from registers (sm90_tf32_kn_supported), on every
// cluster-free configuration, split and unsplit, and so does 3xTF32 in the kernel of either layout
// (gemm_tf32x3_split_a: A's parts as planes, B^T's or W's fragments split in the kernel, W's with the bias; the
// small parts of these operands are zero) on those at most 192 wide.
// Skipped, with the reason, without a GPU or where the sm_90a kernels cannot run (not cc 9.0).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/matmul/gemm_detail.hpp"
#include "tests/gpu/gpu_skip.hpp"

namespace {

using fw::GemmLayout;
using fw::detail::GemmArgs;
using fw::detail::Sm90Config;
using opbench::DType;

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x

struct Dims {
  int64_t batch, M, N, K;
};

double value_at(uint64_t i, uint32_t seed) {  // k / 32, k in [-32, 32]
  uint32_t h = uint32_t(i) * 2654435761u ^ (seed * 0x9E3779B9u);
  h ^= h >> 15;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return double(int(h % 65u) - 32) / 32.0;
}

// Host bits of v (exactly representable) in dt, and back.
std::vector<uint8_t> encode(DType dt, const std::vector<double>& v) {
  const size_t es = opbench::dtype_size(dt);
  std::vector<uint8_t> out(v.size() * es);
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::bf16) {
      const __nv_bfloat16 h = __double2bfloat16(v[i]);
      std::memcpy(&out[i * es], &h, es);
    } else if (dt == DType::f16) {
      const __half h = __double2half(v[i]);
      std::memcpy(&out[i * es], &h, es);
    } else {
      const float f = float(v[i]);
      std::memcpy(&out[i * es], &f, es);
    }
  }
  return out;
}

double decode(DType dt, const uint8_t* p) {
  if (dt == DType::bf16) {
    __nv_bfloat16 h;
    std::memcpy(&h, p, 2);
    return double(__bfloat162float(h));
  }
  if (dt == DType::f16) {
    __half h;
    std::memcpy(&h, p, 2);
    return double(__half2float(h));
  }
  float f;
  std::memcpy(&f, p, 4);
  return double(f);
}

// Half an ulp of |ref| in dt's significand (8 bits bf16, 11 fp16, fp32 C exact here).
double half_ulp(DType dt, double ref) {
  if (ref == 0.0 || dt == DType::f32) return 0.0;
  const int bits = dt == DType::bf16 ? 8 : 11;
  return std::ldexp(1.0, std::ilogb(ref) - bits);
}

class GemmConfigs : public opbench::testing_gpu::SkipWithoutGpu<> {};

// Runs every configuration (and split count, where it splits) on one problem; counts what ran.
void check_all(DType dt, GemmLayout layout, bool with_bias, const Dims& d, int& ran) {
  const int64_t B = d.batch, M = d.M, N = d.N, K = d.K;
  std::vector<double> a(static_cast<size_t>(B * M * K)), b(static_cast<size_t>(B * K * N));
  std::vector<double> bias(static_cast<size_t>(N));
  for (size_t i = 0; i < a.size(); ++i) a[i] = value_at(i, 1);
  for (size_t i = 0; i < b.size(); ++i) b[i] = value_at(i, 2);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = value_at(i, 3);
  std::vector<double> ref(static_cast<size_t>(B * M * N));
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = with_bias ? bias[size_t(n)] : 0.0;
        for (int64_t k = 0; k < K; ++k) {
          const double bv = layout == GemmLayout::nk ? b[size_t((bb * N + n) * K + k)] : b[size_t((bb * K + k) * N + n)];
          s += a[size_t((bb * M + m) * K + k)] * bv;
        }
        ref[size_t((bb * M + m) * N + n)] = s;
      }
  const size_t es = opbench::dtype_size(dt);
  const std::vector<uint8_t> ha = encode(dt, a), hb = encode(dt, b), hbias = encode(dt, bias);
  void *da = nullptr, *db = nullptr, *dbias = nullptr, *dc = nullptr;
  CUDA_OK(cudaMalloc(&da, ha.size()));
  CUDA_OK(cudaMalloc(&db, hb.size()));
  CUDA_OK(cudaMalloc(&dbias, hbias.size()));
  CUDA_OK(cudaMalloc(&dc, ref.size() * es));
  CUDA_OK(cudaMemcpy(da, ha.data(), ha.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dbias, hbias.data(), hbias.size(), cudaMemcpyHostToDevice));
  const GemmArgs args{dt, layout, da, db, with_bias ? dbias : nullptr, dc, B, M, N, K};
  const bool tf32 = dt == DType::f32;
  const bool tf32_kn = tf32 && layout == GemmLayout::kn;  // C^T = B^T A^T (gemm_sm90.cu, A_MN)
  if (!(tf32_kn ? fw::detail::sm90_tf32_kn_supported(args) : fw::detail::sm90_supported(args, tf32))) {
    cudaFree(da), cudaFree(db), cudaFree(dbias), cudaFree(dc);
    return;
  }
  std::vector<uint8_t> got(ref.size() * es);
  for (int ci = 0; ci < int(Sm90Config::count); ++ci) {
    const Sm90Config c = Sm90Config(ci);
    if (!fw::detail::sm90_config_takes(c, dt, layout)) continue;  // the 160- and 224-wide tiles: 16-bit W[N, K] only
    const bool cluster = fw::detail::sm90_shape(c).cl > 1;
    // Per-k-block sums: TF32 tiles at most 192 wide, cluster pairs included, not a K-pair (tensor-core sums only).
    const bool block_sums = tf32 && fw::detail::sm90_shape(c).bn <= 192 && !fw::detail::sm90_shape(c).k_split;
    // splits 1 and 3; TF32 also with per-k-block sums, on tiles at most 192 wide: W as [N, K] unsplit, and 3xTF32
    // in the kernel of either layout (for B as [K, N] the only per-k-block form), split in one, three and eight (its
    // rule splits short K down to one k-block a split: tf32x3_splits_by_rounds).
    enum class Form { plain, block_sums, split_a };
    struct Mode {
      int splits;
      Form form;
    };
    for (const Mode& m : {Mode{1, Form::plain}, Mode{3, Form::plain}, Mode{1, Form::block_sums},
                          Mode{1, Form::split_a}, Mode{3, Form::split_a}, Mode{8, Form::split_a}}) {
      const int splits = m.splits;
      if (m.form != Form::plain && !block_sums) continue;
      if (m.form == Form::block_sums && tf32_kn) continue;  // B as [K, N]: per-k-block sums are 3xTF32's only
      if (m.form == Form::split_a && !(tf32 && fw::detail::tf32x3_split_a_takes(c, args))) continue;
      if (splits > 1 && (cluster || (tf32 && !tf32_kn && m.form != Form::split_a)))
        continue;  // split-K: 16-bit, and TF32 of the transposed problem, cluster-free
      if ((tf32_kn || m.form == Form::split_a) && cluster) continue;  // the transposed problem: cluster-free
      GemmArgs run = args;
      CUDA_OK(cudaMemset(dc, 0xFF, got.size()));        // NaN in every type: an unwritten element fails
      if (m.form == Form::split_a) {
        fw::detail::gemm_tf32x3_split_a(run, c, splits, nullptr);
      } else {
        if (m.form == Form::block_sums) run.accumulate = fw::detail::Accumulate::per_k_block;
        fw::detail::gemm_sm90(run, c, nullptr, splits);
      }
      CUDA_OK(cudaDeviceSynchronize());
      CUDA_OK(cudaMemcpy(got.data(), dc, got.size(), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (size_t i = 0; i < ref.size() && bad < 5; ++i) {
        const double g = decode(dt, &got[i * es]);
        if (!(std::fabs(g - ref[i]) <= half_ulp(dt, ref[i]))) {
          ++bad;
          ADD_FAILURE() << opbench::dtype_name(dt) << (layout == GemmLayout::nk ? " nk" : " kn")
                        << (with_bias ? " +bias" : "") << " " << B << "x" << M << "x" << N << "x" << K << " "
                        << fw::detail::sm90_config_name(c)
                        << (m.form == Form::split_a      ? " 3xTF32 in the kernel"
                            : m.form == Form::block_sums ? " block sums"
                                                         : "")
                        << " splits " << splits
                        << ": C[" << i << "] = " << g
                        << ", exact " << ref[i];
        }
      }
      ++ran;
    }
  }
  cudaFree(da), cudaFree(db), cudaFree(dbias), cudaFree(dc);
}

// {4, 700, 700, 40} and {6, 520, 700, 64}: more tiles than an H100 has SMs (split in three for every configuration;
// unsplit from the 128x160 tile down), so a CTA runs several tiles in turn, and its TMA-store epilogue reuses its
// buffers. The last: more units than an H100's 132 SMs hold pairs at once (at most 66): 72 of 128x256 pairs and 144
// of 128x128, so a pair runs two or three units: its producer leaves its first STAGES k-blocks (each CTA loading
// the whole B tile) in a later unit than its first, then multicasts, and its tail waits after several units.
const Dims kShapes[] = {{1, 200, 456, 520}, {3, 70, 200, 136}, {1, 1, 384, 256},
                        {4, 700, 700, 40},  {6, 520, 700, 64}, {3, 1536, 1024, 192}};

TEST_F(GemmConfigs, EveryConfigurationExact16Bit) {
  int ran = 0;
  for (DType dt : {DType::bf16, DType::f16})
    for (GemmLayout layout : {GemmLayout::nk, GemmLayout::kn})
      for (const Dims& d : kShapes) check_all(dt, layout, layout == GemmLayout::nk, d, ran);
  if (ran == 0) GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
}

TEST_F(GemmConfigs, EveryConfigurationExactTf32) {
  int ran = 0;
  for (GemmLayout layout : {GemmLayout::nk, GemmLayout::kn})
    for (const Dims& d : kShapes) check_all(DType::f32, layout, layout == GemmLayout::nk, d, ran);
  if (ran == 0) GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
}

// A chain as the decoder queues it: y1 = x W1^T, then y2 = y1 W2^T as a programmatic dependent launch
// (fw::GemmLaunch::dependent). y1 is pre-filled with NaN and its GEMM has fewer tiles than the GPU has SMs (32 of
// 64x64 on the H100), so the dependent GEMM's CTAs start on the SMs it leaves idle while it runs: had they read y1
// before their wait, y2 would hold NaN or stale values. y2 is checked against an fp64 sum over the y1 the device
// wrote: the products are exact in fp32 (8 x 6 significant bits), so the error is fp32 accumulation (at most K
// eps32 of the sum of |terms|) and C's rounding.
TEST_F(GemmConfigs, DependentGemmReadsThePreviousGemmsOutput) {
  const DType dt = DType::bf16;
  const int64_t M = 256, N1 = 512, K1 = 2048, N2 = 256;
  std::vector<double> x(size_t(M * K1)), w1(size_t(N1 * K1)), w2(size_t(N2 * N1));
  for (size_t i = 0; i < x.size(); ++i) x[i] = value_at(i, 11);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = value_at(i, 12);
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = value_at(i, 13);
  const std::vector<uint8_t> hx = encode(dt, x), hw1 = encode(dt, w1), hw2 = encode(dt, w2);
  void *dx = nullptr, *dw1 = nullptr, *dw2 = nullptr, *dy1 = nullptr, *dy2 = nullptr;
  CUDA_OK(cudaMalloc(&dx, hx.size()));
  CUDA_OK(cudaMalloc(&dw1, hw1.size()));
  CUDA_OK(cudaMalloc(&dw2, hw2.size()));
  CUDA_OK(cudaMalloc(&dy1, size_t(M * N1) * 2));
  CUDA_OK(cudaMalloc(&dy2, size_t(M * N2) * 2));
  CUDA_OK(cudaMemcpy(dx, hx.data(), hx.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dw1, hw1.data(), hw1.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dw2, hw2.data(), hw2.size(), cudaMemcpyHostToDevice));
  const GemmArgs first{dt, GemmLayout::nk, dx, dw1, nullptr, dy1, 1, M, N1, K1};
  if (!fw::detail::sm90_supported(first)) {
    cudaFree(dx), cudaFree(dw1), cudaFree(dw2), cudaFree(dy1), cudaFree(dy2);
    GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
  }
  int sms = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const Sm90Config c1 = fw::detail::sm90_pick(first);
  const fw::detail::Sm90Shape& k1 = fw::detail::sm90_shape(c1);
  ASSERT_LT(fw::detail::sm90_tiles(first, k1.bm, k1.bn) * fw::detail::sm90_splitk(first, c1), sms)
      << "the first GEMM must leave SMs idle for the dependent one's CTAs";
  for (int rep = 0; rep < 3; ++rep) {
    CUDA_OK(cudaMemset(dy1, 0xFF, size_t(M * N1) * 2));  // NaN
    CUDA_OK(cudaMemset(dy2, 0xFF, size_t(M * N2) * 2));
    CUDA_OK(cudaDeviceSynchronize());
    fw::gemm(dt, GemmLayout::nk, dx, dw1, nullptr, dy1, 1, M, N1, K1, false, nullptr);
    fw::gemm(dt, GemmLayout::nk, dy1, dw2, nullptr, dy2, 1, M, N2, N1, false, nullptr, fw::GemmLaunch::dependent);
    CUDA_OK(cudaDeviceSynchronize());
  }
  std::vector<uint8_t> g1(size_t(M * N1) * 2), g2(size_t(M * N2) * 2);
  CUDA_OK(cudaMemcpy(g1.data(), dy1, g1.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(g2.data(), dy2, g2.size(), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int64_t m = 0; m < M && bad < 5; ++m)
    for (int64_t n = 0; n < N2 && bad < 5; ++n) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < N1; ++k) {
        const double t = decode(dt, &g1[size_t(m * N1 + k) * 2]) * w2[size_t(n * N1 + k)];
        ref += t, mag += std::fabs(t);
      }
      const double got = decode(dt, &g2[size_t(m * N2 + n) * 2]);
      const double bound = half_ulp(dt, ref) + double(N1) * std::ldexp(mag, -23);
      if (!(std::fabs(got - ref) <= bound)) {
        ++bad;
        ADD_FAILURE() << "y2[" << m << "][" << n << "] = " << got << ", fp64 over the device's y1: " << ref;
      }
    }
  cudaFree(dx), cudaFree(dw1), cudaFree(dw2), cudaFree(dy1), cudaFree(dy2);
}

// 3xTF32 (gemm_tf32x3.cu) on normal operands, which TF32 does not hold exactly, against an fp64 reference:
// fp32-class error (the bound: normwise 1e-6, each element within 2^-20 of its sum of |a·b|), while one TF32
// pass of the same operands must be over 30 times further off, so the bound tells the two apart. The test
// prints the errors it measured.
struct Tf32x3Error {
  double rel_l2 = 0, worst_vs_abs_sum = 0;
};

// How the product runs: gemm_tf32x3, gemm_tf32x3_split_a (3xTF32 in the kernel; B as [K, N] without a bias, W as
// [N, K] with one) or one TF32 pass (sm90_pick's).
enum class Method { tf32x3, tf32x3_split_a, one_pass };

Tf32x3Error tf32x3_error(GemmLayout layout, const Dims& d, Method method) {
  const int64_t B = d.batch, M = d.M, N = d.N, K = d.K;
  std::vector<float> a(static_cast<size_t>(B * M * K)), b(static_cast<size_t>(B * K * N)),
      bias(static_cast<size_t>(N));
  uint32_t st = 12345;
  auto normal = [&st] {  // Box-Muller on a small LCG: deterministic, no <random> distribution drift
    st = st * 1664525u + 1013904223u;
    const double u1 = (double(st >> 8) + 1.0) / 16777217.0;
    st = st * 1664525u + 1013904223u;
    const double u2 = double(st >> 8) / 16777216.0;
    return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  };
  for (float& v : a) v = normal();
  for (float& v : b) v = normal();
  for (float& v : bias) v = normal();
  void *da = nullptr, *db = nullptr, *dbias = nullptr, *dc = nullptr;
  EXPECT_EQ(cudaMalloc(&da, a.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&db, b.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dbias, bias.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dc, size_t(B * M * N) * 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dbias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const bool with_bias = layout == GemmLayout::nk || method != Method::tf32x3_split_a;
  const GemmArgs args{DType::f32, layout, da, db, with_bias ? dbias : nullptr, dc, B, M, N, K};
  if (method == Method::tf32x3) {
    EXPECT_TRUE(fw::detail::tf32x3_supported(args));
    fw::detail::gemm_tf32x3(args, nullptr);
  } else if (method == Method::tf32x3_split_a) {
    EXPECT_TRUE(fw::detail::tf32x3_split_a_supported(args));
    fw::detail::gemm_tf32x3_split_a(args, nullptr);
  } else {
    fw::detail::gemm_sm90(args, fw::detail::sm90_pick(args), nullptr);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(size_t(B * M * N));
  EXPECT_EQ(cudaMemcpy(got.data(), dc, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(da), cudaFree(db), cudaFree(dbias), cudaFree(dc);
  Tf32x3Error e;
  double num = 0, den = 0;
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        const double bn = with_bias ? bias[size_t(n)] : 0.0;
        double s = bn, abs_sum = std::fabs(bn);
        for (int64_t k = 0; k < K; ++k) {
          const double bv =
              layout == GemmLayout::nk ? b[size_t((bb * N + n) * K + k)] : b[size_t((bb * K + k) * N + n)];
          const double p = double(a[size_t((bb * M + m) * K + k)]) * bv;
          s += p;
          abs_sum += std::fabs(p);
        }
        const double err = double(got[size_t((bb * M + m) * N + n)]) - s;
        num += err * err;
        den += s * s;
        e.worst_vs_abs_sum = std::max(e.worst_vs_abs_sum, std::fabs(err) / abs_sum);
      }
  e.rel_l2 = std::sqrt(num / den);
  return e;
}

TEST_F(GemmConfigs, Tf32x3HasFp32Accuracy) {
  alignas(16) float dummy[4] = {};  // a 16-byte aligned address for the support checks (never read)
  const GemmArgs probe{DType::f32, GemmLayout::nk, dummy, dummy, nullptr, dummy, 1, 64, 64, 64};
  if (!fw::detail::tf32x3_supported(probe))
    GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
  // Both layouts both ways: B split in memory (gemm_tf32x3; B as [K, N] transposed first), and in the kernel
  // (gemm_tf32x3_split_a).
  struct Run {
    GemmLayout layout;
    Method method;
    const char* name;
  };
  for (const Run& r : {Run{GemmLayout::nk, Method::tf32x3, "nk "}, Run{GemmLayout::kn, Method::tf32x3, "kn "},
                       Run{GemmLayout::kn, Method::tf32x3_split_a, "kn in-kernel "},
                       Run{GemmLayout::nk, Method::tf32x3_split_a, "nk in-kernel "}})
    for (const Dims& d : {Dims{1, 200, 456, 520}, Dims{3, 70, 200, 136}, Dims{1, 1, 384, 256}, Dims{1, 256, 256, 2048},
                          Dims{2, 1100, 1000, 128}, Dims{1, 64, 1024, 4096}}) {
      const Tf32x3Error e = tf32x3_error(r.layout, d, r.method);
      const std::string what = std::string(r.name) + std::to_string(d.batch) + "x" + std::to_string(d.M) + "x" +
                               std::to_string(d.N) + "x" + std::to_string(d.K);
      EXPECT_LE(e.rel_l2, 1e-6) << what;
      EXPECT_LE(e.worst_vs_abs_sum, std::ldexp(1.0, -20)) << what;
      if (r.layout == GemmLayout::nk) {  // one TF32 pass of the same operands fails the same bound
        const Tf32x3Error one = tf32x3_error(r.layout, d, Method::one_pass);
        EXPECT_GT(one.rel_l2, 30 * e.rel_l2) << what << ": one TF32 pass " << one.rel_l2 << ", 3xTF32 " << e.rel_l2;
      }
      std::printf("3xTF32 %s: rel_l2 %.2e, worst |err| / sum|a*b| %.2e\n", what.c_str(), e.rel_l2, e.worst_vs_abs_sum);
    }
  const GemmArgs odd{DType::f32, GemmLayout::nk, dummy, dummy, nullptr, dummy, 1, 64, 64, 130};
  EXPECT_FALSE(fw::detail::tf32x3_supported(odd)) << "K % 4 != 0 has no float4 split";
}

}  // namespace
