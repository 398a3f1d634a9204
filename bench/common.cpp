// Defaults shared by the category files.
#include <algorithm>
#include <cmath>

#include "bench/categories.hpp"

namespace opbench::bench {

Tolerance elementwise_tolerance(const Shape&, DType t) {
  // One rounding of the output in the storage type, plus the last-bit differences two correct fp32
  // evaluations of the same formula can have: about two units in the last place.
  switch (t) {
    case DType::f32: return {1e-6, 1e-5};
    case DType::f16: return {1e-5, 2e-3};    // ulp 2^-10
    case DType::bf16: return {1e-4, 1.6e-2}; // ulp 2^-7
    default: return {0, 0};
  }
}

Tolerance reduction_tolerance(const Shape&, DType t) {
  switch (t) {
    case DType::f32: return {1e-5, 1e-4};
    case DType::f16: return {1e-4, 4e-3};
    case DType::bf16: return {1e-3, 2e-2};
    default: return {0, 0};
  }
}

const std::vector<Shape>& odd_shapes() {
  // {20001, 256}, {20001, 200} and {40001, 40}: more short aligned rows than one wave of row_reduce_kernel
  // holds, an odd count (the row reductions' row_short_kernel, two rows a step, and its last half step; one
  // or two vectors a lane, the second one partial at 200 fp32 columns).
  static const std::vector<Shape> v = {{1},         {3},          {4097},       {1023, 1025}, {1, 65537}, {65537, 1},
                                       {16, 5003},  {257, 24},    {999, 100},   {20001, 256}, {20001, 200},
                                       {40001, 40}};
  return v;
}

// {8001, 776} and {8001, 440}: 8001 rows (an odd count) of 97 vectors in bf16 and fp16, 110 in fp32; {8001, 1000}
// and {8001, 500}: 125 vectors in bf16 and fp16 and in fp32 (past 112, where fp32 rows of a one-float reducer keep the
// 4-deep kernel: plans.hpp, short_row_max_vectors). The short-row kernel at 16 lanes of up to eight vectors a row
// (row_engine.cuh), its last vectors partial.
const std::vector<Shape>& eight_vector_row_shapes() {
  static const std::vector<Shape> v = {{8001, 776}, {8001, 440}, {8001, 1000}, {8001, 500}};
  return v;
}

std::vector<Shape> odd_shapes_and(const std::vector<Shape>& extra) {
  std::vector<Shape> v = odd_shapes();
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

// {1001, 1000} and {4001, 1000}: 16-bit rows of four vectors a lane on the warp path (769..1024 columns, the last
// vector absent in lanes 29-31), an odd row count, on a grid of one wave at six blocks a SM (251 blocks: the widened
// hold) and on one over it on GPUs of up to 166 SMs (1001 blocks: the raw hold; row_apply.cuh, launch_cached_nv).
// {2001, 3000}: the block path's 32 elements a thread for 16-bit softmax and log_softmax (at least eight rows a SM
// on GPUs of up to 250 SMs: pick_cached), 375 vectors over 128 threads x 4, the third partial and the fourth empty.
std::vector<Shape> row_apply_test_shapes() {
  return odd_shapes_and({{1001, 760}, {1001, 360}, {1001, 90}, {1001, 1000}, {4001, 1000}, {2001, 3000}});
}

std::vector<Shape> row_reduction_test_shapes() { return odd_shapes_and(eight_vector_row_shapes()); }

// The size class's standard shapes, then the extra ones whose element count falls in that class
// (<= 1.1M small, <= 8.4M medium, <= 33.6M large, else very_large; batch gets none), skipping any
// shape some class already runs. Standard shapes stay first so --fast keeps them.
std::vector<Shape> rowwise_shapes(SizeClass c, const std::vector<Shape>& extra) {
  std::vector<Shape> out = size_class_shapes(c);
  auto class_of = [](int64_t n) {
    if (n <= 1'100'000) return SizeClass::small;
    if (n <= 8'400'000) return SizeClass::medium;
    if (n <= 33'600'000) return SizeClass::large;
    return SizeClass::very_large;
  };
  auto standard = [](const Shape& s) {
    for (SizeClass k : all_size_classes()) {
      const auto& v = size_class_shapes(k);
      if (std::find(v.begin(), v.end(), s) != v.end()) return true;
    }
    return false;
  };
  if (c == SizeClass::batch || c == SizeClass::custom) return out;
  for (const Shape& s : extra)
    if (class_of(numel(s)) == c && !standard(s) && std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  return out;
}

// Transformer activations: rows 4096 and 16384 x hidden 768 (BERT/GPT-2), 896 (Qwen2-0.5B), 1024, 4096,
// 8192, and one very long row.
const std::vector<Shape>& transformer_shapes() {
  static const std::vector<Shape> s = [] {
    std::vector<Shape> v;
    for (int64_t rows : {4096, 16384})
      for (int64_t hidden : {768, 896, 1024, 4096, 8192}) v.push_back({rows, hidden});
    v.push_back({1, 262144});
    return v;
  }();
  return s;
}

OpDef make_op(const std::string& name, Category c, const std::string& description) {
  OpDef op;
  op.name = name;
  op.category = c;
  op.description = description;
  op.shapes = [](SizeClass sc) { return size_class_shapes(sc); };
  op.tolerance = elementwise_tolerance;
  op.test_shapes = [] { return odd_shapes(); };
  return op;
}

Impl framework_impl(std::function<void(const Bindings&, cudaStream_t)> launcher,
                    std::function<std::string(const Bindings&)> kernel) {
  Impl impl;
  impl.kind = ImplKind::framework;
  impl.prepare = [launcher, kernel](const Bindings& b) {
    Prepared p;
    p.launch = [launcher, b](cudaStream_t s) { launcher(b, s); };
    if (kernel) p.kernel = kernel(b);
    return p;
  };
  return impl;
}

}  // namespace opbench::bench
