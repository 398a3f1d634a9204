// Shard assignment: every problem in exactly one shard, balanced by cost, the same assignment whatever
// the order of the input; the cost model and --balance-from; and the shards bench_ops actually takes
// from a launcher's environment for the real problem list.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "src/cli/options.hpp"
#include "src/dist/role.hpp"
#include "src/dist/shard.hpp"

using namespace opbench;
using namespace opbench::dist;

namespace {

std::vector<CostItem> random_items(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> cost(0.0, 1.5);  // a few large problems among many small ones
  std::vector<CostItem> items;
  for (int i = 0; i < n; ++i) items.push_back({"problem/" + std::to_string(i), cost(rng)});
  return items;
}

std::vector<double> loads(const std::vector<CostItem>& items, const std::vector<int>& of, int shards) {
  std::vector<double> load(std::size_t(shards), 0.0);
  for (std::size_t i = 0; i < items.size(); ++i) load[std::size_t(of[i])] += items[i].cost;
  return load;
}

}  // namespace

TEST(Shard, ParsesIndexOfCount) {
  EXPECT_EQ(parse_shard("0/1"), (ShardSpec{0, 1}));
  EXPECT_EQ(parse_shard("3/4"), (ShardSpec{3, 4}));
  for (const char* bad : {"4/4", "1/0", "-1/2", "1", "a/2", "1/2/3", "", "/", "1/", " 1/2"})
    EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(Shard, ParsesDeviceLists) {
  EXPECT_TRUE(parse_device_list("all")->all);
  EXPECT_EQ(parse_device_list("0,1,3")->ids, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(parse_device_list("2")->ids, (std::vector<int>{2}));
  for (const char* bad : {"", ",", "0,", ",1", "a", "0;1", "-1", "ALL"}) EXPECT_FALSE(parse_device_list(bad)) << bad;
}

TEST(Shard, EveryItemExactlyOnceAndBalanced) {
  for (int shards : {1, 2, 3, 8, 13}) {
    const auto items = random_items(150, unsigned(shards));
    const std::vector<int> of = assign_shards(items, shards);
    ASSERT_EQ(of.size(), items.size());
    for (int s : of) ASSERT_TRUE(s >= 0 && s < shards);
    // Greedy to the least loaded shard: no shard exceeds another by more than the largest item.
    const auto load = loads(items, of, shards);
    double largest = 0;
    for (const auto& it : items) largest = std::max(largest, it.cost);
    EXPECT_LE(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()),
              largest + 1e-12)
        << shards << " shards";
  }
}

TEST(Shard, BalancesBetterThanRoundRobin) {
  // Sorted by id, costs rising: round robin would give the last shard the most.
  std::vector<CostItem> items;
  for (int i = 0; i < 40; ++i) items.push_back({fmt::format("p{:02}", i), double(i * i)});
  const auto of = assign_shards(items, 4);
  const auto load = loads(items, of, 4);
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  for (double l : load) EXPECT_NEAR(l, total / 4, 0.02 * total);
}

TEST(Shard, DeterministicWhateverTheInputOrder) {
  auto items = random_items(97, 7);
  const auto of = assign_shards(items, 5);
  std::map<std::string, int> by_id;
  for (std::size_t i = 0; i < items.size(); ++i) by_id[items[i].id] = of[i];
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(items.begin(), items.end(), rng);
    const auto again = assign_shards(items, 5);
    for (std::size_t i = 0; i < items.size(); ++i) EXPECT_EQ(again[i], by_id[items[i].id]) << items[i].id;
  }
}

TEST(Shard, TiesGoToTheLowestShardAndThenByName) {
  // Equal costs: sorted by id, each to the least loaded shard, ties to the lowest index.
  const std::vector<CostItem> items = {{"c", 1}, {"a", 1}, {"b", 1}, {"d", 1}};
  EXPECT_EQ(assign_shards(items, 2), (std::vector<int>{0, 0, 1, 1}));  // a->0, b->1, c->0, d->1
  // More shards than items: the first shards get one each, the rest none.
  EXPECT_EQ(assign_shards({{"x", 5}, {"y", 3}}, 4), (std::vector<int>{0, 1}));
  EXPECT_EQ(assign_shards({{"x", 5}, {"y", 3}}, 1), (std::vector<int>{0, 0}));
}

