// Builds the registry once: every category's ops, then their LibTorch and vendor references by name.
#include "bench/categories.hpp"
#include "src/reference/reference.hpp"

namespace opbench {

static Registry build_registry() {
  Registry reg;
  bench::register_element(reg);
  bench::register_activation(reg);
  bench::register_reduction(reg);
  bench::register_norm(reg);
  bench::register_loss(reg);
  bench::register_layout(reg);
  bench::register_matmul(reg);
  return reg;
}

const Registry& global_registry() {
  static const Registry reg = [] {
    Registry r = build_registry();
    Registry out;
    for (OpDef op : r.ops()) {
      op.impls.resize(1);  // the framework's, set by the category file
      op.impls.push_back(reference::torch_impl(op.name));
      if (auto v = reference::cudnn_impl(op.name)) op.impls.push_back(*v);
      if (auto v = reference::cublas_impl(op.name)) op.impls.push_back(*v);
      out.add(std::move(op));
    }
    return out;
  }();
  return reg;
}

}  // namespace opbench
