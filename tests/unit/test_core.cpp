// Shapes, size classes, registry filtering, statistics and the element ops' byte/FLOP accounting.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>

#include "opbench/registry.hpp"
#include "src/model/stats.hpp"

using namespace opbench;

TEST(Shape, ParsesAndPrints) {
  EXPECT_EQ(parse_shape("1023x1025"), (Shape{1023, 1025}));
  EXPECT_EQ(parse_shape("8,1024,32,128"), (Shape{8, 1024, 32, 128}));
  EXPECT_EQ(parse_shape("7"), (Shape{7}));
  EXPECT_EQ(shape_str({4096, 1024}), "4096x1024");
  for (const char* bad : {"", "x", "12x", "0x5", "-3", "3xx4", "a", "1x2x3x4x5x6x7x8x9"})
    EXPECT_FALSE(parse_shape(bad).has_value()) << bad;
}

TEST(Shape, AsRowsFoldsLeadingDims) {
  EXPECT_EQ(as_rows({32, 128, 768}).rows, 32 * 128);
  EXPECT_EQ(as_rows({32, 128, 768}).cols, 768);
  EXPECT_EQ(as_rows({5}).rows, 1);
  EXPECT_EQ(numel({16, 1024, 1024}), 16 * 1024 * 1024);
}

TEST(SizeClass, GenesisClasses) {
  EXPECT_EQ(size_class_shapes(SizeClass::small).size(), 5u);
  EXPECT_EQ(size_class_shapes(SizeClass::very_large).front(), (Shape{8192, 8192}));
  EXPECT_EQ(size_class_shapes(SizeClass::batch).back(), (Shape{16, 1024, 1024}));
  EXPECT_EQ(parse_size_class("very_large"), SizeClass::very_large);
  EXPECT_FALSE(parse_size_class("huge").has_value());
}

TEST(Stats, MedianAndOutlierFilter) {
  TimeStats s = compute_stats({1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 50.0}, true);
  EXPECT_EQ(s.outliers, 1);
  EXPECT_EQ(s.samples, 6);
  EXPECT_NEAR(s.median_ms, 1.0, 1e-12);
  EXPECT_LT(s.max_ms, 2.0);
  EXPECT_TRUE(s.reliable);

  TimeStats u = compute_stats({1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 50.0}, false);
  EXPECT_EQ(u.outliers, 0);
  EXPECT_EQ(u.max_ms, 50.0);
  EXPECT_FALSE(u.reliable);  // cv far above 10%

  EXPECT_NEAR(geomean({1.0, 4.0}), 2.0, 1e-12);
  EXPECT_EQ(geomean({}), 0.0);
}

TEST(Registry, CategoryAliases) {
  const Registry& reg = global_registry();
  EXPECT_EQ(parse_category(reg, "matrix")->categories, std::vector<Category>{Category{"matmul"}});
  EXPECT_EQ(parse_category(reg, "memory")->categories, std::vector<Category>{Category{"layout"}});
  EXPECT_EQ(parse_category(reg, "broadcast")->tag, "broadcast");
  EXPECT_TRUE(parse_category(reg, "broadcast")->categories.empty());
  EXPECT_EQ(parse_category(reg, "decoder")->categories, std::vector<Category>{Category{"transformer"}});
  EXPECT_EQ(parse_category(reg, "sweep")->tag, "sweep");
  // "all" is every category but the model benchmark (CategoryDef::in_all), which runs only when asked.
  EXPECT_EQ(parse_category(reg, "all")->categories.size(), 8u);
  EXPECT_EQ(parse_category(reg, "model")->categories, std::vector<Category>{Category{"model"}});
  EXPECT_FALSE(parse_category(reg, "nope").has_value());
}

TEST(Registry, CategoriesComeFromRegistration) {
  // The list is what bench/ registered, in CategoryDef order; no other list exists.
  const std::vector<Category> cats = global_registry().categories();
  std::vector<std::string> names;
  for (const Category& c : cats) names.push_back(c.name());
  EXPECT_EQ(names, (std::vector<std::string>{"element", "activation", "reduction", "norm", "loss", "matmul", "layout",
                                             "transformer", "model"}));
  const std::vector<std::string> words = category_words(global_registry());
  for (const char* w : {"all", "matrix", "shape", "tensor", "memory", "normalization", "activations", "broadcast",
                        "decoder", "sweep"})
    EXPECT_NE(std::find(words.begin(), words.end(), w), words.end()) << w;
}

TEST(Registry, ANewCategoryIsOneRegistration) {
  // What a newcomer's bench/<category>.cpp does, here at run time: the registry, the CLI words and the
  // selection pick it up with no other edit.
  static const OpDef add = *global_registry().find("add");  // built before zz_test exists
  static bool added = register_category(CategoryDef{Category{"zz_test"}, 1000, "a test category", {"zz_alias"},
                                                    [](Registry& r) {
                                                      OpDef op = add;
                                                      op.name = "zz_add";
                                                      op.category = Category{"zz_test"};
                                                      r.add(op);
                                                    }});
  ASSERT_TRUE(added);
  Registry r;
  for (const CategoryDef& c : category_defs())
    if (c.category.name() == "zz_test") c.register_ops(r);
  ASSERT_EQ(r.categories().size(), 1u);
  EXPECT_EQ(parse_category(r, "zz_alias")->categories, std::vector<Category>{Category{"zz_test"}});
  ProblemFilter f;
  f.categories = {*parse_category(r, "zz_test")};
  f.dtypes = {DType::f32};
  f.fast = true;
  EXPECT_FALSE(select_problems(r, f).empty());
  EXPECT_THROW(register_category(CategoryDef{Category{"zz_alias"}, 0, "", {}, {}}), std::logic_error);
}

