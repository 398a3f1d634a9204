// The short evaluations that pow, pow_scalar, softplus, gelu, log, sigmoid, silu, gelu_tanh, sin and cos use when
// their result is stored in fp16 or bf16 (kernels/elementwise/ops.cuh, namespace short16, where the error bound is
// derived): on every 16-bit input, the stored result is within one ulp of the correctly rounded value (std::pow,
// std::log1p, std::erfc, std::log, std::exp, std::sin, std::cos in double, rounded once), NaN exactly where the
// reference is NaN; pow_scalar's fp32 fast path for half-integer exponents within its derived bound; and pow in fp32
// giving the host evaluation's bits (tests/unit/test_pow_f32.cpp checks its accuracy). Skipped, with the reason,
// without a GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.hpp"
#include "kernels/elementwise/pow_f32.hpp"
#include "tests/gpu/gpu_skip.hpp"

namespace {

using opbench::DType;
using Bits = std::vector<uint16_t>;



uint16_t round16(DType dt, double v) {
  uint16_t b;
  if (dt == DType::bf16) {
    const __nv_bfloat16 h = __double2bfloat16(v);
    std::memcpy(&b, &h, 2);
  } else {
    const __half h = __double2half(v);
    std::memcpy(&b, &h, 2);
  }
  return b;
}

double value16(DType dt, uint16_t b) {
  if (dt == DType::bf16) {
    __nv_bfloat16 h;
    std::memcpy(&h, &b, 2);
    return double(__bfloat162float(h));
  }
  __half h;
  std::memcpy(&h, &b, 2);
  return double(__half2float(h));
}

bool is_nan16(DType dt, uint16_t b) { return std::isnan(value16(dt, b)); }

// Position on the number line: neighbours differ by 1, the largest finite value and inf too, +0 = -0.
int ordered(uint16_t b) { return (b & 0x8000) ? -int(b & 0x7fff) : int(b & 0x7fff); }

Bits all_patterns() {
  Bits v(65536);
  for (int i = 0; i < 65536; ++i) v[i] = uint16_t(i);
  return v;
}

// Runs `launch` on the device over inputs a (and b, unless empty), and returns the outputs, of a's element type.
template <class E>
std::vector<E> run(const std::vector<E>& a, const std::vector<E>& b,
                   const std::function<void(const void*, const void*, void*, int64_t)>& launch) {
  const size_t bytes = a.size() * sizeof(E);
  void *da = nullptr, *db = nullptr, *dy = nullptr;
  std::vector<E> y(a.size());
  EXPECT_EQ(cudaMalloc(&da, bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&db, bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dy, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  if (!b.empty()) EXPECT_EQ(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  launch(da, db, dy, int64_t(a.size()));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dy);
  return y;
}

// Every output against the reference; returns how many differ from it by exactly one ulp (for the log).
int expect_within_one_ulp(DType dt, const Bits& x, const Bits& y, const std::function<double(size_t)>& ref,
                          const std::string& what) {
  int off_by_one = 0, failures = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const uint16_t want = round16(dt, ref(i));
    const bool nan_want = is_nan16(dt, want), nan_got = is_nan16(dt, y[i]);
    const int d = std::abs(ordered(want) - ordered(y[i]));
    if (nan_want != nan_got || (!nan_want && d > 1)) {
      if (++failures <= 5)
        ADD_FAILURE() << what << " " << opbench::dtype_name(dt) << " at x = " << value16(dt, x[i]) << " (0x" << std::hex
                      << x[i] << std::dec << "): got " << value16(dt, y[i]) << ", correctly rounded "
                      << value16(dt, want) << " (" << ref(i) << ")";
    } else if (!nan_want && d == 1) {
      ++off_by_one;
    }
  }
  EXPECT_EQ(failures, 0) << what << " " << opbench::dtype_name(dt) << ": " << failures << " results off by more than one ulp";
  return off_by_one;
}

class ShortMath : public opbench::testing_gpu::SkipWithoutGpu<testing::TestWithParam<DType>> {};

// Every half-integer exponent +-0.5 .. +-2 takes ops::PowHalfSteps (products and a square root), the others
// short16::pow. PowHalfSteps tests its range per packet of 8 (engine.cuh, guarded_of): the inputs in bit order give
// packets all inside, all outside and mixed.
TEST_P(ShortMath, PowScalarOnEveryInput) {
  const DType dt = GetParam();
  const Bits x = all_patterns();
  for (float s : {1.5f, 2.f, 3.f, 0.5f, -0.5f, -1.f, -1.5f, -2.f, 1.f, -2.3f, 7.1f, 0.f, 100.f, -37.f, 1e-3f,
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    const Bits y = run(x, {}, [&](const void* a, const void*, void* out, int64_t n) {
      fw::unary(fw::UnaryOp::pow_scalar, dt, a, out, n, s, nullptr);
    });
    const int ones = expect_within_one_ulp(
        dt, x, y, [&](size_t i) { return std::pow(value16(dt, x[i]), double(s)); }, "pow_scalar " + std::to_string(s));
    std::printf("pow_scalar %s exponent %g: %d of 65536 one ulp from the correctly rounded value\n",
                opbench::dtype_name(dt), double(s), ones);
  }
}

TEST_P(ShortMath, PowOnEveryBaseWithManyExponents) {
  const DType dt = GetParam();
  const Bits x = all_patterns();
  std::vector<double> exps = {0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -0.5, 1.5, -2.5, 7.0, 10.25, -13.0, 100.0,
                              std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
  for (double e : exps) {
    const Bits b(x.size(), round16(dt, e));
    const Bits y = run(x, b, [&](const void* a, const void* bb, void* out, int64_t n) {
      fw::binary(fw::BinaryOp::pow, dt, a, bb, out, 1, n, fw::Broadcast::none, nullptr);
    });
    const double ev = value16(dt, b[0]);
    expect_within_one_ulp(dt, x, y, [&](size_t i) { return std::pow(value16(dt, x[i]), ev); },
                          "pow with exponent " + std::to_string(ev));
  }
  // Every base against an exponent drawn from all finite 16-bit values (a fixed pseudo-random pairing).
  Bits b(x.size());
  uint32_t r = 12345;
  for (auto& v : b) {
    do {
      r = r * 1664525u + 1013904223u;
      v = uint16_t(r >> 16);
    } while (!std::isfinite(value16(dt, v)));
  }
  const Bits y = run(x, b, [&](const void* a, const void* bb, void* out, int64_t n) {
    fw::binary(fw::BinaryOp::pow, dt, a, bb, out, 1, n, fw::Broadcast::none, nullptr);
  });
  const int ones = expect_within_one_ulp(
      dt, x, y, [&](size_t i) { return std::pow(value16(dt, x[i]), value16(dt, b[i])); }, "pow, random exponents");
  std::printf("pow %s, random finite exponents: %d of 65536 one ulp from the correctly rounded value\n",
              opbench::dtype_name(dt), ones);
}

// A one-argument op on every 16-bit input against its reference in double, rounded once.
void expect_unary_on_every_input(DType dt, fw::UnaryOp op, const char* name, double (*ref)(double)) {
  const Bits x = all_patterns();
  const Bits y = run(x, {}, [&](const void* a, const void*, void* out, int64_t n) {
    fw::unary(op, dt, a, out, n, 0.f, nullptr);
  });
  const int ones = expect_within_one_ulp(dt, x, y, [&](size_t i) { return ref(value16(dt, x[i])); }, name);
  std::printf("%s %s: %d of 65536 one ulp from the correctly rounded value\n", name, opbench::dtype_name(dt), ones);
}

TEST_P(ShortMath, SoftplusOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::softplus, "softplus",
                              [](double v) { return v > 20.0 ? v : std::log1p(std::exp(v)); });
}

TEST_P(ShortMath, LogOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::log, "log", [](double v) { return std::log(v); });
}

// The logistic function and the two activations built on it, each in a form without cancellation (x sigma(z), no
// 1 - sigma or 1 + tanh): the reference is the exact value, not fp32's rounding of torch's formula.
TEST_P(ShortMath, SigmoidOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::sigmoid, "sigmoid",
                              [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}

TEST_P(ShortMath, SiluOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::silu, "silu", [](double v) { return v / (1.0 + std::exp(-v)); });
}

TEST_P(ShortMath, GeluTanhOnEveryInput) {  // x (1 + tanh(y)) / 2 = x / (1 + e^(-2y)), y = sqrt(2 / pi) (x + 0.044715 x^3)
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::gelu_tanh, "gelu_tanh", [](double v) {
    return v / (1.0 + std::exp(-2.0 * 0.79788456080286535588 * (v + 0.044715 * v * v * v)));
  });
}

// sin and cos: the reduction by pi/2 in two FMAs for |x| < 2^17 (every finite fp16 value and bf16's up to there),
// sinf / cosf beyond (bf16's larger values, inf, NaN), each element tested on its own (ops.cuh, SinCos).
TEST_P(ShortMath, SinOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::sin, "sin", [](double v) { return std::sin(v); });
}

