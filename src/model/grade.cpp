// Grades as the Genesis reports defined them: the framework's speed as a fraction of LibTorch's.
#include "opbench/grade.hpp"

namespace opbench {

Grade grade_for(double speedup, bool correct) {
  // A wrong answer fast is worth nothing, so correctness outranks any speed.
  if (!correct) return Grade::critical;
  if (speedup >= 0.90) return Grade::excellent;
  if (speedup >= 0.70) return Grade::good;
  if (speedup >= 0.50) return Grade::fair;
  if (speedup >= 0.20) return Grade::poor;
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

const char* grade_range(Grade g) {
  switch (g) {
    case Grade::excellent: return "≥90%";
    case Grade::good: return "70–90%";
    case Grade::fair: return "50–70%";
    case Grade::poor: return "20–50%";
    case Grade::critical: return "<20%";
  }
  return "?";
}

}  // namespace opbench
