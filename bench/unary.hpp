// Registration shared by the element and activation categories: y = f(x) with an optional scalar
// parameter, on the framework's element-wise engine. Bytes 2 n s (read x, write y), FLOPs n.
#pragma once
#include <string>

#include "bench/categories.hpp"
#include "kernels/elementwise/elementwise.hpp"

namespace opbench::bench {

OpDef& add_unary(Registry& r, Category c, const std::string& name, fw::UnaryOp op, Init init, double scalar,
               const std::string& what);

}  // namespace opbench::bench
