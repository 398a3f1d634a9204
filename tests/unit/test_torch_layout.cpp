// The layout LibTorch references on small CPU tensors, against expected values built here by explicit
// index loops over the inputs (never by calling the same at:: view the reference uses).
#include <gtest/gtest.h>

#include <vector>

#include "src/reference/torch_ops.hpp"
#include "tests/unit/torch_call.hpp"

using namespace opbench;
using namespace opbench::reference;
using opbench::reference::test_util::call;
using opbench::reference::test_util::flat;  // row-major values as double (every value here is exact)

namespace {

// A tensor whose every element is distinct: x.flat[i] = base + i.
at::Tensor iota(std::vector<int64_t> shape, double base = 0, at::ScalarType t = at::kFloat) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return (at::arange(n, at::kDouble) + base).to(t).reshape(shape);
}

}  // namespace

TEST(TorchLayout, CopyIsAFreshEqualTensor) {
  at::Tensor x = iota({2, 3, 4});
  at::Tensor y = call("copy", {x}, at::empty({2, 3, 4}))[0];
  EXPECT_NE(y.data_ptr(), x.data_ptr());
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(flat(y), flat(x));
}

TEST(TorchLayout, TransposeSwapsTheLastTwoDims) {
  const int64_t B = 2, M = 3, N = 5;
  at::Tensor x = iota({B, M, N});
  at::Tensor y = call("transpose", {x}, at::empty({B, N, M}))[0];
  ASSERT_EQ(y.sizes(), at::IntArrayRef({B, N, M}));
  ASSERT_TRUE(y.is_contiguous());
  const std::vector<double> xs = flat(x), ys = flat(y);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) EXPECT_EQ(ys[(b * N + j) * M + i], xs[(b * M + i) * N + j]);
}

TEST(TorchLayout, TransposeOfARowIsMaterialized) {
  // [1, N] → [N, 1] is already contiguous as a view; the reference must still return new memory.
  at::Tensor x = iota({1, 7});
  at::Tensor y = call("transpose", {x}, at::empty({7, 1}))[0];
  EXPECT_NE(y.data_ptr(), x.data_ptr());
  ASSERT_EQ(y.sizes(), at::IntArrayRef({7, 1}));
  EXPECT_EQ(flat(y), flat(x));
}

TEST(TorchLayout, Permute0213MovesHeadsBeforeSequence) {
  const int64_t B = 2, S = 3, H = 4, D = 5;
  at::Tensor x = iota({B, S, H, D});
  at::Tensor y = call("permute_0213", {x}, at::empty({B, H, S, D}))[0];
  ASSERT_EQ(y.sizes(), at::IntArrayRef({B, H, S, D}));
  ASSERT_TRUE(y.is_contiguous());
  const std::vector<double> xs = flat(x), ys = flat(y);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d)
          EXPECT_EQ(ys[((b * H + h) * S + s) * D + d], xs[((b * S + s) * H + h) * D + d]);
}

TEST(TorchLayout, CatDim0StacksTheInputs) {
  const int64_t M = 2, N = 3;
  at::Tensor a = iota({M, N}), b = iota({M, N}, 100);
  at::Tensor out = at::empty({2 * M, N});
  call("cat_dim0", {a, b}, out);  // out= variant: writes the harness's output
  const std::vector<double> as = flat(a), bs = flat(b), os = flat(out);
  for (int64_t r = 0; r < 2 * M; ++r)
    for (int64_t c = 0; c < N; ++c)
      EXPECT_EQ(os[r * N + c], r < M ? as[r * N + c] : bs[(r - M) * N + c]);
}

TEST(TorchLayout, CatLastJoinsRows) {
  const int64_t A = 2, M = 2, N = 3;
  at::Tensor a = iota({A, M, N}), b = iota({A, M, N}, 100);
  at::Tensor out = at::empty({A, M, 2 * N});
  call("cat_last", {a, b}, out);
  const std::vector<double> as = flat(a), bs = flat(b), os = flat(out);
  for (int64_t r = 0; r < A * M; ++r)
    for (int64_t c = 0; c < 2 * N; ++c)
      EXPECT_EQ(os[r * 2 * N + c], c < N ? as[r * N + c] : bs[r * N + c - N]);
}

TEST(TorchLayout, SliceNarrowsTheLastDim) {
  const int64_t R = 3, N = 10, start = 2, length = 5;
  at::Tensor x = iota({R, N});
  at::Tensor y = call("slice", {x}, at::empty({R, length}), {{"start", double(start)}, {"length", double(length)}})[0];
  ASSERT_EQ(y.sizes(), at::IntArrayRef({R, length}));
  const std::vector<double> xs = flat(x), ys = flat(y);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t j = 0; j < length; ++j) EXPECT_EQ(ys[r * length + j], xs[r * N + start + j]);
}

TEST(TorchLayout, GatherLooksUpTableRows) {
  const int64_t V = 5, D = 3;
  at::Tensor table = iota({V, D}, 0.5);
  const std::vector<int64_t> idx = {4, 0, 4, 2, 1, 3};
  const int64_t n = int64_t(idx.size());
  at::Tensor out = at::empty({n, D});
  call("gather", {table, at::tensor(idx, at::kLong)}, out);
  const std::vector<double> ts = flat(table), os = flat(out);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d = 0; d < D; ++d) EXPECT_EQ(os[i * D + d], ts[idx[i] * D + d]);
}

TEST(TorchLayout, ExpandRepeatsTheRowIntoTheOutputShape) {
  const int64_t N = 4;
  at::Tensor x = iota({1, N}, 1);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, N}, std::vector<int64_t>{2, 3, N}}) {
    at::Tensor y = call("expand", {x}, at::empty(shape))[0];
    ASSERT_EQ(y.sizes(), at::IntArrayRef(shape));
    ASSERT_TRUE(y.is_contiguous());
    const std::vector<double> xs = flat(x), ys = flat(y);
    for (size_t k = 0; k < ys.size(); ++k) EXPECT_EQ(ys[k], xs[k % N]);
  }
}

TEST(TorchLayout, DtypeAgnostic) {
  // The fp64 oracle and the bf16 problems run the same references.
  for (at::ScalarType t : {at::kDouble, at::kBFloat16}) {
    const int64_t M = 3, N = 4;
    at::Tensor x = iota({M, N}, 0, t);
    at::Tensor y = call("transpose", {x}, at::empty({N, M}, t))[0];
    EXPECT_EQ(y.scalar_type(), t);
    const std::vector<double> xs = flat(x), ys = flat(y);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) EXPECT_EQ(ys[j * M + i], xs[i * N + j]);
  }
}
