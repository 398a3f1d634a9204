// The registry of every op bench_ops knows, and the filters the CLI applies to it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opbench/op.hpp"

namespace opbench {

class Registry {
 public:
  // Adds an op; throws if the name is taken or the definition is incomplete.
  OpDef& add(OpDef op);
  const std::vector<OpDef>& ops() const { return ops_; }
  const OpDef* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<OpDef> ops_;
};

// Every op of every category (bench/ registers them).
const Registry& global_registry();

// A category name as users type it, with the Genesis aliases (matrix, shape, tensor, memory, broadcast).
// `broadcast` selects the element ops whose name starts with add_bcast.
struct CategorySelection {
  std::vector<Category> categories;
  bool broadcast_only = false;
};
std::optional<CategorySelection> parse_category(const std::string& s);  // "all" selects every category

struct Problem {
  const OpDef* op = nullptr;
  Shape shape;
  SizeClass size_class = SizeClass::custom;
  DType dtype = DType::f32;
  std::string id() const;  // "element/add/fp32/4096x4096" (= ProblemResult::id())
};

struct ProblemFilter {
  std::vector<CategorySelection> categories;   // empty: all
  std::vector<std::string> ops;               // empty: all
  std::vector<SizeClass> sizes;               // empty: all named classes
  std::vector<Shape> custom_shapes;           // non-empty: run these instead of the size classes
  std::vector<DType> dtypes;                  // empty: fp32, fp16, bf16
  bool fast = false;                          // the first two shapes of each class
};

// A problem whose op cannot read its shape (OpDef::io throws std::invalid_argument, e.g. --shape 7 for
// a 4-D permute), with the op's reason.
struct Rejected {
  Problem problem;
  std::string reason;
};
// Removes such problems from `problems` and returns them.
std::vector<Rejected> reject_unreadable_shapes(std::vector<Problem>& problems);

// Problems in a stable order: op (registry order), dtype, size class, shape. Throws std::invalid_argument
// for an unknown op name.
std::vector<Problem> select_problems(const Registry& reg, const ProblemFilter& f);

}  // namespace opbench