TEST(Registry, ElementOpsAreRegistered) {
  const Registry& reg = global_registry();
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "pow", "add_scalar", "mul_scalar", "pow_scalar",
                           "add_bcast_row", "add_bcast_col", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos"}) {
    const OpDef* op = reg.find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->category, Category{"element"}) << name;
    ASSERT_NE(op->impl(ImplKind::torch), nullptr) << name;
    EXPECT_TRUE(op->impl(ImplKind::torch)->prepare) << name << ": " << op->impl(ImplKind::torch)->missing;
  }
  EXPECT_NE(reg.find("add")->impl(ImplKind::cudnn), nullptr);
  EXPECT_EQ(reg.find("sub")->impl(ImplKind::cudnn), nullptr);
}

TEST(Registry, EveryOpHasAReference) {
  for (const OpDef& op : global_registry().ops()) {
    const Impl* t = op.impl(ImplKind::torch);
    ASSERT_NE(t, nullptr) << op.name;
    EXPECT_TRUE(t->prepare) << op.name << ": " << t->missing;
  }
}

TEST(Registry, SelectFiltersAndFast) {
  const Registry& reg = global_registry();
  ProblemFilter f;
  f.ops = {"add"};
  f.dtypes = {DType::bf16};
  f.sizes = {SizeClass::small, SizeClass::large};
  auto all = select_problems(reg, f);
  EXPECT_EQ(all.size(), 10u);
  f.fast = true;
  auto fast = select_problems(reg, f);
  ASSERT_EQ(fast.size(), 4u);
  EXPECT_EQ(fast[0].shape, (Shape{256, 256}));
  EXPECT_EQ(fast[2].size_class, SizeClass::large);
  EXPECT_EQ(fast[0].id(), "element/add/bf16/256x256");

  f = {};
  f.custom_shapes = {{1023, 1025}};
  f.categories = {*parse_category(reg, "broadcast")};
  auto bc = select_problems(reg, f);
  ASSERT_EQ(bc.size(), 6u);  // two broadcast ops x three dtypes
  for (const Problem& p : bc) {
    EXPECT_EQ(p.op->name.rfind("add_bcast", 0), 0u);
    EXPECT_EQ(p.size_class, SizeClass::custom);
  }

  f = {};
  f.ops = {"no_such_op"};
  EXPECT_THROW(select_problems(reg, f), std::invalid_argument);
}

TEST(Accounting, ElementBytesAndFlops) {
  const Registry& reg = global_registry();
  const Shape s{4096, 1024};
  const double n = 4096.0 * 1024;
  EXPECT_EQ(reg.find("add")->bytes(s, DType::f32), 3 * n * 4);
  EXPECT_EQ(reg.find("add")->bytes(s, DType::bf16), 3 * n * 2);
  EXPECT_EQ(reg.find("exp")->bytes(s, DType::f16), 2 * n * 2);
  EXPECT_EQ(reg.find("add_bcast_row")->bytes(s, DType::f32), (2 * n + 1024) * 4);
  EXPECT_EQ(reg.find("add_bcast_col")->bytes(s, DType::bf16), (2 * n + 4096) * 2);
  EXPECT_EQ(reg.find("mul")->flops(s, DType::f32), n);
  OpIO io = reg.find("add_bcast_col")->io(s, DType::f32);
  EXPECT_EQ(io.inputs[1].shape, (Shape{4096, 1}));
  io = reg.find("add_bcast_row")->io({32, 128, 768}, DType::f32);
  EXPECT_EQ(io.inputs[1].shape, (Shape{768}));
  // Inputs are never all zeros: every init range is non-degenerate.
  for (const OpDef& op : reg.ops()) {
    if (op.category != Category{"element"} && op.category != Category{"activation"}) continue;
    for (const TensorSpec& t : op.io(s, DType::f32).inputs) EXPECT_LT(t.init.lo, t.init.hi) << op.name;
  }
}

TEST(Registry, ShapesAnOpCannotReadAreRejectedWithItsReason) {
  const Registry& reg = global_registry();
  ProblemFilter f;
  f.ops = {"add", "permute_0213", "matmul"};
  f.dtypes = {DType::f32};
  f.custom_shapes = {{7}};
  std::vector<Problem> problems = select_problems(reg, f);
  ASSERT_EQ(problems.size(), 3u);
  const std::vector<Rejected> rejected = reject_unreadable_shapes(problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].op->name, "add");
  ASSERT_EQ(rejected.size(), 2u);
  for (const Rejected& r : rejected) EXPECT_FALSE(r.reason.empty()) << r.problem.id();
}

TEST(Registry, GatherCountsEachDistinctRowOnce) {
  // 1000 random indices into 1000 rows: about 632 distinct rows are read, 1000 written.
  const OpDef* g = global_registry().find("gather");
  ASSERT_NE(g, nullptr);
  const double distinct = 1000.0 * (1.0 - std::pow(0.999, 1000.0));
  EXPECT_NEAR(distinct, 632.3, 0.1);
  EXPECT_DOUBLE_EQ(g->bytes({1000, 64}, DType::f32), (distinct + 1000.0) * 64 * 4 + 8.0 * 1000);
}
