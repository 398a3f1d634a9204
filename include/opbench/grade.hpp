// The grades users know from the Genesis reports, from the framework's speed relative to LibTorch.
// grade_floor() is the one table of thresholds: grade_for, the legends, the recommendations and the
// charts (through the JSON report) all read it.
#pragma once
#include <array>
#include <string>

namespace opbench {

enum class Grade { excellent, good, fair, poor, critical };

// Every grade, best first (the order of the legends and of GradeCounts).
inline constexpr std::array<Grade, 5> kAllGrades = {Grade::excellent, Grade::good, Grade::fair, Grade::poor,
                                                    Grade::critical};

// The lowest speedup (LibTorch time / framework time) that earns `g`: 0.9, 0.7, 0.5, 0.2, 0.
double grade_floor(Grade g);
// The project's goal: the floor of excellent (the framework at >= 90% of LibTorch's speed).
inline double goal_speedup() { return grade_floor(Grade::excellent); }

// speedup = LibTorch time / framework time. An incorrect result is always critical.
Grade grade_for(double speedup, bool correct = true);
const char* grade_symbol(Grade g);  // 🟢 🟡 🟠 🔴 ❌
const char* grade_name(Grade g);    // excellent, good, fair, poor, critical
std::string grade_range(Grade g);   // "≥90%", "70–90%", ..., "<20%": from grade_floor

}  // namespace opbench
