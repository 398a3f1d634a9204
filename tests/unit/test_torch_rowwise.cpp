// The reduction, norm and loss LibTorch references on small CPU tensors, against values worked out by
// hand or by explicit loops over the inputs in double precision (never by the at:: call the reference
// makes). fp32 and, where the fp64 oracle relies on it, fp64.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using namespace opbench::reference;
using opbench::reference::test_util::call;
using opbench::reference::test_util::flat;
using opbench::reference::test_util::tensor;

namespace {

std::vector<int64_t> flat_i64(const at::Tensor& t) {
  at::Tensor c = t.contiguous().reshape({-1});
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// x[2, 3]:  1  5 -2
//           4  4  0.5
const std::vector<double> kX = {1, 5, -2, 4, 4, 0.5};

}  // namespace

TEST(TorchReduction, LastDimByHand) {
  const at::Tensor x = tensor(kX, {2, 3});
  EXPECT_EQ(flat(call("sum_last", {x}, at::empty({2}))[0]), (std::vector<double>{4, 8.5}));
  const std::vector<double> mean = flat(call("mean_last", {x}, at::empty({2}))[0]);
  EXPECT_NEAR(mean[0], 4.0 / 3.0, 1e-6);
  EXPECT_NEAR(mean[1], 8.5 / 3.0, 1e-6);
  EXPECT_EQ(flat(call("max_last", {x}, at::empty({2}))[0]), (std::vector<double>{5, 4}));
  EXPECT_EQ(flat(call("min_last", {x}, at::empty({2}))[0]), (std::vector<double>{-2, 0.5}));
  // Row 1 has a tie (4, 4): the first index wins.
  EXPECT_EQ(flat_i64(call("argmax_last", {x}, at::empty({2}, at::kLong))[0]), (std::vector<int64_t>{1, 0}));
}

TEST(TorchReduction, FirstDimByHand) {
  const at::Tensor x = tensor(kX, {2, 3});
  EXPECT_EQ(flat(call("sum_first", {x}, at::empty({3}))[0]), (std::vector<double>{5, 9, -1.5}));
  EXPECT_EQ(flat(call("mean_first", {x}, at::empty({3}))[0]), (std::vector<double>{2.5, 4.5, -0.75}));
  EXPECT_EQ(flat(call("max_first", {x}, at::empty({3}))[0]), (std::vector<double>{4, 5, 0.5}));
  EXPECT_EQ(flat(call("min_first", {x}, at::empty({3}))[0]), (std::vector<double>{1, 4, -2}));
  EXPECT_EQ(flat_i64(call("argmax_first", {x}, at::empty({3}, at::kLong))[0]), (std::vector<int64_t>{1, 0, 1}));
}

TEST(TorchReduction, AllElementsGiveAOneElementTensor) {
  const at::Tensor x = tensor(kX, {2, 3});
  const at::Tensor s = call("sum_all", {x}, at::empty({1}))[0];
  EXPECT_EQ(s.sizes(), at::IntArrayRef({1}));
  EXPECT_DOUBLE_EQ(flat(s)[0], 12.5);
  EXPECT_NEAR(flat(call("mean_all", {x}, at::empty({1}))[0])[0], 12.5 / 6, 1e-6);
  EXPECT_EQ(flat(call("max_all", {x}, at::empty({1}))[0])[0], 5);
  EXPECT_EQ(flat(call("min_all", {x}, at::empty({1}))[0])[0], -2);
  EXPECT_EQ(flat_i64(call("argmax_all", {x}, at::empty({1}, at::kLong))[0])[0], 1);  // the flat index
}

TEST(TorchReduction, ArgmaxTiesAndNaN) {
  // Ties: the first index of the maximum; NaN counts as the maximum (its first occurrence).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor ties = tensor({3, 7, 7, 1, 7}, {1, 5});
  EXPECT_EQ(flat_i64(call("argmax_last", {ties}, at::empty({1}, at::kLong))[0])[0], 1);
  const at::Tensor with_nan = tensor({3, nan, 9, nan}, {1, 4});
  EXPECT_EQ(flat_i64(call("argmax_last", {with_nan}, at::empty({1}, at::kLong))[0])[0], 1);
  EXPECT_TRUE(std::isnan(flat(call("max_last", {with_nan}, at::empty({1}))[0])[0]));
}

TEST(TorchReduction, LeadingDimsFoldIntoRows) {
  // [2, 2, 3]: last-dim reductions see 4 rows of 3; first-dim ones 2 rows of 6.
  const at::Tensor x = at::arange(12, at::kFloat).reshape({2, 2, 3});
  EXPECT_EQ(flat(call("sum_last", {x}, at::empty({4}))[0]), (std::vector<double>{3, 12, 21, 30}));
  std::vector<double> want(6);
  for (int j = 0; j < 6; ++j) want[j] = j + (j + 6);
  EXPECT_EQ(flat(call("sum_first", {x}, at::empty({6}))[0]), want);
}

TEST(TorchReduction, SoftmaxFamilyAgainstLoops) {
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    const std::vector<double> v = {0.5, -1, 2, 3, 0, -4, 1, 1};  // [2, 4]
    const at::Tensor x = tensor(v, {2, 4}, t);
    const std::vector<double> sm = flat(call("softmax", {x}, at::empty({2, 4}, t))[0]);
    const std::vector<double> lsm = flat(call("log_softmax", {x}, at::empty({2, 4}, t))[0]);
    const std::vector<double> lse = flat(call("logsumexp", {x}, at::empty({2}, t))[0]);
    const double tol = t == at::kFloat ? 1e-6 : 1e-14;
    for (int r = 0; r < 2; ++r) {
      double s = 0;
      for (int c = 0; c < 4; ++c) s += std::exp(v[r * 4 + c]);
      EXPECT_NEAR(lse[r], std::log(s), tol * 10);
      for (int c = 0; c < 4; ++c) {
        EXPECT_NEAR(sm[r * 4 + c], std::exp(v[r * 4 + c]) / s, tol);
        EXPECT_NEAR(lsm[r * 4 + c], v[r * 4 + c] - std::log(s), tol * 10);
      }
    }
  }
}

