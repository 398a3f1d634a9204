#include "opbench/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace opbench {

OpDef& Registry::add(OpDef op) {
  if (op.name.empty()) throw std::logic_error("op without a name");
  if (find(op.name)) throw std::logic_error("op '" + op.name + "' registered twice");
  if (!op.io || !op.bytes || !op.flops || !op.tolerance || !op.shapes || op.impls.empty() ||
      !op.impls[0].prepare)
    throw std::logic_error("op '" + op.name + "' is missing io, bytes, flops, tolerance, shapes or its launcher");
  ops_.push_back(std::move(op));
  return ops_.back();
}

const OpDef* Registry::find(const std::string& name) const {
  for (const OpDef& op : ops_)
    if (op.name == name) return &op;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> v;
  for (const OpDef& op : ops_) v.push_back(op.name);
  return v;
}

std::optional<CategorySelection> parse_category(const std::string& s) {
  if (s == "all") return CategorySelection{all_categories(), false};
  for (Category c : all_categories())
    if (s == category_name(c)) return CategorySelection{{c}, false};
  // Names users of the Genesis scripts know.
  if (s == "matrix") return CategorySelection{{Category::matmul}, false};
  if (s == "shape" || s == "tensor" || s == "memory") return CategorySelection{{Category::layout}, false};
  if (s == "broadcast") return CategorySelection{{Category::element}, true};
  if (s == "normalization") return CategorySelection{{Category::norm}, false};
  if (s == "activations") return CategorySelection{{Category::activation}, false};
  return std::nullopt;
}

std::string Problem::id() const {
  return std::string(category_name(op->category)) + "/" + op->name + "/" + dtype_name(dtype) + "/" +
         shape_str(shape);
}

static bool selected_by_category(const OpDef& op, const std::vector<CategorySelection>& sel) {
  if (sel.empty()) return true;
  for (const CategorySelection& c : sel) {
    if (std::find(c.categories.begin(), c.categories.end(), op.category) == c.categories.end()) continue;
    if (c.broadcast_only && op.name.rfind("add_bcast", 0) != 0) continue;
    return true;
  }
  return false;
}

std::vector<Problem> select_problems(const Registry& reg, const ProblemFilter& f) {
  for (const std::string& name : f.ops)
    if (!reg.find(name)) throw std::invalid_argument("unknown op '" + name + "'");

  const std::vector<DType> dtypes =
      f.dtypes.empty() ? std::vector<DType>{DType::f32, DType::f16, DType::bf16} : f.dtypes;
  const std::vector<SizeClass> sizes = f.sizes.empty() ? all_size_classes() : f.sizes;

  std::vector<Problem> out;
  for (const OpDef& op : reg.ops()) {
    if (!f.ops.empty() && std::find(f.ops.begin(), f.ops.end(), op.name) == f.ops.end()) continue;
    if (!selected_by_category(op, f.categories)) continue;
    for (DType dt : dtypes) {
      if (std::find(op.dtypes.begin(), op.dtypes.end(), dt) == op.dtypes.end()) continue;
      if (!f.custom_shapes.empty()) {
        for (const Shape& s : f.custom_shapes) out.push_back({&op, s, SizeClass::custom, dt});
        continue;
      }
      for (SizeClass c : sizes) {
        std::vector<Shape> shapes = op.shapes(c);
        if (f.fast && shapes.size() > 2) shapes.resize(2);
        for (const Shape& s : shapes) out.push_back({&op, s, c, dt});
      }
    }
  }
  return out;
}

std::vector<Rejected> reject_unreadable_shapes(std::vector<Problem>& problems) {
  std::vector<Rejected> rejected;
  std::vector<Problem> kept;
  for (Problem& p : problems) {
    try {
      p.op->io(p.shape, p.dtype);
      kept.push_back(std::move(p));
    } catch (const std::invalid_argument& e) {
      rejected.push_back({std::move(p), e.what()});
    }
  }
  problems = std::move(kept);
  return rejected;
}

}  // namespace opbench