TEST_P(ShortMath, CosOnEveryInput) {
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::cos, "cos", [](double v) { return std::cos(v); });
}

TEST_P(ShortMath, GeluOnEveryInput) {  // x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation in the lower tail
  expect_unary_on_every_input(GetParam(), fw::UnaryOp::gelu, "gelu",
                              [](double v) { return v * 0.5 * std::erfc(-v * 0.70710678118654752440); });
}

// Distance of two fp32 values on the number line (+0 = -0).
int64_t ulps(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  const int64_t oa = ia < 0 ? -int64_t(ia & 0x7fffffff) : ia, ob = ib < 0 ? -int64_t(ib & 0x7fffffff) : ib;
  return oa > ob ? oa - ob : ob - oa;
}

// One fp32 bit pattern in every 4093 across the whole range: both signs, every class.
std::vector<float> fp32_patterns() {
  std::vector<float> x;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 4093) {
    float v;
    const uint32_t u = uint32_t(b);
    std::memcpy(&v, &u, 4);
    x.push_back(v);
  }
  return x;
}

// What powf gives where no short evaluation holds, against `want`, pow in double rounded to fp32: NaN where it is NaN,
// zeros and infinities with their sign, finite values within 4 ulp (powf's documented bound).
bool like_powf(float want, float got) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (want == 0.f || std::isinf(want)) return want == got && std::signbit(want) == std::signbit(got);
  return ulps(want, got) <= 4;
}

