// Builds the registry once: every registered category's ops (bench/<category>.cpp), then their
// LibTorch and vendor references by name (src/reference/).
#include "bench/categories.hpp"
#include "src/reference/reference.hpp"

namespace opbench {

const Registry& global_registry() {
  static const Registry reg = [] {
    Registry r;
    for (const CategoryDef& c : category_defs()) c.register_ops(r);
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
