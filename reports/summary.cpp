#include "reports/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/metrics.hpp"

namespace opbench::reports {
namespace {

// Speedups are ratios, so they average geometrically: 2x faster and 2x slower cancel out.
struct SpeedupSet {
  double log_sum = 0, min = 0, max = 0;
  int n = 0;
  void add(double s) {
    min = n ? std::min(min, s) : s;
    max = n ? std::max(max, s) : s;
    log_sum += std::log(s);
    ++n;
  }
  std::optional<double> geomean() const { return n ? std::optional<double>(std::exp(log_sum / n)) : std::nullopt; }
  std::optional<double> lo() const { return n ? std::optional<double>(min) : std::nullopt; }
  std::optional<double> hi() const { return n ? std::optional<double>(max) : std::nullopt; }
};

struct Mean {
  double sum = 0;
  int n = 0;
  void add(std::optional<double> v) {
    if (v) sum += *v, ++n;
  }
  std::optional<double> get() const { return n ? std::optional<double>(sum / n) : std::nullopt; }
};

struct CategoryAcc {
  CategoryStats stats;
  SpeedupSet speedups;
};

struct SizeAcc {
  SizeClassStats stats;
  SpeedupSet speedups;
  Mean gpu, copy;
};

}  // namespace

Summary summarize(const RunResults& results) {
  Summary s;
  SpeedupSet all;
  // Categories in the order the run first meets them (problems come in registry order).
  std::vector<Category> cat_order;
  std::map<Category, CategoryAcc> cats;
  std::map<int, SizeAcc> sizes;
  std::vector<RankedRow> ranked;

  for (const auto& p : results.problems) {
    const Status status = problem_status(p);
    if (!cats.count(p.category)) cat_order.push_back(p.category);
    auto& cat = cats[p.category];
    cat.stats.category = p.category;
    auto& size = sizes[int(p.size_class)];
    size.stats.size_class = p.size_class;
    ++s.problems, ++cat.stats.problems, ++size.stats.problems;

    switch (status) {
      case Status::ok: ++s.correct; break;
      case Status::incorrect: ++s.incorrect, ++cat.stats.incorrect; break;
      case Status::failed: ++s.failed, ++cat.stats.failed; break;
      case Status::not_supported: ++s.not_supported, ++cat.stats.failed; break;
    }

    const ImplResult* fw = p.find(ImplKind::framework);
    if (!fw) continue;
    const Metrics m = compute_metrics(results.context, p, *fw);
    if (m.grade) ++s.grades[int(*m.grade)], ++cat.stats.grades[int(*m.grade)];
    if (status != Status::ok) continue;
    size.gpu.add(m.gpu_efficiency);
    size.copy.add(m.copy_efficiency);
    if (!m.speedup) continue;

    const double sp = *m.speedup;
    all.add(sp), cat.speedups.add(sp), size.speedups.add(sp);
    ++s.compared, ++cat.stats.compared, ++size.stats.compared;
    if (sp > 1.0) ++s.faster_than_torch;
    ranked.push_back({p.op, shape_str(p.shape), dtype_name(p.dtype), p.category, p.size_class, sp,
                      m.time_ms, p.find(ImplKind::torch)->time_ms(), *m.grade});
  }

  s.geomean_speedup = all.geomean();
  for (const Category& c : cat_order) {
    CategoryAcc& acc = cats[c];
    acc.stats.geomean = acc.speedups.geomean();
    acc.stats.min_speedup = acc.speedups.lo();
    acc.stats.max_speedup = acc.speedups.hi();
    s.categories.push_back(acc.stats);
  }
  for (auto& [key, acc] : sizes) {
    acc.stats.geomean = acc.speedups.geomean();
    acc.stats.min_speedup = acc.speedups.lo();
    acc.stats.max_speedup = acc.speedups.hi();
    acc.stats.avg_gpu_efficiency = acc.gpu.get();
    acc.stats.avg_copy_efficiency = acc.copy.get();
    s.size_classes.push_back(acc.stats);
  }

  // Stable sorts keep run order among equal speedups, so the lists do not change between identical runs.
  const std::size_t k = std::min<std::size_t>(5, ranked.size());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedRow& a, const RankedRow& b) { return a.speedup > b.speedup; });
  s.top.assign(ranked.begin(), ranked.begin() + k);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedRow& a, const RankedRow& b) { return a.speedup < b.speedup; });
  s.bottom.assign(ranked.begin(), ranked.begin() + k);

  s.recommendations = recommend(results);
  return s;
}

bool has_failures(const Summary& s) { return s.incorrect > 0 || s.failed > 0; }

}  // namespace opbench::reports
