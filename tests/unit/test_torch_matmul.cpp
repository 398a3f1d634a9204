// Known-answer tests of the matmul category's LibTorch references (src/reference/torch_matmul.cpp) on
// small CPU tensors. Expected values come from explicit loops in double over the same inputs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference {
namespace {

const TorchFn& fn(const char* name) {
  const TorchFn* f = torch_registry().find(name);
  if (!f) throw std::runtime_error(std::string("no LibTorch reference for ") + name);
  return *f;
}

// Deterministic, non-trivial values in [-1, 1] (no zeros), exactly representable in bf16 for k < 64.
double val(int seed, int64_t i) { return double(((seed * 37 + i * 11) % 29) - 14) / 16.0 + 1.0 / 64.0; }

at::Tensor make(const std::vector<int64_t>& shape, int seed, at::ScalarType t) {
  at::Tensor d = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) p[i] = val(seed, i);
  return d.to(t);
}

std::vector<double> as_doubles(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double rtol, double atol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << "at flat index " << i;
}

// C[b][m][n] = sum_k A[b][m][k] * B(b, k, n), B(b,k,n) = Bkn[b][k][n] or Wnk[n][k].
std::vector<double> loops(const std::vector<double>& A, const std::vector<double>& B, int64_t batch, int64_t M,
                          int64_t N, int64_t K, bool b_is_nk, const std::vector<double>* bias) {
  std::vector<double> C(batch * M * N);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = bias ? (*bias)[n] : 0.0;
        for (int64_t k = 0; k < K; ++k) {
          const double bv = b_is_nk ? B[n * K + k] : B[(b * K + k) * N + n];
          s += A[(b * M + m) * K + k] * bv;
        }
        C[(b * M + m) * N + n] = s;
      }
  return C;
}

TorchArgs args(std::vector<at::Tensor> in, at::Tensor out, double tf32 = 0.0) {
  TorchArgs a;
  a.in = std::move(in);
  a.out = {std::move(out)};
  a.settings.tf32 = tf32 != 0;
  return a;
}

TEST(TorchMatmul, MatmulFp32MatchesLoops) {
  const int64_t M = 3, N = 5, K = 4;
  at::Tensor A = make({M, K}, 1, at::kFloat), B = make({K, N}, 2, at::kFloat);
  at::Tensor C = at::full({M, N}, std::nan(""), at::kFloat);
  auto r = fn("matmul")(args({A, B}, C));
  ASSERT_EQ(r.size(), 1u);
  expect_near_all(as_doubles(r[0]), loops(as_doubles(A), as_doubles(B), 1, M, N, K, false, nullptr), 1e-6, 1e-6);
  // The out= variant wrote into the harness's tensor.
  expect_near_all(as_doubles(C), as_doubles(r[0]), 0, 0);
}

TEST(TorchMatmul, MatmulFp64OddShapes) {
  for (auto [M, N, K] : std::vector<std::array<int64_t, 3>>{{1, 7, 9}, {6, 1, 3}, {5, 4, 1}}) {
    at::Tensor A = make({M, K}, 3, at::kDouble), B = make({K, N}, 4, at::kDouble);
    at::Tensor C = at::empty({M, N}, at::kDouble);
    auto r = fn("matmul")(args({A, B}, C));
    expect_near_all(as_doubles(r[0]), loops(as_doubles(A), as_doubles(B), 1, M, N, K, false, nullptr), 1e-12,
                    1e-12);
  }
}

TEST(TorchMatmul, HandWorkedExample) {
  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[19, 22], [43, 50]]
  at::Tensor A = at::tensor({1.0, 2.0, 3.0, 4.0}, at::kFloat).reshape({2, 2});
  at::Tensor B = at::tensor({5.0, 6.0, 7.0, 8.0}, at::kFloat).reshape({2, 2});
  at::Tensor C = at::empty({2, 2}, at::kFloat);
  auto r = fn("matmul")(args({A, B}, C));
  expect_near_all(as_doubles(r[0]), {19, 22, 43, 50}, 0, 0);
}

