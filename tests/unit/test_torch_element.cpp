// The element and activation LibTorch references on CPU tensors, against values computed here.
#include <gtest/gtest.h>

#include <cmath>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using namespace opbench::reference;
using opbench::reference::test_util::call;

namespace {

at::Tensor t2(std::vector<float> v, int64_t r, int64_t c) {
  return at::tensor(v, at::kFloat).reshape({r, c});
}

}  // namespace

TEST(TorchElement, BroadcastRowAndColumn) {
  at::Tensor a = t2({1, 2, 3, 4, 5, 6}, 2, 3);
  at::Tensor out = at::empty({2, 3});
  call("add_bcast_row", {a, at::tensor({10.f, 20.f, 30.f})}, out);
  const float row[] = {11, 22, 33, 14, 25, 36};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out.view(-1)[i].item<float>(), row[i]);

  call("add_bcast_col", {a, t2({100, 200}, 2, 1)}, out);
  const float col[] = {101, 102, 103, 204, 205, 206};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out.view(-1)[i].item<float>(), col[i]);
}

TEST(TorchElement, BroadcastFoldsLeadingDims) {
  at::Tensor a = at::arange(12, at::kFloat).reshape({2, 2, 3});
  at::Tensor out = at::empty({2, 2, 3});
  call("add_bcast_row", {a, at::tensor({1.f, 2.f, 3.f})}, out);
  EXPECT_FLOAT_EQ(out[1][1][2].item<float>(), 11 + 3);
}

TEST(TorchElement, BinaryAndScalarOps) {
  at::Tensor a = at::tensor({1.5f, -2.f, 4.f}), b = at::tensor({0.5f, 4.f, 2.f}), out = at::empty({3});
  call("sub", {a, b}, out);
  EXPECT_FLOAT_EQ(out[1].item<float>(), -6.f);
  call("div", {a, b}, out);
  EXPECT_FLOAT_EQ(out[0].item<float>(), 3.f);
  call("maximum", {a, b}, out);
  EXPECT_FLOAT_EQ(out[1].item<float>(), 4.f);
  call("pow", {b, a}, out);
  EXPECT_FLOAT_EQ(out[2].item<float>(), 16.f);
  auto r = call("add_scalar", {a}, out, {{"scalar", 2.5}});
  EXPECT_FLOAT_EQ(r[0][1].item<float>(), 0.5f);
  r = call("pow_scalar", {b}, out, {{"scalar", 1.5}});
  EXPECT_NEAR(r[0][1].item<float>(), 8.f, 1e-5);
}

TEST(TorchActivation, KnownValues) {
  at::Tensor x = at::tensor({-2.f, 0.5f, 3.f}), out = at::empty({3});
  auto r = call("relu", {x}, out);
  EXPECT_FLOAT_EQ(r[0][0].item<float>(), 0.f);
  call("leaky_relu", {x}, out, {{"scalar", 0.01}});
  EXPECT_FLOAT_EQ(out[0].item<float>(), -0.02f);
  call("sigmoid", {x}, out);
  EXPECT_NEAR(out[1].item<float>(), 1.0 / (1.0 + std::exp(-0.5)), 1e-6);
  call("gelu", {x}, out);
  EXPECT_NEAR(out[2].item<float>(), 0.5 * 3 * (1 + std::erf(3 / std::sqrt(2.0))), 1e-5);
  call("gelu_tanh", {x}, out);
  const double k = std::sqrt(2 / M_PI);
  EXPECT_NEAR(out[0].item<float>(), 0.5 * -2 * (1 + std::tanh(k * (-2 + 0.044715 * -8))), 1e-5);
  call("silu", {x}, out);
  EXPECT_NEAR(out[0].item<float>(), -2.0 / (1 + std::exp(2.0)), 1e-6);
  call("softplus", {x}, out);
  EXPECT_NEAR(out[2].item<float>(), std::log1p(std::exp(3.0)), 1e-5);
}

TEST(TorchReference, RunsInDoubleForTheOracle) {
  // 1 + 2^-30 is 1 in fp32 but not in fp64: the reference must not round through float.
  at::Tensor a = at::tensor({1.0, 2.0}, at::kDouble), b = at::tensor({std::ldexp(1.0, -30), 0.0}, at::kDouble);
  at::Tensor out = at::empty({2}, at::kDouble);
  call("add", {a, b}, out);
  EXPECT_EQ(out.scalar_type(), at::kDouble);
  EXPECT_GT(out[0].item<double>(), 1.0);
}
