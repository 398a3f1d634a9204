// Loss ops, each reduced to a 1-element tensor (shape {1}) in the input dtype:
//   mse_loss:      mean((pred - target)^2), pred and target of the same shape;
//   cross_entropy: mean over rows of logsumexp(logits[row]) - logits[row, target[row]], logits read as
//                  [N, V] = [rows, last dim], int64 targets [N] in [0, V).
// Kernels: kernels/loss/ (one pass over the data each). Shapes: the standard ones, the transformer
// shapes, and for cross_entropy the vocabularies 32000 (LLaMA) and 151936 (Qwen).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/loss/loss.hpp"

namespace opbench::bench {

const Category kLoss{"loss"};

namespace {

const std::vector<Shape>& cross_entropy_extra() {
  static const std::vector<Shape> s = [] {
    std::vector<Shape> v = {{4096, 32000}, {16384, 32000}, {1024, 151936}, {4096, 151936}};
    for (const Shape& t : transformer_shapes()) v.push_back(t);
    return v;
  }();
  return s;
}

// A mean of many fp32-accumulated terms rounded once: fp16/bf16 outputs within an ulp of each other.
Tolerance loss_tolerance(DType t, int64_t n) {
  const double grow = std::max(1.0, std::log2(double(std::max<int64_t>(n, 2))) / 10.0);
  switch (t) {
    case DType::f16: return {1e-3, 2e-3};
    case DType::bf16: return {1e-2, 1.6e-2};
    default: return {1e-5, 1e-5 * grow};
  }
}

void add_mse(Registry& r) {
  OpDef op = make_op("mse_loss", kLoss, "mean((pred - target)^2), one pass over both inputs");
  op.tags = {kSweepTag};
  op.io = [](const Shape& s, DType t) {
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-1.0, 1.0)}, {s, t, Init::uniform(-1.0, 1.0)}};
    io.outputs = {{Shape{1}, t}};
    io.workspace_bytes = fw::mse_loss_workspace_bytes(numel(s), t);
    return io;
  };
  // Read pred and target once, write one element.
  op.bytes = [](const Shape& s, DType t) { return (2.0 * double(numel(s)) + 1.0) * dtype_size(t); };
  op.flops = [](const Shape& s, DType) { return 3.0 * double(numel(s)); };  // sub, mul, add
  op.tolerance = [](const Shape& s, DType t) { return loss_tolerance(t, numel(s)); };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    fw::mse_loss(b.in[0].dtype, b.in[0].data, b.in[1].data, b.out[0].data, b.in[0].numel(), b.workspace,
                 b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

void add_cross_entropy(Registry& r) {
  OpDef op = make_op("cross_entropy", kLoss,
                     "mean over rows of logsumexp(logits) - logits[target]; logits [N, V], int64 targets");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-4.0, 4.0)}, {Shape{rc.rows}, DType::i64, Init::integers(0, rc.cols)}};
    io.outputs = {{Shape{1}, t}};
    io.workspace_bytes = fw::cross_entropy_workspace_bytes(rc.rows, rc.cols, t);
    return io;
  };
  // Read the logits once and the targets (8 bytes per row); the target logits are re-read (one element
  // per row, not counted); write one element.
  op.bytes = [](const Shape& s, DType t) {
    return double(numel(s)) * dtype_size(t) + 8.0 * double(as_rows(s).rows) + dtype_size(t);
  };
  op.flops = [](const Shape& s, DType) { return 4.0 * double(numel(s)); };  // max, sub, exp, add
  op.tolerance = [](const Shape& s, DType t) { return loss_tolerance(t, as_rows(s).rows); };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, cross_entropy_extra()); };
  // {70001, 256}: more short rows than two a group of one wave of the short-row kernel (132 SMs), so that the
  // rows end in block sums (launch_row_short, row_engine.cuh), with an odd last step.
  op.test_shapes = [] {
    std::vector<Shape> v = row_reduction_test_shapes();
    v.push_back({70001, 256});
    return v;
  };
  op.tags = {kSweepTag};
  op.rows_over_vocab = true;
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    fw::cross_entropy(b.in[0].dtype, b.in[0].data, b.in[1].as<const int64_t>(), b.out[0].data, rc.rows, rc.cols,
                      b.workspace, b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

}  // namespace

namespace {

void register_loss(Registry& r) {
  add_mse(r);
  add_cross_entropy(r);
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kLoss, 50, "mse_loss and cross_entropy", {}, register_loss});

}  // namespace opbench::bench
