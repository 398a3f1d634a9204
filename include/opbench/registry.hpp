// The registry of every op bench_ops knows, and the filters the CLI applies to it.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/model_info.hpp"
#include "opbench/sweep.hpp"

namespace opbench {

class Registry;

// A category as bench/<category>.cpp declares it: its name, where it sorts in listings and reports, the
// other names users type for it (the Genesis scripts' "matrix" for matmul, ...), and the function that
// adds its ops. One OPBENCH_REGISTER_CATEGORY in that file is all a new category needs.
struct CategoryDef {
  Category category;
  int order = 0;                       // listings and the CLI sort by it
  std::string description;
  std::vector<std::string> aliases;
  std::function<void(Registry&)> register_ops;
  // Whether "all" (and a run that names no category) includes it: the model benchmark runs only when asked.
  bool in_all = true;
};

// Every category registered so far, sorted by order (registration happens at static initialization).
const std::vector<CategoryDef>& category_defs();
// Adds a category; throws std::logic_error on a name or alias taken twice. Returns true (for the macro).
bool register_category(CategoryDef def);

#define OPBENCH_CATEGORY_CAT2(a, b) a##b
#define OPBENCH_CATEGORY_CAT(a, b) OPBENCH_CATEGORY_CAT2(a, b)
// At namespace scope in bench/<category>.cpp: OPBENCH_REGISTER_CATEGORY({Category{"element"}, 10, "...",
// {aliases}, register_element});
#define OPBENCH_REGISTER_CATEGORY(...)                                                              \
  static const bool OPBENCH_CATEGORY_CAT(opbench_category_registered_, __LINE__) =               \
      ::opbench::register_category(::opbench::CategoryDef __VA_ARGS__)

class Registry {
 public:
  // Adds an op; throws if the name is taken or the definition is incomplete.
  OpDef& add(OpDef op);
  const std::vector<OpDef>& ops() const { return ops_; }
  const OpDef* find(const std::string& name) const;
  std::vector<std::string> names() const;
  // The categories that have ops here, in CategoryDef order, and the tags ops carry.
  std::vector<Category> categories() const;
  std::vector<std::string> tags() const;

 private:
  std::vector<OpDef> ops_;
};

// Every op of every category (bench/ registers them).
const Registry& global_registry();

// What a --category word selects: "all", a category's name or alias, or a tag (the ops carrying it).
struct CategorySelection {
  std::vector<Category> categories;  // every op of these
  std::string tag;                   // or, when set, the ops with this tag
};
std::optional<CategorySelection> parse_category(const Registry& reg, const std::string& s);
// Every word parse_category accepts, for help and error messages.
std::vector<std::string> category_words(const Registry& reg);

struct Problem {
  const OpDef* op = nullptr;
  Shape shape;
  SizeClass size_class = SizeClass::custom;
  DType dtype = DType::f32;
  std::optional<SweepPoint> sweep;  // a --sweep problem: its grid point
  std::string id() const;  // "element/add/fp32/4096x4096" (= ProblemResult::id())
};

struct ProblemFilter {
  std::vector<CategorySelection> categories;   // empty: all
  std::vector<std::string> ops;               // empty: all
  std::vector<SizeClass> sizes;               // empty: all named classes
  std::vector<Shape> custom_shapes;           // non-empty: run these instead of the size classes
  std::vector<DType> dtypes;                  // empty: fp32, fp16, bf16
  bool fast = false;                          // the first two shapes of each class
  // --sweep: [batch * seq, dim] rows over this grid instead of the size classes and --shape; the ops
  // tagged kSweepTag unless --op or --category names others. With fast: the grid's corners (the first
  // and last value of each axis).
  std::optional<SweepGrid> sweep;
  // Model ops (OpDef::model): the (batch, seq) points they run on (--batch, --seq; with fast the corner:
  // smallest batch with the smallest and largest seq, largest batch with the largest seq), and which model
  // (--model; empty: every known model). --shape BxS replaces the grid.
  ModelGrid model_grid;
  std::string model;
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
