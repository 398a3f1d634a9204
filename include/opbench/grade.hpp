// The grades users know from the Genesis reports, from the framework's speed relative to LibTorch.
#pragma once
#include <string>

namespace opbench {

enum class Grade { excellent, good, fair, poor, critical };

// speedup = LibTorch time / framework time. An incorrect result is always critical.
Grade grade_for(double speedup, bool correct = true);
const char* grade_symbol(Grade g);  // 🟢 🟡 🟠 🔴 ❌
const char* grade_name(Grade g);    // excellent, good, fair, poor, critical
const char* grade_range(Grade g);   // "≥90%", "70–90%", ...

}  // namespace opbench