TEST(TorchReduction, SoftmaxIsStableForLargeInputs) {
  // exp(1000) overflows: a max-shifted softmax gives (1/(1+e^-1), 1/(1+e)).
  const at::Tensor x = tensor({1000, 999}, {1, 2});
  const std::vector<double> y = flat(call("softmax", {x}, at::empty({1, 2}))[0]);
  EXPECT_NEAR(y[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(y[1], 1.0 / (1.0 + std::exp(1.0)), 1e-6);
  EXPECT_NEAR(flat(call("logsumexp", {x}, at::empty({1}))[0])[0], 1000 + std::log(1 + std::exp(-1.0)), 1e-3);
}

TEST(TorchNorm, LayerNormByHand) {
  // Row (1, 2, 3, 6): mean 3, biased var (4 + 1 + 0 + 9) / 4 = 3.5.
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    const at::Tensor x = tensor({1, 2, 3, 6, -1, -1, 1, 1}, {2, 4}, t);
    const at::Tensor w = tensor({1, 2, 0.5, 1}, {4}, t), b = tensor({0, 1, 0, -1}, {4}, t);
    const std::vector<double> y = flat(call("layer_norm", {x, w, b}, at::empty({2, 4}, t), {{"eps", 1e-5}})[0]);
    const std::vector<double> xs = {1, 2, 3, 6, -1, -1, 1, 1}, ws = {1, 2, 0.5, 1}, bs = {0, 1, 0, -1};
    const double mean[2] = {3, 0}, var[2] = {3.5, 1};
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 4; ++c) {
        const double want = (xs[r * 4 + c] - mean[r]) / std::sqrt(var[r] + 1e-5) * ws[c] + bs[c];
        EXPECT_NEAR(y[r * 4 + c], want, t == at::kFloat ? 2e-6 : 1e-12) << r << "," << c;
      }
  }
}

TEST(TorchNorm, RmsNormByHand) {
  // Row (3, 4): mean square 12.5; row (1, 1): 1.
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    const at::Tensor x = tensor({3, 4, 1, 1}, {2, 2}, t);
    const at::Tensor w = tensor({2, 0.5}, {2}, t);
    const std::vector<double> y = flat(call("rms_norm", {x, w}, at::empty({2, 2}, t), {{"eps", 1e-6}})[0]);
    const double r0 = 1 / std::sqrt(12.5 + 1e-6), r1 = 1 / std::sqrt(1 + 1e-6);
    const std::vector<double> want = {3 * r0 * 2, 4 * r0 * 0.5, r1 * 2, r1 * 0.5};
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], t == at::kFloat ? 2e-6 : 1e-12) << i;
  }
}

TEST(TorchNorm, RmsNormKeepsTheDtype) {
  const at::Tensor x = tensor({3, 4}, {1, 2}, at::kBFloat16), w = tensor({1, 1}, {2}, at::kBFloat16);
  const at::Tensor y = call("rms_norm", {x, w}, at::empty({1, 2}, at::kBFloat16), {{"eps", 1e-6}})[0];
  EXPECT_EQ(y.scalar_type(), at::kBFloat16);
  EXPECT_NEAR(flat(y)[0], 3 / std::sqrt(12.5), 1e-2);
}

TEST(TorchLoss, MseByHand) {
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    const at::Tensor p = tensor({1, 2, 3, 4}, {2, 2}, t), q = tensor({0, 2, 5, 1}, {2, 2}, t);
    const at::Tensor y = call("mse_loss", {p, q}, at::empty({1}, t))[0];
    EXPECT_EQ(y.sizes(), at::IntArrayRef({1}));
    EXPECT_DOUBLE_EQ(flat(y)[0], (1.0 + 0 + 4 + 9) / 4);
  }
}

TEST(TorchLoss, CrossEntropyAgainstLoops) {
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    const std::vector<double> v = {2, 1, 0.1, -1, 0.5, 3, 0, 0, 1};  // [3, 3]
    const std::vector<int64_t> target = {0, 2, 1};
    const at::Tensor x = tensor(v, {3, 3}, t);
    const at::Tensor y = call("cross_entropy", {x, at::tensor(target, at::kLong)}, at::empty({1}, t))[0];
    EXPECT_EQ(y.sizes(), at::IntArrayRef({1}));
    double want = 0;
    for (int r = 0; r < 3; ++r) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += std::exp(v[r * 3 + c]);
      want += std::log(s) - v[r * 3 + target[r]];
    }
    want /= 3;
    EXPECT_NEAR(flat(y)[0], want, t == at::kFloat ? 1e-6 : 1e-12);
  }
}

TEST(TorchLoss, CrossEntropyUniformLogitsIsLogV) {
  // Equal logits: every row's loss is log(V), whatever the target.
  const at::Tensor x = at::full({4, 8}, 0.25, at::kFloat);
  const at::Tensor tg = at::tensor(std::vector<int64_t>{0, 7, 3, 3}, at::kLong);
  EXPECT_NEAR(flat(call("cross_entropy", {x, tg}, at::empty({1}))[0])[0], std::log(8.0), 1e-6);
}
