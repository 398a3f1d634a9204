// Reduction ops: sum, mean, max, min, argmax over the last dim, the first dim and all elements
// (<kind>_last, <kind>_first, <kind>_all), and softmax, log_softmax, logsumexp over the last dim.
// Kernels: kernels/reduction/. Row-wise ops (the last-dim ones) also run transformer shapes, see
// rowwise_shapes() (bench/common.cpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/reduction/reduction.hpp"

namespace opbench::bench {

const Category kReduction{"reduction"};

namespace {

using fw::ReduceKind;

enum class Where { last, first, all };

const char* kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum: return "sum";
    case ReduceKind::mean: return "mean";
    case ReduceKind::max: return "max";
    case ReduceKind::min: return "min";
    case ReduceKind::argmax: return "argmax";
    case ReduceKind::logsumexp: return "logsumexp";
  }
  return "?";
}
const char* where_name(Where w) { return w == Where::last ? "last" : w == Where::first ? "first" : "all"; }

// [outer, reduced]: the view each reduction works on.
struct Split {
  int64_t rows, cols;  // the kernel's [rows, cols]
  int64_t reduced;     // elements per output
  int64_t outputs;
};
Split split_of(const Shape& s, Where w) {
  const int64_t n = numel(s);
  if (w == Where::last) {
    const Rows r = as_rows(s);
    return {r.rows, r.cols, r.cols, r.rows};
  }
  if (w == Where::first) {
    const int64_t first = s.empty() ? 1 : s[0];
    return {first, n / first, first, n / first};
  }
  return {1, n, n, 1};
}

// Sums of uniform(0.5, 1.5): no cancellation, so a relative check means something. fp16 sums of more
// than 16384 elements are scaled down so the result stays far from fp16's 65504 (LibTorch would
// overflow to inf as well).
Init sum_init(DType t, int64_t reduced, ReduceKind k) {
  double lo = 0.5, hi = 1.5;
  if (k == ReduceKind::sum && t == DType::f16 && reduced > 16384) {
    const double scale = 16384.0 / double(reduced);
    lo *= scale;
    hi *= scale;
  }
  return Init::uniform(lo, hi);
}

// fp32 accumulation: relative error grows slowly with the reduced length; fp16/bf16: the output's
// rounding (two independent roundings may differ by one ulp: 2^-10, 2^-7 relative).
Tolerance sum_tolerance(DType t, int64_t reduced) {
  const double grow = std::max(1.0, std::log2(double(std::max<int64_t>(reduced, 2))) / 10.0);
  switch (t) {
    case DType::f16: return {1e-6, 2e-3};
    case DType::bf16: return {1e-6, 1.6e-2};
    default: return {1e-6, 1e-5 * grow};
  }
}

// log-domain outputs (log_softmax, logsumexp): |values| ~ log(cols) + range.
Tolerance log_tolerance(DType t) {
  switch (t) {
    case DType::f16: return {1e-3, 2e-3};
    case DType::bf16: return {1e-2, 1.6e-2};
    default: return {1e-5, 1e-5};
  }
}

// Probabilities: fp16 outputs below 6.1e-5 are subnormal (1 ulp = 6e-8 absolute), hence the atol.
Tolerance prob_tolerance(DType t) {
  switch (t) {
    case DType::f16: return {1e-7, 2e-3};
    case DType::bf16: return {1e-7, 1.6e-2};
    default: return {1e-8, 1e-5};
  }
}

