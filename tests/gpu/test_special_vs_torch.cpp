// Row reductions on rows holding NaN and infinities, against LibTorch on the same CUDA tensor: the framework's sum,
// max, min, argmax and logsumexp over the last dim (fw::reduce_last) and softmax and log_softmax (fw::softmax_last,
// every element), in fp32, fp16 and bf16, on row lengths that take each of the row engine's kernels (the short-row
// kernel with 8..32 lanes a row, a warp a row with two vectors a lane, the streaming kernel, the split kernel). The
// benchmark's own check draws finite inputs only; this is where NaN propagation, infinite maxima and rows of -inf are
// held to LibTorch's answers: NaN exactly where LibTorch gives NaN, the same infinity, the same index, finite values
// within the output dtype's rounding. And cross_entropy (fw::cross_entropy) on the same row lengths: with targets in
// [0, cols) as LibTorch's mean loss, and NaN when a row's target is outside (-1 or cols), the documented answer where
// LibTorch stops with a device assert. Skipped, with the reason, without a GPU.
#include <ATen/ATen.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/loss/loss.hpp"
#include "kernels/reduction/reduction.hpp"
#include "tests/gpu/gpu_skip.hpp"

namespace {

using opbench::DType;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kPatterns = 11;

// Row r holds pattern r % kPatterns, at positions p and q that move from row to row (first, last, inside a
// 16-byte vector or across two).
std::vector<double> special_rows(int64_t rows, int64_t cols) {
  std::mt19937_64 gen(uint64_t(rows * 1000003 + cols));
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> x(std::size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    double* row = x.data() + r * cols;
    for (int64_t c = 0; c < cols; ++c) row[c] = u(gen);
    const int64_t p = (r * 7919 + 13) % cols;
    int64_t q = (r * 104729 + 5) % cols;
    if (q == p && cols > 1) q = (p + 1) % cols;
    switch (r % kPatterns) {
      case 0: break;  // finite
      case 1: row[p] = kNaN; break;
      case 2:  // a whole 16-byte vector's worth of NaN (8 16-bit or 4+4 fp32 elements)
        for (int64_t c = p & ~int64_t(7); c < std::min(cols, (p & ~int64_t(7)) + 8); ++c) row[c] = kNaN;
        break;
      case 3: row[p] = kInf; break;
      case 4: row[p] = -kInf; break;
      case 5: for (int64_t c = 0; c < cols; ++c) row[c] = -kInf; break;
      case 6: row[p] = kInf; row[q] = -kInf; break;
      case 7: for (int64_t c = 0; c < cols; ++c) row[c] = kNaN; break;
      case 8: row[p] = kInf; row[q] = kNaN; break;
      case 9: row[p] = kInf; row[q] = kInf; break;  // ties at +inf: argmax takes the first
      case 10: for (int64_t c = 0; c < cols; ++c) row[c] = kInf; break;
    }
  }
  return x;
}

at::ScalarType scalar_type(DType dt) {
  return dt == DType::f32 ? at::kFloat : dt == DType::f16 ? at::kHalf : at::kBFloat16;
}

// Relative rounding of one output value in dt (half an ulp, doubled for the two roundings compared).
double out_eps(DType dt) { return dt == DType::f32 ? 1e-5 : dt == DType::f16 ? 2.0 / 1024 : 2.0 / 128; }

struct Case {
  fw::ReduceKind kind;
  const char* name;
  bool exact;  // extrema and indices: the same value exactly
};
const Case kCases[] = {{fw::ReduceKind::sum, "sum", false},
                       {fw::ReduceKind::max, "max", true},
                       {fw::ReduceKind::min, "min", true},
                       {fw::ReduceKind::argmax, "argmax", true},
                       {fw::ReduceKind::logsumexp, "logsumexp", false}};

at::Tensor torch_reduce(fw::ReduceKind kind, const at::Tensor& x) {
  switch (kind) {
    case fw::ReduceKind::sum: return x.sum(-1);
    case fw::ReduceKind::max: return x.amax(-1);
    case fw::ReduceKind::min: return x.amin(-1);
    case fw::ReduceKind::argmax: return x.argmax(-1);
    case fw::ReduceKind::logsumexp: return at::logsumexp(x, {-1});
    default: return {};
  }
}

// Compares every value (a row's, or a row's elements: `per_row` of them); reports the first few differences with the
// row's pattern. Returns the failures. Exact comparisons (extrema, indices) take exact = true; finite values otherwise
// within the output's rounding plus 1e-5 of the row's sum of magnitudes (sum) or of |x| (softmax, log_softmax).
int compare_rows(const char* name, DType dt, int64_t rows, int64_t cols, int64_t per_row, bool exact,
                 const std::vector<double>& x, const at::Tensor& got_t, const at::Tensor& want_t) {
  const at::Tensor got = got_t.to(at::kCPU).to(at::kDouble).contiguous(),
                   want = want_t.to(at::kCPU).to(at::kDouble).contiguous();
  const double* g = got.data_ptr<double>();
  const double* w = want.data_ptr<double>();
  int failures = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double abs_sum = 0;
    for (int64_t k = 0; k < cols; ++k)
      if (std::isfinite(x[std::size_t(r * cols + k)])) abs_sum += std::fabs(x[std::size_t(r * cols + k)]);
    for (int64_t e = 0; e < per_row; ++e) {
      const int64_t i = r * per_row + e;
      const double scale = per_row == 1 ? abs_sum : std::fabs(x[std::size_t(i)]);
      bool ok;
      if (exact || std::isnan(w[i]) || std::isnan(g[i]) || std::isinf(w[i]) || std::isinf(g[i]))
        ok = (std::isnan(w[i]) && std::isnan(g[i])) || g[i] == w[i];  // NaN both, or identical
      else
        ok = std::fabs(g[i] - w[i]) <= out_eps(dt) * std::fabs(w[i]) + 1e-5 * (std::isfinite(scale) ? scale : 0) + 1e-6;
      if (!ok && ++failures <= 6)
        ADD_FAILURE() << name << " " << opbench::dtype_name(dt) << " " << rows << "x" << cols << " row " << r
                      << (per_row > 1 ? " element " + std::to_string(e) : std::string()) << " (pattern "
                      << r % kPatterns << "): framework " << g[i] << ", LibTorch " << w[i];
    }
  }
  return failures;
}

