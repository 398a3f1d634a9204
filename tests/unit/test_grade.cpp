// Grades: the Genesis thresholds on speedup = LibTorch time / framework time, and correctness first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "opbench/grade.hpp"

using opbench::Grade;
using opbench::grade_for;

TEST(Grade, Bands) {
  EXPECT_EQ(grade_for(3.0), Grade::excellent);
  EXPECT_EQ(grade_for(1.0), Grade::excellent);
  EXPECT_EQ(grade_for(0.8), Grade::good);
  EXPECT_EQ(grade_for(0.6), Grade::fair);
  EXPECT_EQ(grade_for(0.3), Grade::poor);
  EXPECT_EQ(grade_for(0.1), Grade::critical);
  EXPECT_EQ(grade_for(0.0), Grade::critical);
}

TEST(Grade, BoundariesBelongToTheHigherGrade) {
  EXPECT_EQ(grade_for(0.90), Grade::excellent);
  EXPECT_EQ(grade_for(std::nextafter(0.90, 0.0)), Grade::good);
  EXPECT_EQ(grade_for(0.70), Grade::good);
  EXPECT_EQ(grade_for(std::nextafter(0.70, 0.0)), Grade::fair);
  EXPECT_EQ(grade_for(0.50), Grade::fair);
  EXPECT_EQ(grade_for(std::nextafter(0.50, 0.0)), Grade::poor);
  EXPECT_EQ(grade_for(0.20), Grade::poor);
  EXPECT_EQ(grade_for(std::nextafter(0.20, 0.0)), Grade::critical);
}

TEST(Grade, OneTableOfThresholds) {
  // grade_for, the legends (grade_range) and the goal all read grade_floor.
  for (Grade g : opbench::kAllGrades) {
    EXPECT_EQ(grade_for(opbench::grade_floor(g)), g) << opbench::grade_name(g);
    if (g != Grade::critical) EXPECT_NE(grade_for(std::nextafter(opbench::grade_floor(g), 0.0)), g);
  }
  EXPECT_EQ(opbench::goal_speedup(), opbench::grade_floor(Grade::excellent));
  EXPECT_EQ(opbench::goal_speedup(), 0.90);
}

TEST(Grade, IncorrectIsAlwaysCritical) {
  for (double s : {0.0, 0.5, 0.95, 1.0, 10.0}) EXPECT_EQ(grade_for(s, false), Grade::critical) << s;
}

TEST(Grade, NaNIsCritical) { EXPECT_EQ(grade_for(std::numeric_limits<double>::quiet_NaN()), Grade::critical); }

TEST(Grade, SymbolsNamesRanges) {
  EXPECT_EQ(std::string(opbench::grade_symbol(Grade::excellent)), "🟢");
  EXPECT_EQ(std::string(opbench::grade_symbol(Grade::good)), "🟡");
  EXPECT_EQ(std::string(opbench::grade_symbol(Grade::fair)), "🟠");
  EXPECT_EQ(std::string(opbench::grade_symbol(Grade::poor)), "🔴");
  EXPECT_EQ(std::string(opbench::grade_symbol(Grade::critical)), "❌");
  EXPECT_EQ(std::string(opbench::grade_name(Grade::excellent)), "excellent");
  EXPECT_EQ(std::string(opbench::grade_name(Grade::critical)), "critical");
  EXPECT_EQ(std::string(opbench::grade_range(Grade::excellent)), "≥90%");
  EXPECT_EQ(std::string(opbench::grade_range(Grade::good)), "70–90%");
  EXPECT_EQ(std::string(opbench::grade_range(Grade::fair)), "50–70%");
  EXPECT_EQ(std::string(opbench::grade_range(Grade::poor)), "20–50%");
  EXPECT_EQ(std::string(opbench::grade_range(Grade::critical)), "<20%");
}
