#include "opbench/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace opbench {

OpDef& Registry::add(OpDef op) {
  if (op.name.empty()) throw std::logic_error("op without a name");
  if (op.category.name().empty()) throw std::logic_error("op '" + op.name + "' has no category");
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

namespace {
std::vector<CategoryDef>& category_table() {
  static std::vector<CategoryDef> t;
  return t;
}
const CategoryDef* category_def(const Category& c) {
  for (const CategoryDef& d : category_table())
    if (d.category == c) return &d;
  return nullptr;
}
}  // namespace

const std::vector<CategoryDef>& category_defs() { return category_table(); }

bool register_category(CategoryDef def) {
  auto& t = category_table();
  for (const CategoryDef& d : t) {
    std::vector<std::string> words = d.aliases;
    words.push_back(d.category.name());
    for (const std::string& w : words)
      if (w == def.category.name() || std::find(def.aliases.begin(), def.aliases.end(), w) != def.aliases.end())
        throw std::logic_error("category name or alias '" + w + "' registered twice");
  }
  t.push_back(std::move(def));
  std::stable_sort(t.begin(), t.end(), [](const CategoryDef& a, const CategoryDef& b) { return a.order < b.order; });
  return true;
}

std::vector<Category> Registry::categories() const {
  std::vector<Category> v;
  for (const CategoryDef& d : category_defs())
    if (std::any_of(ops_.begin(), ops_.end(), [&](const OpDef& op) { return op.category == d.category; }))
      v.push_back(d.category);
  for (const OpDef& op : ops_)  // ops of a category nobody declared still list (after the declared ones)
    if (std::find(v.begin(), v.end(), op.category) == v.end()) v.push_back(op.category);
  return v;
}

std::vector<std::string> Registry::tags() const {
  std::vector<std::string> v;
  for (const OpDef& op : ops_)
    for (const std::string& t : op.tags)
      if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  return v;
}

std::optional<CategorySelection> parse_category(const Registry& reg, const std::string& s) {
  const std::vector<Category> cats = reg.categories();
  if (s == "all") {
    std::vector<Category> in_all;
    for (const Category& c : cats)
      if (const CategoryDef* d = category_def(c); !d || d->in_all) in_all.push_back(c);
    return CategorySelection{in_all, ""};
  }
  for (const Category& c : cats) {
    if (s == c.name()) return CategorySelection{{c}, ""};
    if (const CategoryDef* d = category_def(c))
      if (std::find(d->aliases.begin(), d->aliases.end(), s) != d->aliases.end()) return CategorySelection{{c}, ""};
  }
  for (const std::string& t : reg.tags())
    if (s == t) return CategorySelection{{}, t};
  return std::nullopt;
}

std::vector<std::string> category_words(const Registry& reg) {
  std::vector<std::string> v = {"all"};
  for (const Category& c : reg.categories()) v.push_back(c.name());
  for (const Category& c : reg.categories())
    if (const CategoryDef* d = category_def(c)) v.insert(v.end(), d->aliases.begin(), d->aliases.end());
  for (const std::string& t : reg.tags()) v.push_back(t);
  return v;
}

std::string Problem::id() const {
  return std::string(category_name(op->category)) + "/" + op->name + "/" + dtype_name(dtype) + "/" +
         shape_str(shape) + sweep_id_suffix(sweep);
}

static bool selected_by_category(const OpDef& op, const std::vector<CategorySelection>& sel) {
  if (sel.empty()) return true;
  for (const CategorySelection& c : sel) {
    if (!c.tag.empty() && std::find(op.tags.begin(), op.tags.end(), c.tag) != op.tags.end()) return true;
    if (std::find(c.categories.begin(), c.categories.end(), op.category) != c.categories.end()) return true;
  }
  return false;
}

// The grid's values on one axis: all of them, or with --fast its corners (first and last).
static std::vector<int64_t> axis(const std::vector<int64_t>& v, bool fast) {
  if (!fast || v.size() <= 2) return v;
  return {v.front(), v.back()};
}

// --sweep: every selected op (by default the ones tagged kSweepTag) on [batch * seq, dim] rows, or
// [batch * seq, vocab] for ops over logits, for every point of the grid, in the order op, dtype, batch,
// seq, dim.
static std::vector<Problem> sweep_problems(const Registry& reg, const ProblemFilter& f, const std::vector<DType>& dtypes) {
  const SweepGrid& g = *f.sweep;
  std::vector<Problem> out;
  for (const OpDef& op : reg.ops()) {
    if (!f.ops.empty()) {
      if (std::find(f.ops.begin(), f.ops.end(), op.name) == f.ops.end()) continue;
    } else if (!f.categories.empty()) {
      if (!selected_by_category(op, f.categories)) continue;
    } else if (std::find(op.tags.begin(), op.tags.end(), kSweepTag) == op.tags.end()) {
      continue;
    }
    const std::vector<int64_t> dims = op.rows_over_vocab ? std::vector<int64_t>{g.vocab} : axis(g.dim, f.fast);
    for (DType dt : dtypes) {
      if (std::find(op.dtypes.begin(), op.dtypes.end(), dt) == op.dtypes.end()) continue;
      for (int64_t b : axis(g.batch, f.fast))
        for (int64_t s : axis(g.seq, f.fast))
          for (int64_t d : dims) out.push_back({&op, Shape{b * s, d}, SizeClass::custom, dt, SweepPoint{b, s, d}});
    }
  }
  return out;
}

// The {batch, seq} points of a model grid, batch-major; with fast the corner: (smallest batch, smallest
// seq), (smallest batch, largest seq), (largest batch, largest seq).
static std::vector<Shape> model_grid_shapes(const ModelGrid& g, bool fast) {
  std::vector<Shape> v;
  if (g.batch.empty() || g.seq.empty()) return v;
  if (fast) {
    const int64_t b0 = *std::min_element(g.batch.begin(), g.batch.end());
    const int64_t b1 = *std::max_element(g.batch.begin(), g.batch.end());
    const int64_t s0 = *std::min_element(g.seq.begin(), g.seq.end());
    const int64_t s1 = *std::max_element(g.seq.begin(), g.seq.end());
    for (const Shape& s : {Shape{b0, s0}, Shape{b0, s1}, Shape{b1, s1}})
      if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
    return v;
  }
  for (int64_t b : g.batch)
    for (int64_t s : g.seq) v.push_back({b, s});
  return v;
}

std::vector<Problem> select_problems(const Registry& reg, const ProblemFilter& f) {
  for (const std::string& name : f.ops)
    if (!reg.find(name)) throw std::invalid_argument("unknown op '" + name + "'");

  const std::vector<DType> dtypes =
      f.dtypes.empty() ? std::vector<DType>{DType::f32, DType::f16, DType::bf16} : f.dtypes;
  const std::vector<SizeClass> sizes = f.sizes.empty() ? all_size_classes() : f.sizes;

  if (f.sweep) return sweep_problems(reg, f, dtypes);

  std::vector<Problem> out;
  for (const OpDef& op : reg.ops()) {
    const bool named = std::find(f.ops.begin(), f.ops.end(), op.name) != f.ops.end();
    if (!f.ops.empty() && !named) continue;
    if (f.categories.empty()) {
      // No --category: every op of the categories "all" holds, or the ops --op names.
      const CategoryDef* d = category_def(op.category);
      if (!named && d && !d->in_all) continue;
    } else if (!selected_by_category(op, f.categories)) {
      continue;
    }
    if (!op.model.empty() && !f.model.empty() && op.model != f.model) continue;
    for (DType dt : dtypes) {
      if (std::find(op.dtypes.begin(), op.dtypes.end(), dt) == op.dtypes.end()) continue;
      if (!op.model.empty() && f.custom_shapes.empty()) {
        for (const Shape& s : model_grid_shapes(f.model_grid, f.fast)) out.push_back({&op, s, SizeClass::custom, dt});
        continue;
      }
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
