#include "opbench/size_class.hpp"

namespace opbench {

const char* size_class_name(SizeClass c) {
  switch (c) {
    case SizeClass::small: return "small";
    case SizeClass::medium: return "medium";
    case SizeClass::large: return "large";
    case SizeClass::very_large: return "very_large";
    case SizeClass::batch: return "batch";
    case SizeClass::custom: return "custom";
  }
  return "?";
}

std::optional<SizeClass> parse_size_class(const std::string& s) {
  for (SizeClass c : all_size_classes())
    if (s == size_class_name(c)) return c;
  if (s == "very-large" || s == "xlarge") return SizeClass::very_large;
  return std::nullopt;
}

const std::vector<SizeClass>& all_size_classes() {
  static const std::vector<SizeClass> v = {SizeClass::small, SizeClass::medium, SizeClass::large,
                                           SizeClass::very_large, SizeClass::batch};
  return v;
}

// The classes as the Genesis scripts defined them.
const std::vector<Shape>& size_class_shapes(SizeClass c) {
  static const std::vector<Shape> small = {{256, 256}, {512, 512}, {1024, 1024}, {32, 32, 32}, {64, 64, 64}};
  static const std::vector<Shape> medium = {{2048, 2048}, {4096, 1024}, {1024, 4096}, {128, 128, 128}, {32, 256, 256}};
  static const std::vector<Shape> large = {{4096, 4096}, {8192, 2048}, {2048, 8192}, {256, 256, 256}, {64, 512, 512}};
  static const std::vector<Shape> very_large = {{8192, 8192}, {16384, 4096}, {512, 512, 512}};
  static const std::vector<Shape> batch = {{32, 128, 768}, {64, 256, 256}, {128, 512, 512}, {16, 1024, 1024}};
  static const std::vector<Shape> none;
  switch (c) {
    case SizeClass::small: return small;
    case SizeClass::medium: return medium;
    case SizeClass::large: return large;
    case SizeClass::very_large: return very_large;
    case SizeClass::batch: return batch;
    case SizeClass::custom: return none;
  }
  return none;
}

}  // namespace opbench