void add_reduction(Registry& r, ReduceKind kind, Where where) {
  const std::string name = std::string(kind_name(kind)) + "_" + where_name(where);
  const std::string what = where == Where::last    ? "over the last dim"
                           : where == Where::first ? "over the first dim"
                                                   : "over all elements";
  OpDef op = make_op(name, kReduction,
                     std::string(kind_name(kind)) + " " + what +
                         (kind == ReduceKind::argmax ? " (int64 index of the first maximum)" : ""));
  op.io = [kind, where](const Shape& s, DType t) {
    const Split sp = split_of(s, where);
    OpIO io;
    const bool additive = kind == ReduceKind::sum || kind == ReduceKind::mean;
    io.inputs = {{s, t, additive ? sum_init(t, sp.reduced, kind) : Init::uniform(-2.0, 2.0)}};
    io.outputs = {{Shape{sp.outputs}, kind == ReduceKind::argmax ? DType::i64 : t}};
    switch (where) {
      case Where::last: io.workspace_bytes = fw::reduce_last_workspace_bytes(sp.rows, sp.cols, t); break;
      case Where::first: io.workspace_bytes = fw::reduce_first_workspace_bytes(sp.rows, sp.cols, t); break;
      case Where::all: io.workspace_bytes = fw::reduce_all_workspace_bytes(sp.cols, t); break;
    }
    return io;
  };
  // Read every element once, write one value per output (int64 for argmax).
  op.bytes = [kind, where](const Shape& s, DType t) {
    const Split sp = split_of(s, where);
    const double out = kind == ReduceKind::argmax ? 8.0 : double(dtype_size(t));
    return double(numel(s)) * dtype_size(t) + double(sp.outputs) * out;
  };
  // One add / compare per element (mean: + one multiply per output).
  op.flops = [kind, where](const Shape& s, DType) {
    return double(numel(s)) + (kind == ReduceKind::mean ? double(split_of(s, where).outputs) : 0.0);
  };
  op.tolerance = [kind, where](const Shape& s, DType t) -> Tolerance {
    if (kind == ReduceKind::max || kind == ReduceKind::min || kind == ReduceKind::argmax) return {0.0, 0.0};  // exact
    return sum_tolerance(t, split_of(s, where).reduced);
  };
  if (where == Where::last) {
    op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
    op.test_shapes = row_reduction_test_shapes;
  }
  op.impls = {framework_impl([kind, where](const Bindings& b, cudaStream_t stream) {
    const Split sp = split_of(b.in[0].shape, where);
    switch (where) {
      case Where::last:
        fw::reduce_last(kind, b.in[0].dtype, b.in[0].data, b.out[0].data, sp.rows, sp.cols, b.workspace,
                        b.workspace_bytes, stream);
        break;
      case Where::first:
        fw::reduce_first(kind, b.in[0].dtype, b.in[0].data, b.out[0].data, sp.rows, sp.cols, b.workspace,
                         b.workspace_bytes, stream);
        break;
      case Where::all:
        fw::reduce_all(kind, b.in[0].dtype, b.in[0].data, b.out[0].data, sp.cols, b.workspace, b.workspace_bytes,
                       stream);
        break;
    }
  })};
  r.add(std::move(op));
}

void add_softmax(Registry& r, bool log) {
  OpDef op = make_op(log ? "log_softmax" : "softmax", kReduction,
                     log ? "log(softmax(x)) over the last dim, max-shifted" : "softmax over the last dim, max-shifted");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-3.0, 3.0)}};
    io.outputs = {{s, t}};
    io.workspace_bytes = fw::softmax_workspace_bytes(rc.rows, rc.cols, t);
    return io;
  };
  // Read x once, write y once (the row stays in registers or in L2 between the two).
  op.bytes = [](const Shape& s, DType t) { return 2.0 * double(numel(s)) * dtype_size(t); };
  // softmax: max, sub, exp, add, mul = 5 per element; log_softmax: max, sub, exp, add = 4.
  op.flops = [log](const Shape& s, DType) { return (log ? 4.0 : 5.0) * double(numel(s)); };
  op.tolerance = [log](const Shape&, DType t) { return log ? log_tolerance(t) : prob_tolerance(t); };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
  op.test_shapes = row_apply_test_shapes;
  op.impls = {framework_impl([log](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    fw::softmax_last(b.in[0].dtype, b.in[0].data, b.out[0].data, rc.rows, rc.cols, log, b.workspace,
                     b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

void add_logsumexp(Registry& r) {
  OpDef op = make_op("logsumexp", kReduction, "log(sum(exp(x))) over the last dim, online max/sum");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-3.0, 3.0)}};
    io.outputs = {{Shape{rc.rows}, t}};
    io.workspace_bytes = fw::reduce_last_workspace_bytes(rc.rows, rc.cols, t);
    return io;
  };
  // Read x once, write one value per row.
  op.bytes = [](const Shape& s, DType t) {
    return double(numel(s)) * dtype_size(t) + double(as_rows(s).rows) * dtype_size(t);
  };
  op.flops = [](const Shape& s, DType) { return 4.0 * double(numel(s)); };  // max, sub, exp, add
  op.tolerance = [](const Shape&, DType t) { return log_tolerance(t); };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
  op.test_shapes = row_reduction_test_shapes;
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    fw::reduce_last(ReduceKind::logsumexp, b.in[0].dtype, b.in[0].data, b.out[0].data, rc.rows, rc.cols,
                    b.workspace, b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

}  // namespace

namespace {

void register_reduction(Registry& r) {
  for (ReduceKind k : {ReduceKind::sum, ReduceKind::mean, ReduceKind::max, ReduceKind::min, ReduceKind::argmax})
    for (Where w : {Where::last, Where::first, Where::all}) add_reduction(r, k, w);
  add_softmax(r, false);
  add_softmax(r, true);
  add_logsumexp(r);
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kReduction, 30, "sum, mean, max, min, argmax over a dim or all; softmax, log_softmax, logsumexp", {}, register_reduction});

}  // namespace opbench::bench
