// Optimization recommendations drawn from a run's rows. Each one exists only because some rows meet
// its condition, and it names those rows with the figures that met it; a run that gives no reason for
// a recommendation gets none.
#pragma once
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::reports {

struct Recommendation {
  std::string title;               // what the rows have in common
  std::string detail;              // the evidence and what to try
  std::vector<std::string> items;  // the concrete rows with their figures
};

// In order of urgency: wrong results, failures, slower than LibTorch, launch-bound, low bandwidth,
// slow broadcasts, unreliable timings.
std::vector<Recommendation> recommend(const RunResults& results);

// The thresholds (exposed so that reports and tests name the same numbers).
inline constexpr double kLaunchBoundMs = 0.010;       // under 10 µs a launch is a large share
inline constexpr double kLaunchBoundCopyPct = 20.0;
inline constexpr double kLowBandwidthCopyPct = 80.0;  // large/very_large memory-bound rows
inline constexpr double kSlowSpeedup = 0.90;          // the project's goal: >= 0.9x LibTorch

}  // namespace opbench::reports