// pow_scalar in fp32 on the exponents it evaluates by products and a square root (ops.cuh, PowHalfSteps):
// within the derived 2^-22 relative error of pow in double for |x| in [2^-30, 2^30], and on every other x
// (powf's inputs there: zeros, subnormals, huge values, infinities, NaN, negative x) the special values
// exactly (NaN, signed zero, signed infinity) and finite results within 4 ulp. The inputs: one fp32 bit
// pattern in every 4093 across the whole range (both signs), and the edges of the fast range.
class PowScalarFp32 : public opbench::testing_gpu::SkipWithoutGpu<> {};

TEST_F(PowScalarFp32, HalfIntegerExponents) {
  std::vector<float> x = fp32_patterns();
  for (float e : {0x1p-30f, 0x1p30f, std::nextafter(0x1p-30f, 0.f), std::nextafter(0x1p30f, 1e38f), 0.f, -0.f, 1.f, -1.f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()})
    for (float sign : {1.f, -1.f}) x.push_back(sign * e);
  const size_t n = x.size();
  for (float s : {0.5f, -0.5f, 1.f, -1.f, 1.5f, -1.5f, 2.f, -2.f}) {
    const std::vector<float> y = run(x, {}, [&](const void* a, const void*, void* out, int64_t m) {
      fw::unary(fw::UnaryOp::pow_scalar, DType::f32, a, out, m, s, nullptr);
    });
    int failures = 0;
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      const double ref = std::pow(double(x[i]), double(s));
      const double a = std::fabs(double(x[i]));
      bool ok;
      if (a >= 0x1p-30 && a <= 0x1p30 && !std::isnan(y[i])) {
        const double rel = std::fabs(double(y[i]) - ref) / std::fabs(ref);
        worst = std::max(worst, rel);
        ok = rel <= 0x1p-22;
      } else {
        ok = like_powf(float(ref), y[i]);
      }
      if (!ok && ++failures <= 5)
        ADD_FAILURE() << "pow_scalar fp32 exponent " << s << " at x = " << x[i] << ": got " << y[i] << ", pow in double "
                      << ref;
    }
    EXPECT_EQ(failures, 0) << "pow_scalar fp32 exponent " << s;
    std::printf("pow_scalar fp32 exponent %g: %zu inputs, largest relative error on the fast range %.3g (bound 2^-22 = %.3g)\n",
                double(s), n, worst, 0x1p-22);
  }
}

