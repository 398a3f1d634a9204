#include "opbench/op.hpp"

#include <stdexcept>

#include "opbench/tensor.hpp"

namespace opbench {

const char* category_name(Category c) {
  switch (c) {
    case Category::element: return "element";
    case Category::activation: return "activation";
    case Category::reduction: return "reduction";
    case Category::norm: return "norm";
    case Category::loss: return "loss";
    case Category::matmul: return "matmul";
    case Category::layout: return "layout";
  }
  return "?";
}

const std::vector<Category>& all_categories() {
  static const std::vector<Category> v = {Category::element, Category::activation, Category::reduction,
                                          Category::norm,    Category::loss,       Category::matmul,
                                          Category::layout};
  return v;
}

const char* impl_name(ImplKind k) {
  switch (k) {
    case ImplKind::framework: return "framework";
    case ImplKind::torch: return "torch";
    case ImplKind::cudnn: return "cudnn";
    case ImplKind::cublas: return "cublas";
  }
  return "?";
}

double Params::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("missing op parameter '" + name + "'");
  return it->second;
}

double Params::get(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

const Impl* OpDef::impl(ImplKind k) const {
  for (const Impl& i : impls)
    if (i.kind == k) return &i;
  return nullptr;
}

int64_t TensorView::numel() const { return opbench::numel(shape); }

}  // namespace opbench