TEST(Shard, EstimateGrowsWithBytesAndFlops) {
  const double small = estimate_problem_ms(1 << 20, 0, DType::f32);
  const double big = estimate_problem_ms(1ull << 32, 0, DType::f32);
  EXPECT_GT(big, small);
  EXPECT_GT(small, 0);  // the per-problem overhead: never free
  const double gemm32 = estimate_problem_ms(1e8, 2.0 * 8192 * 8192 * 8192, DType::f32);
  const double gemm16 = estimate_problem_ms(5e7, 2.0 * 8192 * 8192 * 8192, DType::bf16);
  EXPECT_GT(gemm32, gemm16);  // tensor cores for 16-bit
}

TEST(Shard, MeasuredCostsFromAReport) {
  RunResults prev;
  ProblemResult a;
  a.op = "add", a.shape = {4, 4}, a.wall_ms = 120;
  ProblemResult b;  // no wall time (an older report): the sampling time of its implementations
  b.op = "mul", b.shape = {4, 4};
  ImplResult r;
  r.pure = TimeStats{};
  r.pure->median_ms = 2, r.pure->samples = 10, r.pure->outliers = 2;
  b.impls = {r, r};
  prev.problems = {a, b};
  const auto m = measured_costs(prev);
  EXPECT_DOUBLE_EQ(m.at(a.id()), 120);
  EXPECT_DOUBLE_EQ(m.at(b.id()), 2 * 2 * 12.0);
}

TEST(Shard, BlendScalesEstimatesToTheMeasuredTimeBase) {
  // Measured ones are taken as they are; the others get their estimate times the median ratio.
  const std::vector<std::string> ids = {"a", "b", "c", "d"};
  const std::vector<double> est = {10, 20, 40, 5};
  const std::map<std::string, double> measured = {{"a", 30}, {"b", 60}, {"c", 120}};
  EXPECT_EQ(blend_costs(ids, est, measured), (std::vector<double>{30, 60, 120, 15}));
  EXPECT_EQ(blend_costs(ids, est, {}), est);
}

// What bench_ops does under a launcher: every rank computes its shard from the same problem list; the
// shards of all ranks cover the selection exactly once, and each problem keeps its place in it.
TEST(Shard, RanksOfALauncherCoverTheSelectionOnce) {
  Options opt;
  opt.filter.categories.push_back(*parse_category(global_registry(), "element"));
  opt.filter.fast = true;
  const std::vector<Problem> all = select_problems(global_registry(), opt.filter);
  ASSERT_GT(all.size(), 20u);
  const int world = 3;
  std::multiset<std::string> seen;
  for (int rank = 0; rank < world; ++rank) {
    const std::map<std::string, std::string> vars = {
        {"RANK", std::to_string(rank)}, {"WORLD_SIZE", std::to_string(world)}, {"LOCAL_RANK", std::to_string(rank)}};
    EnvLookup env = [&](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
    std::vector<Problem> mine = all;
    Role role;
    ASSERT_FALSE(Role::resolve(opt, env, mine, role));
    EXPECT_EQ(role.kind(), Role::Kind::rank);
    EXPECT_FALSE(mine.empty());
    for (std::size_t i = 0; i < mine.size(); ++i) {
      seen.insert(mine[i].id());
      ProblemResult r;
      role.on_result(r, i, 1.0);
      ASSERT_GE(r.selection_index, 0);
      EXPECT_EQ(all[std::size_t(r.selection_index)].id(), mine[i].id());  // its place in the whole selection
    }
  }
  EXPECT_EQ(seen.size(), all.size());
  for (const Problem& p : all) EXPECT_EQ(seen.count(p.id()), 1u) << p.id();
}
