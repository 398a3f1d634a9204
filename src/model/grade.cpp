// Grades as the Genesis reports defined them: the framework's speed as a fraction of LibTorch's.
#include "opbench/grade.hpp"

#include <cmath>

namespace opbench {

double grade_floor(Grade g) {
  switch (g) {
    case Grade::excellent: return 0.90;
    case Grade::good: return 0.70;
    case Grade::fair: return 0.50;
    case Grade::poor: return 0.20;
    case Grade::critical: return 0.0;
  }
  return 0.0;
}

Grade grade_for(double speedup, bool correct) {
  // A wrong answer fast is worth nothing, so correctness outranks any speed.
  if (!correct) return Grade::critical;
  for (Grade g : kAllGrades)
    if (g != Grade::critical && speedup >= grade_floor(g)) return g;
  return Grade::critical;  // also NaN: no comparison above holds for it
}

const char* grade_symbol(Grade g) {
  switch (g) {
    case Grade::excellent: return "🟢";
    case Grade::good: return "🟡";
    case Grade::fair: return "🟠";
    case Grade::poor: return "🔴";
    case Grade::critical: return "❌";
  }
  return "?";
}

const char* grade_name(Grade g) {
  switch (g) {
    case Grade::excellent: return "excellent";
    case Grade::good: return "good";
    case Grade::fair: return "fair";
    case Grade::poor: return "poor";
    case Grade::critical: return "critical";
  }
  return "?";
}

std::string grade_range(Grade g) {
  auto pct = [](double f) { return std::to_string(int(std::lround(f * 100))) + "%"; };
  const int i = int(g);
  if (g == Grade::excellent) return "≥" + pct(grade_floor(g));
  if (g == Grade::critical) return "<" + pct(grade_floor(kAllGrades[i - 1]));
  return std::to_string(int(std::lround(grade_floor(g) * 100))) + "–" + pct(grade_floor(kAllGrades[i - 1]));
}

}  // namespace opbench
