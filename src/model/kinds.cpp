// The report vocabulary's names (kinds.hpp).
#include "opbench/kinds.hpp"

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

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::incorrect: return "incorrect";
    case Status::failed: return "failed";
    case Status::not_supported: return "not_supported";
  }
  return "?";
}

}  // namespace opbench
