// The transformer category's LibTorch references on small CPU tensors, against values worked out by
// hand in double precision (never by the at:: calls the references make).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using opbench::reference::test_util::call;
using opbench::reference::test_util::flat;
using opbench::reference::test_util::tensor;

// head_dim 2: one pair, inv_freq = theta^0 = 1, so the angle is the position. Token 0 is not rotated,
// token 1 turns by 1 rad, token 2 wraps to position 0 with seq_len 2.
TEST(TorchTransformer, RopeRotatesEachPairByItsPositionTimesInvFreq) {
  const at::Tensor x = tensor({3, 4, 3, 4, 3, 4}, {3, 1, 2}, at::kDouble);
  const std::vector<double> y = flat(call("rope", {x}, at::empty_like(x), Params{{"seq_len", 2}, {"theta", 1e6}})[0]);
  ASSERT_EQ(y.size(), 6u);
  EXPECT_DOUBLE_EQ(y[0], 3);
  EXPECT_DOUBLE_EQ(y[1], 4);
  const double c = std::cos(1.0), s = std::sin(1.0);
  EXPECT_NEAR(y[2], 3 * c - 4 * s, 1e-12);
  EXPECT_NEAR(y[3], 4 * c + 3 * s, 1e-12);
  EXPECT_DOUBLE_EQ(y[4], 3);
  EXPECT_DOUBLE_EQ(y[5], 4);
}

// head_dim 4 (two pairs, i = 0 and 1): pair 1 has inv_freq = theta^(-1/2) = 0.01 with theta 1e4, rounded
// to fp32 as the kernel does; its angle at position 1 is that fp32 value. The pairs are (x0, x2), (x1, x3).
TEST(TorchTransformer, RopePairsTheHalvesAndUsesTheFp32InvFreq) {
  const at::Tensor x = tensor({1, 2, 3, 4, 1, 2, 3, 4}, {2, 1, 4}, at::kDouble);
  const std::vector<double> y = flat(call("rope", {x}, at::empty_like(x), Params{{"seq_len", 8}, {"theta", 1e4}})[0]);
  const double a0 = 1.0, a1 = double(float(0.01));
  EXPECT_NEAR(y[4], 1 * std::cos(a0) - 3 * std::sin(a0), 1e-12);
  EXPECT_NEAR(y[6], 3 * std::cos(a0) + 1 * std::sin(a0), 1e-12);
  EXPECT_NEAR(y[5], 2 * std::cos(a1) - 4 * std::sin(a1), 1e-12);
  EXPECT_NEAR(y[7], 4 * std::cos(a1) + 2 * std::sin(a1), 1e-12);
}

TEST(TorchTransformer, SiluGateTakesTheTwoHalves) {
  // gate_up [2, 4]: gate = columns 0-1, up = columns 2-3.
  const at::Tensor gu = tensor({0, 1, 5, 2, -1, 3, 0.5, -2}, {2, 4}, at::kDouble);
  const at::Tensor out = at::empty({2, 2}, at::kDouble);
  const std::vector<double> y = flat(call("silu_gate", {gu}, out)[0]);
  auto silu = [](double g) { return g / (1 + std::exp(-g)); };
  EXPECT_DOUBLE_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], silu(1) * 2, 1e-14);
  EXPECT_NEAR(y[2], silu(-1) * 0.5, 1e-14);
  EXPECT_NEAR(y[3], silu(3) * -2, 1e-14);
  // Written into the harness's output (mul_out), in fp32 too.
  const at::Tensor out32 = at::empty({2, 2}, at::kFloat);
  call("silu_gate", {gu.to(at::kFloat)}, out32);
  EXPECT_NEAR(out32[1][1].item<double>(), silu(3) * -2, 1e-5);
}
