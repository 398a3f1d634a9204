// LibTorch references of the reduction category: sum, mean, max (amax), min (amin) and argmax over
// the last dim, the first dim and all elements; softmax, log_softmax and logsumexp over the last dim.
//
// Shapes as bench/reduction.cpp lays them out: "last" reads x as [rows, last dim] -> [rows], "first"
// as [first dim, rest] -> [rest], "all" as [1, numel] -> [1] (LibTorch's full reductions return a
// 0-dim tensor; reducing dim 1 of the [1, numel] view gives the {1}-shaped output the harness holds,
// and argmax over it is the flat index, as at::argmax(x)). The views are free (x is contiguous), so the
// timed work is LibTorch's reduction alone, written through the out= variants into the harness's
// outputs. Device- and dtype-agnostic; builds against LibTorch 1.13 and 2.x.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference {
namespace {

enum class Where { last, first, all };

at::Tensor as_2d(const at::Tensor& x, Where w) {
  switch (w) {
    case Where::last: return x.dim() == 0 ? x.reshape({1, 1}) : x.reshape({-1, x.size(-1)});
    case Where::first: return x.dim() == 0 ? x.reshape({1, 1}) : x.reshape({x.size(0), -1});
    case Where::all: return x.reshape({1, -1});
  }
  return x;
}

int64_t reduced_dim(Where w) { return w == Where::first ? 0 : 1; }

const char* where_name(Where w) { return w == Where::last ? "last" : w == Where::first ? "first" : "all"; }

void add_reductions(TorchRegistry& r, Where w) {
  const std::string suffix = std::string("_") + where_name(w);
  r.add("sum" + suffix, [w](const TorchArgs& a) {
    const std::vector<int64_t> dims{reduced_dim(w)};
    at::sum_out(a.out[0], as_2d(a.in[0], w), at::IntArrayRef(dims));
    return a.out;
  });
  r.add("mean" + suffix, [w](const TorchArgs& a) {
    const std::vector<int64_t> dims{reduced_dim(w)};
    at::mean_out(a.out[0], as_2d(a.in[0], w), at::IntArrayRef(dims));
    return a.out;
  });
  r.add("max" + suffix, [w](const TorchArgs& a) {
    const std::vector<int64_t> dims{reduced_dim(w)};
    at::amax_out(a.out[0], as_2d(a.in[0], w), at::IntArrayRef(dims));
    return a.out;
  });
  r.add("min" + suffix, [w](const TorchArgs& a) {
    const std::vector<int64_t> dims{reduced_dim(w)};
    at::amin_out(a.out[0], as_2d(a.in[0], w), at::IntArrayRef(dims));
    return a.out;
  });
  r.add("argmax" + suffix, [w](const TorchArgs& a) {
    at::argmax_out(a.out[0], as_2d(a.in[0], w), reduced_dim(w));
    return a.out;
  });
}

}  // namespace

static void register_torch_reduction(TorchRegistry& r) {
  add_reductions(r, Where::last);
  add_reductions(r, Where::first);
  add_reductions(r, Where::all);
  // Over the last dim of the tensor as given (no reshape needed: same memory, same output shape).
  r.add("softmax", [](const TorchArgs& a) {
    at::softmax_out(a.out[0], a.in[0], -1);
    return a.out;
  });
  r.add("log_softmax", [](const TorchArgs& a) {
    at::log_softmax_out(a.out[0], a.in[0], -1);
    return a.out;
  });
  r.add("logsumexp", [](const TorchArgs& a) {
    const std::vector<int64_t> dims{1};
    at::logsumexp_out(a.out[0], as_2d(a.in[0], Where::last), at::IntArrayRef(dims));
    return a.out;
  });
}

OPBENCH_REGISTER_TORCH(register_torch_reduction);

}  // namespace opbench::reference
