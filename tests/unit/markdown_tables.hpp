// Shared by the Markdown tests: every table row has as many unescaped '|' as its header ("sum | rows" must
// not add a column).
#pragma once
#include <gtest/gtest.h>

#include <cstddef>
#include <sstream>
#include <string>

namespace opbench::testing_md {

inline void expect_tables_valid(const std::string& md) {
  std::istringstream lines(md);
  std::string line;
  int expected = -1;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') {
      expected = -1;
      continue;
    }
    int bars = 0;
    for (std::size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (expected < 0) expected = bars;
    EXPECT_EQ(bars, expected) << line;
  }
}

}  // namespace opbench::testing_md
