// The attention references on small CPU tensors, against values worked out by hand and against causal
// softmax attention written as plain loops in double (never the at:: calls the references make).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using opbench::reference::test_util::call;
using opbench::reference::test_util::flat;
using opbench::reference::test_util::tensor;

namespace {

// o[b, i, h, :] = sum_j softmax_j(scale * q[b,i,h].k[b,j,h/g]) v[b,j,h/g] over j <= i + skv - sq.
std::vector<double> naive_attention(const std::vector<double>& q, const std::vector<double>& k,
                                    const std::vector<double>& v, int64_t b, int64_t sq, int64_t skv, int64_t hq,
                                    int64_t hkv, int64_t d) {
  std::vector<double> o(std::size_t(b * sq * hq * d), 0.0);
  const double scale = 1.0 / std::sqrt(double(d));
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t hk = h / (hq / hkv);
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t last = i + skv - sq;
        std::vector<double> s;
        double mx = -INFINITY;
        for (int64_t j = 0; j <= last && j < skv; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += q[std::size_t(((bi * sq + i) * hq + h) * d + c)] *
                   k[std::size_t(((bi * skv + j) * hkv + hk) * d + c)];
          s.push_back(scale * dot);
          mx = std::max(mx, scale * dot);
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (std::size_t j = 0; j < s.size(); ++j)
          for (int64_t c = 0; c < d; ++c)
            o[std::size_t(((bi * sq + i) * hq + h) * d + c)] +=
                s[j] / sum * v[std::size_t(((bi * skv + int64_t(j)) * hkv + hk) * d + c)];
      }
    }
  return o;
}

at::Tensor random(std::vector<int64_t> shape, double lo, double hi) {
  return at::rand(shape, at::kDouble) * (hi - lo) + lo;
}

}  // namespace

// One token: the query sees only its own key, so o = v whatever the scores (each query head its kv head).
TEST(TorchAttention, OneTokenReturnsItsValue) {
  const at::Tensor q = random({2, 1, 4, 8}, -2, 2), k = random({2, 1, 2, 8}, -2, 2), v = random({2, 1, 2, 8}, -1, 1);
  const std::vector<double> o = flat(call("attention", {q, k, v}, at::empty_like(q))[0]);
  const std::vector<double> vv = flat(v);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t c = 0; c < 8; ++c)
        EXPECT_NEAR(o[std::size_t((b * 4 + h) * 8 + c)], vv[std::size_t((b * 2 + h / 2) * 8 + c)], 1e-14);
}

// head_dim 4 (scale 1/2), two tokens: token 0 sees key 0 only; token 1 weighs its two keys by
// softmax(q1.k0 / 2, q1.k1 / 2) = softmax(1, 3).
TEST(TorchAttention, KnownAnswerTwoTokens) {
  const at::Tensor q = tensor({1, 0, 0, 0, 2, 2, 0, 0}, {1, 2, 1, 4}, at::kDouble);
  const at::Tensor k = tensor({1, 0, 0, 0, 1, 2, 0, 0}, {1, 2, 1, 4}, at::kDouble);  // q1.k0 = 2, q1.k1 = 6
  const at::Tensor v = tensor({1, 2, 3, 4, -1, 0, 1, 0}, {1, 2, 1, 4}, at::kDouble);
  const std::vector<double> o = flat(call("attention", {q, k, v}, at::empty_like(q))[0]);
  const double w0 = std::exp(1.0) / (std::exp(1.0) + std::exp(3.0)), w1 = 1 - w0;
  const std::vector<double> want = {1, 2, 3, 4, w0 * 1 - w1, w0 * 2, w0 * 3 + w1, w0 * 4};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(o[i], want[i], 1e-14) << i;
}

