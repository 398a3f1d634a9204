// The backward kernels' LibTorch references on small CPU tensors in fp64, against autograd of the
// forward a PyTorch user writes (and, for rms_norm, central finite differences, independent of autograd).
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using opbench::reference::test_util::call;
using opbench::reference::test_util::flat;

namespace {

at::Tensor uniform(std::vector<int64_t> shape, double lo, double hi, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return at::empty(shape, at::kDouble).uniform_(lo, hi, gen);
}

// d(sum(y * dy)) / dx for y = f(x), by autograd.
at::Tensor vjp(const at::Tensor& y, const at::Tensor& x, const at::Tensor& dy) {
  return torch::autograd::grad({y}, {x}, {dy})[0];
}

void expect_close(const at::Tensor& got, const at::Tensor& want, double tol) {
  ASSERT_EQ(got.sizes(), want.sizes());
  const std::vector<double> g = flat(got), w = flat(want);
  for (std::size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << "element " << i;
}

}  // namespace

// Autograd through the registered rope forward (HF's x * cos + rotate_half(x) * sin) gives the transposed
// rotation; head_dim 6 and 8 tokens wrapping at seq_len 5 exercise the pairing and the positions.
TEST(TorchTransformerBackward, RopeBackwardIsAutogradOfTheForward) {
  const Params p{{"seq_len", 5}, {"theta", 1e4}};
  const at::Tensor x = uniform({8, 3, 6}, -2, 2, 1).requires_grad_(true);
  const at::Tensor dy = uniform({8, 3, 6}, -1, 1, 2);
  const at::Tensor y = call("rope", {x}, at::empty_like(x), p)[0];
  const at::Tensor want = vjp(y, x, dy);
  const at::Tensor got = call("rope_backward", {dy}, at::empty_like(dy), p)[0];
  expect_close(got, want, 1e-12);
  // Rotations are orthogonal: the backward of the forward's output gives back the input.
  const at::Tensor back = call("rope_backward", {y.detach()}, at::empty_like(dy), p)[0];
  expect_close(back, x.detach(), 1e-12);
}

TEST(TorchTransformerBackward, SiluGateBackwardIsAutogradOfSiluTimesUp) {
  const int64_t rows = 5, cols = 7;
  const at::Tensor gu = uniform({rows, 2 * cols}, -4, 4, 3).requires_grad_(true);
  const at::Tensor dout = uniform({rows, cols}, -1, 1, 4);
  const at::Tensor y = at::silu(gu.narrow(-1, 0, cols)) * gu.narrow(-1, cols, cols);
  const at::Tensor want = vjp(y, gu, dout);
  const at::Tensor out = at::full({rows, 2 * cols}, NAN, at::kDouble);  // every element must be written
  const at::Tensor got = call("silu_gate_backward", {dout, gu.detach()}, out)[0];
  expect_close(got, want, 1e-13);
  // By hand at one point: gate 1, up 2, dout 1: d_up = silu(1), d_gate = 2 s (1 + (1 - s)), s = sigmoid(1).
  const at::Tensor g1 = at::tensor({1.0, 2.0}, at::kDouble).reshape({1, 2});
  const std::vector<double> v =
      flat(call("silu_gate_backward", {at::ones({1, 1}, at::kDouble), g1}, at::empty({1, 2}, at::kDouble))[0]);
  const double s = 1 / (1 + std::exp(-1.0));
  EXPECT_NEAR(v[0], 2 * s * (2 - s), 1e-14);
  EXPECT_NEAR(v[1], s, 1e-14);
}

TEST(TorchTransformerBackward, RmsNormBackwardIsAutogradOfTheFormula) {
  const int64_t rows = 6, cols = 11;
  const double eps = 1e-6;
  const at::Tensor x = uniform({rows, cols}, -2, 2, 5).requires_grad_(true);
  const at::Tensor w = uniform({cols}, 0.5, 1.5, 6).requires_grad_(true);
  const at::Tensor dy = uniform({rows, cols}, -1, 1, 7);
  const std::vector<int64_t> last{-1};
  const at::Tensor y = x * at::rsqrt(at::mean(x * x, at::IntArrayRef(last), true) + eps) * w;
  const auto g = torch::autograd::grad({y}, {x, w}, {dy});
  const auto got = call("rms_norm_backward", {x.detach(), w.detach(), dy}, at::empty_like(dy), Params{{"eps", eps}});
  ASSERT_EQ(got.size(), 2u);
  expect_close(got[0], g[0], 1e-12);
  expect_close(got[1], g[1], 1e-12);
}

// Central differences of L = sum(rms_norm(x, w) * dy), independent of autograd's formulas.
TEST(TorchTransformerBackward, RmsNormBackwardMatchesFiniteDifferences) {
  const int64_t rows = 3, cols = 5;
  const double eps = 1e-6, h = 1e-6;
  const at::Tensor x = uniform({rows, cols}, -2, 2, 8);
  const at::Tensor w = uniform({cols}, 0.5, 1.5, 9);
  const at::Tensor dy = uniform({rows, cols}, -1, 1, 10);
  auto loss = [&](const at::Tensor& xv, const at::Tensor& wv) {
    const std::vector<int64_t> last{-1};
    return (xv * at::rsqrt(at::mean(xv * xv, at::IntArrayRef(last), true) + eps) * wv * dy).sum().item<double>();
  };
  const auto got = call("rms_norm_backward", {x, w, dy}, at::empty_like(dy), Params{{"eps", eps}});
  const std::vector<double> dx = flat(got[0]), dw = flat(got[1]);
  for (int64_t i = 0; i < rows * cols; ++i) {
    at::Tensor xp = x.clone(), xm = x.clone();
    xp.view({-1})[i] += h;
    xm.view({-1})[i] -= h;
    EXPECT_NEAR(dx[std::size_t(i)], (loss(xp, w) - loss(xm, w)) / (2 * h), 1e-7) << "dx " << i;
  }
  for (int64_t c = 0; c < cols; ++c) {
    at::Tensor wp = w.clone(), wm = w.clone();
    wp[c] += h;
    wm[c] -= h;
    EXPECT_NEAR(dw[std::size_t(c)], (loss(x, wp) - loss(x, wm)) / (2 * h), 1e-7) << "dw " << c;
  }
}

// In fp32 and bf16 the reference computes in fp32 and rounds each output once: within an output ulp of
// the fp64 result; dw keeps w's shape and dtype.
TEST(TorchTransformerBackward, RmsNormBackwardRoundsOnceInLowerPrecision) {
  const int64_t rows = 9, cols = 16;
  const at::Tensor x = uniform({rows, cols}, -2, 2, 11), w = uniform({cols}, 0.5, 1.5, 12);
  const at::Tensor dy = uniform({rows, cols}, -1, 1, 13);
  for (at::ScalarType t : {at::kFloat, at::kBFloat16}) {
    const at::Tensor xt = x.to(t), wt = w.to(t), dyt = dy.to(t);
    const auto exact = call("rms_norm_backward", {xt.to(at::kDouble), wt.to(at::kDouble), dyt.to(at::kDouble)},
                            at::empty_like(dy), Params{{"eps", 1e-6}});
    const auto got = call("rms_norm_backward", {xt, wt, dyt}, at::empty_like(dyt), Params{{"eps", 1e-6}});
    EXPECT_EQ(got[0].scalar_type(), t);
    EXPECT_EQ(got[1].scalar_type(), t);
    EXPECT_EQ(got[1].sizes(), w.sizes());
    const double u = t == at::kFloat ? 1e-6 : 0x1p-8;
    expect_close(got[0], exact[0], u);
    expect_close(got[1], exact[1], u);
  }
}

TEST(TorchTransformerBackward, CrossEntropyBackwardIsAutogradOfTheMeanLoss) {
  const int64_t rows = 4, cols = 9;
  const at::Tensor logits = uniform({rows, cols}, -4, 4, 14).requires_grad_(true);
  const at::Tensor target = at::tensor(std::vector<int64_t>{0, 8, 3, 3}, at::kLong);
  const at::Tensor loss = at::cross_entropy_loss(logits, target);
  const at::Tensor want = torch::autograd::grad({loss}, {logits})[0];
  const at::Tensor out = at::full({rows, cols}, NAN, at::kDouble);
  const at::Tensor got = call("cross_entropy_backward", {logits.detach(), target}, out, Params{{"grad_scale", 1.0}})[0];
  expect_close(got, want, 1e-14);
  // grad_scale scales the whole gradient; each row of the gradient sums to zero.
  const at::Tensor got3 =
      call("cross_entropy_backward", {logits.detach(), target}, at::empty_like(out), Params{{"grad_scale", 3.0}})[0];
  expect_close(got3, want * 3, 1e-14);
  const std::vector<double> row_sums = flat(got.sum(1));
  for (double s : row_sums) EXPECT_NEAR(s, 0.0, 1e-15);
}