TEST(TorchMatmul, BmmFp32MatchesLoops) {
  const int64_t Bt = 3, M = 2, N = 4, K = 5;
  at::Tensor A = make({Bt, M, K}, 5, at::kFloat), B = make({Bt, K, N}, 6, at::kFloat);
  at::Tensor C = at::empty({Bt, M, N}, at::kFloat);
  auto r = fn("bmm")(args({A, B}, C));
  expect_near_all(as_doubles(r[0]), loops(as_doubles(A), as_doubles(B), Bt, M, N, K, false, nullptr), 1e-6, 1e-6);
}

TEST(TorchMatmul, LinearAddsBiasAndTransposesW) {
  const int64_t M = 3, N = 5, K = 4;
  at::Tensor x = make({M, K}, 7, at::kFloat), W = make({N, K}, 8, at::kFloat), b = make({N}, 9, at::kFloat);
  at::Tensor y = at::empty({M, N}, at::kFloat);
  auto r = fn("linear")(args({x, W, b}, y));
  const std::vector<double> bias = as_doubles(b);
  expect_near_all(as_doubles(r[0]), loops(as_doubles(x), as_doubles(W), 1, M, N, K, true, &bias), 1e-6, 1e-6);
}

TEST(TorchMatmul, LinearHandWorkedExample) {
  // x = [[1, 2]], W = [[1, 0], [0, 1], [1, 1]], b = [10, 20, 30] -> y = [[11, 22, 33]]
  at::Tensor x = at::tensor({1.0, 2.0}, at::kFloat).reshape({1, 2});
  at::Tensor W = at::tensor({1.0, 0.0, 0.0, 1.0, 1.0, 1.0}, at::kFloat).reshape({3, 2});
  at::Tensor b = at::tensor({10.0, 20.0, 30.0}, at::kFloat);
  at::Tensor y = at::empty({1, 3}, at::kFloat);
  auto r = fn("linear")(args({x, W, b}, y));
  expect_near_all(as_doubles(r[0]), {11, 22, 33}, 0, 0);
}

TEST(TorchMatmul, LinearFp64KEqualsOne) {
  at::Tensor x = make({4, 1}, 10, at::kDouble), W = make({3, 1}, 11, at::kDouble), b = make({3}, 12, at::kDouble);
  at::Tensor y = at::empty({4, 3}, at::kDouble);
  auto r = fn("linear")(args({x, W, b}, y));
  const std::vector<double> bias = as_doubles(b);
  expect_near_all(as_doubles(r[0]), loops(as_doubles(x), as_doubles(W), 1, 4, 3, 1, true, &bias), 1e-12, 1e-12);
}

TEST(TorchMatmul, Bf16RoundsOnceFromExactProducts) {
  // Inputs are exact in bf16 and the sums have few terms, so the only error is the output rounding.
  const int64_t M = 4, N = 3, K = 8;
  at::Tensor A = make({M, K}, 13, at::kBFloat16), B = make({K, N}, 14, at::kBFloat16);
  at::Tensor C = at::empty({M, N}, at::kBFloat16);
  auto r = fn("matmul")(args({A, B}, C));
  expect_near_all(as_doubles(r[0]), loops(as_doubles(A), as_doubles(B), 1, M, N, K, false, nullptr), 1.0 / 128,
                  1e-3);
}

TEST(TorchMatmul, Tf32ParamDrivesLibTorchSwitch) {
  const bool before = at::globalContext().allowTF32CuBLAS();
  at::Tensor A = make({2, 3}, 15, at::kFloat), B = make({3, 2}, 16, at::kFloat);
  at::Tensor C = at::empty({2, 2}, at::kFloat);
  fn("matmul")(args({A, B}, C, 1.0));
  EXPECT_TRUE(at::globalContext().allowTF32CuBLAS());
  fn("matmul")(args({A, B}, C, 0.0));
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  // On the CPU the switch changes nothing: still the exact fp32 product.
  expect_near_all(as_doubles(C), loops(as_doubles(A), as_doubles(B), 1, 2, 2, 3, false, nullptr), 1e-6, 1e-6);
  at::globalContext().setAllowTF32CuBLAS(before);
}

}  // namespace
}  // namespace opbench::reference
