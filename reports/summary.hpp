// What a whole run amounts to: counts, the geomean speedup over LibTorch, grades, breakdowns by category
// and size class, the best and worst problems, and recommendations drawn from the rows themselves.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "opbench/grade.hpp"
#include "opbench/result.hpp"
#include "reports/recommend.hpp"

namespace opbench::reports {

// Problems per grade, indexed by Grade (excellent .. critical).
using GradeCounts = std::array<int, 5>;

// One problem the framework computed correctly and that both it and LibTorch timed.
struct RankedRow {
  std::string op, shape, dtype;
  Category category;
  SizeClass size_class = SizeClass::custom;
  double speedup = 0, framework_ms = 0, torch_ms = 0;
  Grade grade = Grade::critical;
};

struct CategoryStats {
  Category category;
  int problems = 0, compared = 0, incorrect = 0, failed = 0;  // failed includes not_supported
  std::optional<double> geomean, min_speedup, max_speedup;    // over the compared problems
  GradeCounts grades{};
};

struct SizeClassStats {
  SizeClass size_class = SizeClass::custom;
  int problems = 0, compared = 0;
  // Means over the framework's correct, timed rows with a byte count.
  std::optional<double> avg_gpu_efficiency, avg_copy_efficiency;
  std::optional<double> geomean, min_speedup, max_speedup;
};

struct Summary {
  int problems = 0, correct = 0, incorrect = 0, failed = 0, not_supported = 0;
  int compared = 0;           // correct, and timed with LibTorch: the rows the geomean covers
  int faster_than_torch = 0;  // compared rows with speedup > 1
  std::optional<double> geomean_speedup;
  GradeCounts grades{};       // incorrect problems count as critical; failed ones have no grade
  std::vector<CategoryStats> categories;   // categories present, in Category order
  std::vector<SizeClassStats> size_classes;  // size classes present, in SizeClass order
  std::vector<RankedRow> top, bottom;       // 5 fastest (descending), 5 slowest (ascending)
  std::vector<Recommendation> recommendations;  // recommend(results)
};

Summary summarize(const RunResults& results);
// True when the run has a failure the exit code reports (kExitFailures): an incorrect or failed result.
bool has_failures(const Summary& s);

}  // namespace opbench::reports
