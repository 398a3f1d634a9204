// Optimization recommendations drawn from a run's rows. Each one exists only because some rows meet
// its condition, and it names those rows with the figures that met it; a run that gives no reason for
// a recommendation gets none.
#pragma once
#include <string>
#include <vector>

#include "reports/rows.hpp"

namespace opbench::reports {

struct Recommendation {
  std::string title;               // what the rows have in common
  std::string detail;              // the evidence and what to try
  std::vector<std::string> items;  // the concrete rows with their figures
};

// In order of urgency: wrong results, incorrect references, failures, slower than LibTorch,
// launch-bound, low bandwidth, slow broadcasts, unreliable timings. The speed floor is goal_speedup()
// (grade.hpp) and launch-bound is the rows' bound (roofline.hpp), so they match the grades and columns.
std::vector<Recommendation> recommend(const ReportRows& rows);

// Large and very_large memory-bound rows under this share of their memory roof have headroom.
inline constexpr double kLowBandwidthRoofPct = 80.0;

}  // namespace opbench::reports
