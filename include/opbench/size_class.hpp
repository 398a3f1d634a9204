// The size classes users of the Genesis scripts know, and the shapes each one runs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opbench/shape.hpp"

namespace opbench {

enum class SizeClass { small, medium, large, very_large, batch, custom };

const char* size_class_name(SizeClass c);
std::optional<SizeClass> parse_size_class(const std::string& s);
const std::vector<SizeClass>& all_size_classes();  // the five named classes, custom excluded

// The shapes of one class, in order (--fast keeps the first two).
const std::vector<Shape>& size_class_shapes(SizeClass c);

// A shape with the class it was drawn from.
struct SizedShape {
  Shape shape;
  SizeClass size_class;
};

}  // namespace opbench
