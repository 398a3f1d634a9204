// Every tile configuration of the wgmma GEMM (gemm_sm90.cu), forced, split and unsplit, against an exact
// host reference: fw::gemm runs the one its cost model picks per shape, so the configurations it picks for
// none of the test shapes (the cluster pairs, 128x192 outside N ~ 10^4) would otherwise go untested.
// Operands are multiples of 1/32 in [-1, 1] (exact in bf16, fp16 and TF32), so every product and every
// fp32 partial sum at these K is exact: the only error left is the one rounding of C to its type, at most
// half an ulp (TF32 with fp32 C: none). Shapes with tails in M, N and K, a batch, and decode-like M = 1.
// Skipped, with the reason, without a GPU or where the sm_90a kernels cannot run (not cc 9.0).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
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

class GemmConfigs : public testing::Test {
 protected:
  void SetUp() override {
    static const std::string reason = opbench::testing_gpu::skip_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

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
  if (!fw::detail::sm90_supported(args, tf32)) {
    cudaFree(da), cudaFree(db), cudaFree(dbias), cudaFree(dc);
    return;
  }
  std::vector<uint8_t> got(ref.size() * es);
  for (int ci = 0; ci < int(Sm90Config::count); ++ci) {
    const Sm90Config c = Sm90Config(ci);
    const bool cluster = c == Sm90Config::bm128_bn256_cl2 || c == Sm90Config::bm128_bn128_cl2;
    for (int splits : {1, 3}) {
      if (splits > 1 && (cluster || tf32)) continue;  // split-K: 16-bit, cluster-free configurations
      CUDA_OK(cudaMemset(dc, 0xFF, got.size()));        // NaN in every type: an unwritten element fails
      fw::detail::gemm_sm90(args, c, nullptr, splits);
      CUDA_OK(cudaDeviceSynchronize());
      CUDA_OK(cudaMemcpy(got.data(), dc, got.size(), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (size_t i = 0; i < ref.size() && bad < 5; ++i) {
        const double g = decode(dt, &got[i * es]);
        if (!(std::fabs(g - ref[i]) <= half_ulp(dt, ref[i]))) {
          ++bad;
          ADD_FAILURE() << opbench::dtype_name(dt) << (layout == GemmLayout::nk ? " nk" : " kn")
                        << (with_bias ? " +bias" : "") << " " << B << "x" << M << "x" << N << "x" << K << " "
                        << fw::detail::sm90_config_name(c) << " splits " << splits << ": C[" << i << "] = " << g
                        << ", exact " << ref[i];
        }
      }
      ++ran;
    }
  }
  cudaFree(da), cudaFree(db), cudaFree(dbias), cudaFree(dc);
}

const Dims kShapes[] = {{1, 200, 456, 520}, {3, 70, 200, 136}, {1, 1, 384, 256}};

TEST_F(GemmConfigs, EveryConfigurationExact16Bit) {
  int ran = 0;
  for (DType dt : {DType::bf16, DType::f16})
    for (GemmLayout layout : {GemmLayout::nk, GemmLayout::kn})
      for (const Dims& d : kShapes) check_all(dt, layout, layout == GemmLayout::nk, d, ran);
  if (ran == 0) GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
}

TEST_F(GemmConfigs, EveryConfigurationExactTf32) {
  int ran = 0;
  for (const Dims& d : kShapes) check_all(DType::f32, GemmLayout::nk, true, d, ran);
  if (ran == 0) GTEST_SKIP() << "the sm_90a wgmma kernels do not run on this GPU (cc 9.0 only)";
}

}  // namespace