// GQA (6 query heads on 2 kv heads, so heads 0-2 read kv head 0) and the causal triangle over 9 tokens.
TEST(TorchAttention, MatchesNaiveLoopsWithGroupedHeads) {
  const int64_t b = 2, s = 9, hq = 6, hkv = 2, d = 8;
  const at::Tensor q = random({b, s, hq, d}, -2, 2), k = random({b, s, hkv, d}, -2, 2);
  const at::Tensor v = random({b, s, hkv, d}, -1, 1);
  const std::vector<double> o = flat(call("attention", {q, k, v}, at::empty_like(q))[0]);
  const std::vector<double> want = naive_attention(flat(q), flat(k), flat(v), b, s, s, hq, hkv, d);
  ASSERT_EQ(o.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(o[i], want[i], 1e-12) << i;
  // In fp32 too (the dtype-agnostic path LibTorch before 2.5 takes for every dtype).
  const std::vector<double> o32 = flat(call("attention", {q.to(at::kFloat), k.to(at::kFloat), v.to(at::kFloat)},
                                            at::empty_like(q, at::kFloat))[0]);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(o32[i], want[i], 1e-5) << i;
}

// Bottom-right alignment: a single query (a decode step) over 5 cached keys sees all 5; 3 queries over 5
// keys see 3, 4 and 5 keys.
TEST(TorchAttention, CausalMaskIsAlignedBottomRight) {
  const int64_t hq = 2, hkv = 1, d = 4;
  const at::Tensor k = random({1, 5, hkv, d}, -2, 2), v = random({1, 5, hkv, d}, -1, 1);
  for (int64_t sq : {1, 3}) {
    const at::Tensor q = random({1, sq, hq, d}, -2, 2);
    const std::vector<double> o = flat(call("attention", {q, k, v}, at::empty_like(q))[0]);
    const std::vector<double> want = naive_attention(flat(q), flat(k), flat(v), 1, sq, 5, hq, hkv, d);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(o[i], want[i], 1e-12) << "sq " << sq << " " << i;
  }
}

// The backward's gradients against central differences of sum(o * d_o) computed with the naive loops,
// for every element of q, k and v (GQA: a kv head's gradient sums its query heads); and a second call on
// the same arguments (the kept forward graph) gives the same gradients.
TEST(TorchAttention, BackwardMatchesFiniteDifferences) {
  const int64_t b = 1, s = 5, hq = 4, hkv = 2, d = 4;
  const at::Tensor q = random({b, s, hq, d}, -2, 2), k = random({b, s, hkv, d}, -2, 2);
  const at::Tensor v = random({b, s, hkv, d}, -1, 1), d_o = random({b, s, hq, d}, -1, 1);
  const reference::TorchFn* fn = reference::torch_registry().find("attention_backward");
  ASSERT_NE(fn, nullptr);
  reference::TorchArgs a;
  a.in = {q, k, v, d_o};
  a.out = {at::empty_like(q), at::empty_like(k), at::empty_like(v)};
  const std::vector<at::Tensor> g1 = (*fn)(a);
  ASSERT_EQ(g1.size(), 3u);
  ASSERT_TRUE(a.state != nullptr);
  const std::vector<at::Tensor> g2 = (*fn)(a);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(g1[std::size_t(i)], g2[std::size_t(i)])) << i;

  std::vector<std::vector<double>> x = {flat(q), flat(k), flat(v)};
  const std::vector<double> dob = flat(d_o);
  auto loss = [&] {
    const std::vector<double> o = naive_attention(x[0], x[1], x[2], b, s, s, hq, hkv, d);
    double l = 0;
    for (std::size_t i = 0; i < o.size(); ++i) l += o[i] * dob[i];
    return l;
  };
  const double h = 1e-6;
  for (int t = 0; t < 3; ++t) {
    const std::vector<double> grad = flat(g1[std::size_t(t)]);
    ASSERT_EQ(grad.size(), x[std::size_t(t)].size());
    for (std::size_t i = 0; i < grad.size(); ++i) {
      double& xi = x[std::size_t(t)][i];
      const double keep = xi;
      xi = keep + h;
      const double up = loss();
      xi = keep - h;
      const double down = loss();
      xi = keep;
      EXPECT_NEAR(grad[i], (up - down) / (2 * h), 1e-7) << "input " << t << " element " << i;
    }
  }
}
