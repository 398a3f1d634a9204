#include "opbench/op.hpp"

#include <stdexcept>

#include "opbench/tensor.hpp"

namespace opbench {

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