class SpecialValues : public opbench::testing_gpu::SkipWithoutGpu<testing::TestWithParam<DType>> {};

// (rows, cols) that take each of the row engine's kernels: one element; 8..32 lanes a row; a warp a row, two vectors
// a lane; the streaming kernel; the split kernel (few long rows), with an odd length; and the short-row kernel's 16
// lanes of up to eight vectors (bench's eight_vector_row_shapes, which test_kernels runs too).
std::vector<std::pair<int64_t, int64_t>> row_shapes() {
  std::vector<std::pair<int64_t, int64_t>> v = {{33, 1},    {33, 5},     {66, 40},    {66, 250},
                                                {66, 500},  {66, 3000},  {66, 20000}, {22, 100003}};
  for (const opbench::Shape& s : opbench::bench::eight_vector_row_shapes()) v.emplace_back(s.at(0), s.at(1));
  return v;
}

TEST_P(SpecialValues, RowReductionsMatchLibTorch) {
  const DType dt = GetParam();
  for (const auto& [rows, cols] : row_shapes()) {
    const std::vector<double> host = special_rows(rows, cols);
    const at::Tensor x = at::from_blob(const_cast<double*>(host.data()), {rows, cols}, at::kDouble)
                             .to(scalar_type(dt))
                             .to(at::kCUDA)
                             .contiguous();
    // The values LibTorch and the kernel read (x rounded to dt), for the tolerance.
    const at::Tensor xr = x.to(at::kCPU).to(at::kDouble).contiguous();
    const std::vector<double> xs(xr.data_ptr<double>(), xr.data_ptr<double>() + rows * cols);
    const std::size_t ws_bytes = fw::reduce_last_workspace_bytes(rows, cols, dt);
    const at::Tensor ws = at::empty({int64_t(ws_bytes) + 1}, x.options().dtype(at::kByte));
    for (const Case& c : kCases) {
      const at::Tensor want = torch_reduce(c.kind, x);
      at::Tensor got =
          at::empty({rows}, x.options().dtype(c.kind == fw::ReduceKind::argmax ? at::kLong : scalar_type(dt)));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      fw::reduce_last(c.kind, dt, x.data_ptr(), got.data_ptr(), rows, cols, ws_bytes ? ws.data_ptr() : nullptr,
                      ws_bytes, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(compare_rows(c.name, dt, rows, cols, 1, c.exact, xs, got, want), 0)
          << c.name << " " << opbench::dtype_name(dt) << " " << rows << "x" << cols << ": rows unlike LibTorch's";
    }
    const std::size_t sws_bytes = fw::softmax_workspace_bytes(rows, cols, dt);
    const at::Tensor sws = at::empty({int64_t(sws_bytes) + 1}, x.options().dtype(at::kByte));
    for (bool log : {false, true}) {
      const char* name = log ? "log_softmax" : "softmax";
      const at::Tensor want = log ? at::log_softmax(x, -1) : at::softmax(x, -1);
      at::Tensor got = at::empty_like(x);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      fw::softmax_last(dt, x.data_ptr(), got.data_ptr(), rows, cols, log, sws_bytes ? sws.data_ptr() : nullptr,
                       sws_bytes, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(compare_rows(name, dt, rows, cols, cols, false, xs, got, want), 0)
          << name << " " << opbench::dtype_name(dt) << " " << rows << "x" << cols << ": elements unlike LibTorch's";
    }
  }
}

// row_shapes() take each of the row engine's kernels for cross_entropy too; 65536 rows of 256 take the short-row
// kernel that sums its rows' losses in block sums (two rows a group or more).
TEST_P(SpecialValues, CrossEntropyIsNaNForATargetOutsideTheClasses) {
  const DType dt = GetParam();
  std::vector<std::pair<int64_t, int64_t>> shapes = row_shapes();
  shapes.push_back({65536, 256});
  for (const auto& [rows, cols] : shapes) {
    std::mt19937_64 gen(uint64_t(rows * 31 + cols));
    const at::Tensor x = at::randn({rows, cols}, at::kDouble).to(scalar_type(dt)).to(at::kCUDA).contiguous();
    std::vector<int64_t> t(static_cast<std::size_t>(rows));
    for (int64_t& v : t) v = int64_t(gen() % uint64_t(cols));
    const std::size_t ws_bytes = fw::cross_entropy_workspace_bytes(rows, cols, dt);
    const at::Tensor ws = at::empty({int64_t(ws_bytes) + 16}, x.options().dtype(at::kByte));
    auto on_gpu = [&](const std::vector<int64_t>& targets) {
      return at::from_blob(const_cast<int64_t*>(targets.data()), {rows}, at::kLong).to(at::kCUDA).contiguous();
    };
    auto loss = [&](const std::vector<int64_t>& targets) {
      const at::Tensor tg = on_gpu(targets);
      at::Tensor out = at::empty({1}, x.options());
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      fw::cross_entropy(dt, x.data_ptr(), tg.data_ptr<int64_t>(), out.data_ptr(), rows, cols, ws.data_ptr(), ws_bytes,
                        nullptr);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      return out.to(at::kCPU).to(at::kDouble).item<double>();
    };
    const std::string where = std::string(opbench::dtype_name(dt)) + " " + std::to_string(rows) + "x" +
                              std::to_string(cols);
    const double want = at::cross_entropy_loss(x.to(at::kFloat), on_gpu(t)).to(at::kCPU).item<double>();
    const double got = loss(t);
    EXPECT_NEAR(got, want, (out_eps(dt) + 1e-4) * std::fabs(want) + 1e-5) << where << ": targets in [0, cols)";
    for (const int64_t bad : {int64_t(-1), cols}) {
      std::vector<int64_t> tb = t;
      tb[std::size_t(rows / 2)] = bad;
      const double v = loss(tb);
      EXPECT_TRUE(std::isnan(v)) << where << ": row " << rows / 2 << "'s target " << bad << " gave " << v
                                 << ", not NaN";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SpecialValues, testing::Values(DType::f32, DType::f16, DType::bf16),
                         [](const testing::TestParamInfo<DType>& i) {
                           return std::string(opbench::dtype_name(i.param));
                         });

}  // namespace
