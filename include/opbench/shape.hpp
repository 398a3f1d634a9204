// Shapes are plain dimension lists, written "4096x1024" on the command line and in reports.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opbench {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s);
std::string shape_str(const Shape& s);          // {4096, 1024} -> "4096x1024"
std::optional<Shape> parse_shape(const std::string& text);  // "1023x1025" -> {1023, 1025}; nullopt if malformed

// Collapse a shape to [rows, cols] with cols = last dimension (rows = 1 for a 1-D shape).
struct Rows { int64_t rows; int64_t cols; };
Rows as_rows(const Shape& s);

}  // namespace opbench
