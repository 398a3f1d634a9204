#include "opbench/shape.hpp"

#include <cctype>

namespace opbench {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(s[i]);
  }
  return out;
}

std::optional<Shape> parse_shape(const std::string& text) {
  Shape shape;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    int64_t v = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      v = v * 10 + (text[i] - '0');
      if (v > (int64_t(1) << 40)) return std::nullopt;
      ++i;
    }
    if (v <= 0) return std::nullopt;
    shape.push_back(v);
    if (i < text.size()) {
      if (text[i] != 'x' && text[i] != 'X' && text[i] != ',') return std::nullopt;
      if (++i == text.size()) return std::nullopt;  // trailing separator
    }
  }
  if (shape.empty() || shape.size() > 8) return std::nullopt;
  return shape;
}

Rows as_rows(const Shape& s) {
  if (s.empty()) return {1, 1};
  return {numel(s) / s.back(), s.back()};
}

}  // namespace opbench
