// What an op's inputs and outputs look like (TensorSpec), and the non-owning views that launchers see
// (TensorView). Memory is owned by the harness; launchers never allocate.
#pragma once
#include <cstdint>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/shape.hpp"

namespace opbench {

// How the harness fills an input before a check or a timing. Never zeros: zeros hide unwritten outputs.
struct Init {
  enum class Kind { uniform, integers } kind = Kind::uniform;
  double lo = -1.0;  // uniform: [lo, hi); integers: [lo, hi)
  double hi = 1.0;

  static Init uniform(double lo, double hi) { return {Kind::uniform, lo, hi}; }
  static Init integers(int64_t lo, int64_t hi) { return {Kind::integers, double(lo), double(hi)}; }
};

struct TensorSpec {
  Shape shape;
  DType dtype = DType::f32;
  Init init = {};
};

struct TensorView {
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::f32;

  int64_t numel() const;
  std::size_t bytes() const { return std::size_t(numel()) * dtype_size(dtype); }
  template <class T>
  T* as() const { return static_cast<T*>(data); }
};

}  // namespace opbench