// pow in fp32 takes one of two evaluations by the size of its output (fw::pow_fp32_in_double; binary.cu says why), and
// both are run: the sample as it is (powf throughout on a GPU of 64 SMs or more) and tiled to 16 times its size (a
// deep grid on any GPU of up to 1024 SMs: double arithmetic). In double arithmetic, on positive normal bases with
// finite exponents, the result is pow32::fast's (pow_f32.hpp), whose accuracy tests/unit/test_pow_f32.cpp checks on
// the host: here the GPU must give the host's bits exactly. Every other input, and every input of the powf
// evaluation, takes powf: NaN where pow in double is NaN, infinities and zeros with their sign, finite results within
// 4 ulp (powf's documented bound). The bases: one fp32 bit pattern in every 4093 across the whole range (both signs,
// every class); each paired with a special exponent (zeros, +-1, +-inf, NaN, large) or, mostly, one that puts
// y log2(x) anywhere in [-160, 160] (past both ends of fp32's range).
class PowFp32 : public opbench::testing_gpu::SkipWithoutGpu<> {};

TEST_F(PowFp32, GivesTheHostsBitsInDoubleArithmeticAndPowfsElsewhere) {
  namespace pow32 = fw::ops::pow32;
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.f, -0.f, 1.f, -1.f, 2.f, 0.5f, -3.f, 7.25f, 1e30f, -1e30f, inf, -inf,
                            std::numeric_limits<float>::quiet_NaN()};
  const std::vector<float> x0 = fp32_patterns();
  std::vector<float> y0;
  uint32_t r = 20261129;
  for (float v : x0) {
    r = r * 1664525u + 1013904223u;
    const double l2 = std::log2(std::fabs(double(v)));
    const bool special = r % 8 == 0 || !std::isfinite(l2) || l2 == 0;
    y0.push_back(special ? specials[(r >> 8) % 13] : float((-160.0 + 320.0 * double(r >> 8) / double(1 << 24)) / l2));
  }
  const size_t n0 = x0.size();
  std::vector<float> in_double(n0), powd(n0);  // pow32::fast where it holds (NaN elsewhere), and pow in double
  for (size_t i = 0; i < n0; ++i) {
    in_double[i] = pow32::in_fast(x0[i], y0[i]) ? pow32::fast(x0[i], y0[i], pow32::HostTables{}) : NAN;
    powd[i] = float(std::pow(double(x0[i]), double(y0[i])));
  }
  EXPECT_TRUE(fw::pow_fp32_in_double(int64_t(16 * n0)));
  for (size_t copies : {size_t(1), size_t(16)}) {
    std::vector<float> x, y;
    for (size_t c = 0; c < copies; ++c) {
      x.insert(x.end(), x0.begin(), x0.end());
      y.insert(y.end(), y0.begin(), y0.end());
    }
    const size_t n = x.size();
    const bool dbl = fw::pow_fp32_in_double(int64_t(n));
    const std::vector<float> z = run(x, y, [](const void* a, const void* b, void* out, int64_t m) {
      fw::binary(fw::BinaryOp::pow, DType::f32, a, b, out, 1, m, fw::Broadcast::none, nullptr);
    });
    size_t fast = 0;
    int failures = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = i % n0;
      const bool exact = dbl && pow32::in_fast(x[i], y[i]);
      fast += exact;
      const float want = exact ? in_double[k] : powd[k];
      const bool ok = exact ? std::memcmp(&want, &z[i], 4) == 0 : like_powf(want, z[i]);
      if (!ok && ++failures <= 8)
        ADD_FAILURE() << std::hexfloat << "pow fp32 (" << x[i] << ", " << y[i] << ") of " << std::dec << n
                      << std::hexfloat << ": GPU " << z[i] << ", expected " << want
                      << (exact ? " (the host's pow32::fast)" : " (pow in double, within powf's 4 ulp)");
    }
    EXPECT_EQ(failures, 0) << n << " elements";
    if (dbl) EXPECT_GT(fast, n / 3);
    std::printf("pow fp32 of %zu elements: %s; %zu on pow32's path (the host's bits), the rest within powf's bound\n",
                n, dbl ? "double arithmetic" : "powf throughout", fast);
  }
}

std::string dtype_case(const testing::TestParamInfo<DType>& info) { return opbench::dtype_name(info.param); }

INSTANTIATE_TEST_SUITE_P(Dtypes, ShortMath, testing::Values(DType::bf16, DType::f16), dtype_case);

}  // namespace
