// Defaults shared by the category files.
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
  static const std::vector<Shape> v = {{1}, {3}, {4097}, {1023, 1025}, {1, 65537}, {65537, 1}};
  return v;
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

Impl framework_impl(std::function<void(const Bindings&, cudaStream_t)> launcher) {
  Impl impl;
  impl.kind = ImplKind::framework;
  impl.prepare = [launcher](const Bindings& b) {
    Prepared p;
    p.launch = [launcher, b](cudaStream_t s) { launcher(b, s); };
    return p;
  };
  return impl;
}

}  // namespace opbench::bench
