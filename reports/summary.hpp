// What a whole run amounts to: counts, the geomean speedup over LibTorch, grades, where results stand
// under the roofs, breakdowns by category and size class, the best and worst problems, the reference
// results that failed, and recommendations, all drawn from the report rows (rows.hpp).
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "opbench/grade.hpp"
#include "opbench/result.hpp"
#include "reports/recommend.hpp"
#include "reports/rows.hpp"

namespace opbench::reports {

// Problems per grade, indexed by Grade (excellent .. critical).
using GradeCounts = std::array<int, 5>;
// Framework results per bound, indexed by Bound (memory, compute, launch).
using BoundCounts = std::array<int, 3>;

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
  int problems = 0, compared = 0, incorrect = 0, failed = 0;  // the framework's; failed includes not_supported
  std::optional<double> geomean, min_speedup, max_speedup;    // over the compared problems
  std::optional<double> median_pct_of_roof;                   // the framework's correct, timed rows
  GradeCounts grades{};
  BoundCounts bounds{};
};

struct SizeClassStats {
  SizeClass size_class = SizeClass::custom;
  int problems = 0, compared = 0;
  // Means over the framework's correct, timed rows with a byte count.
  std::optional<double> avg_gpu_efficiency, avg_copy_efficiency;
  std::optional<double> geomean, min_speedup, max_speedup;
};

// A LibTorch or vendor result that failed or was incorrect: not the framework's fault, but a column of
// the report that cannot be trusted (and, for LibTorch, a problem without a speedup).
struct ReferenceFailure {
  std::string problem;  // problem_label: "softmax 4096x4096 fp32"
  ImplKind impl = ImplKind::torch;
  Status status = Status::failed;
  std::string detail;   // the message, or the first mismatch against the fp64 oracle
};

struct Summary {
  // The framework's verdicts, one per problem.
  int problems = 0, correct = 0, incorrect = 0, failed = 0, not_supported = 0;
  int compared = 0;           // correct, and timed with LibTorch: the rows the geomean covers
  int faster_than_torch = 0;  // compared rows with speedup > 1
  std::optional<double> geomean_speedup;
  GradeCounts grades{};       // incorrect problems count as critical; failed ones have no grade
  BoundCounts bounds{};       // the framework's correct, timed rows
  // LibTorch and vendor verdicts. not_supported is no failure (a library that refuses a dtype or shape).
  int reference_incorrect = 0, reference_failed = 0, reference_not_supported = 0;
  std::vector<ReferenceFailure> reference_failures;  // every incorrect or failed one, in run order
  std::vector<CategoryStats> categories;     // categories present, in Category order
  std::vector<SizeClassStats> size_classes;  // size classes present, in SizeClass order
  std::vector<RankedRow> top, bottom;        // 5 fastest (descending), 5 slowest (ascending)
  std::vector<Recommendation> recommendations;
};

Summary summarize(const ReportRows& rows);

// Whether the run failed: a framework result incorrect or failed, or a reference (LibTorch, vendor)
// result incorrect or failed. bench_ops exits 1 exactly when this is true, so the summary and the
// exit code always agree.
bool has_failures(const Summary& s);

// A run's report, built once: its rows and their summary. Points into `results` (see ReportRows).
struct Report {
  ReportRows rows;
  Summary summary;
  const RunContext& context() const { return rows.context(); }
};
Report build_report(const RunResults& results);

}  // namespace opbench::reports
