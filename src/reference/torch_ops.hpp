// Internal to src/reference: how LibTorch references are written and registered. Each category's file
// (torch_element.cpp, torch_reduction.cpp, ...) defines a function adding its references and registers it
// with OPBENCH_REGISTER_TORCH(fn); torch_registry() calls every registered one once.
//
// A reference takes the inputs and the harness's output tensors. It should use an out= variant when
// LibTorch has one and return `a.out`; otherwise it returns the tensors LibTorch allocated, and the
// harness copies them into the outputs after the timed region. References must be device-agnostic
// (the CPU unit tests run them on CPU tensors) and dtype-agnostic (the fp64 oracle runs them in fp64).
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "opbench/op.hpp"

namespace opbench::reference {

struct TorchArgs {
  std::vector<at::Tensor> in;
  mutable std::vector<at::Tensor> out;  // the harness's output memory (mutable: out= variants write it)
  Params params;
  RunSettings settings;
  // What a reference keeps across the calls of one prepared problem (a model layer's activations from its
  // first, full pass): empty at the first call.
  mutable std::shared_ptr<void> state;
};

using TorchFn = std::function<std::vector<at::Tensor>(const TorchArgs&)>;

class TorchRegistry {
 public:
  void add(const std::string& op, TorchFn fn);
  const TorchFn* find(const std::string& op) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, TorchFn> fns_;
};

// All LibTorch references (registered on first use).
const TorchRegistry& torch_registry();

at::ScalarType to_scalar_type(DType t);
// A tensor over harness memory (CUDA), no copy.
at::Tensor wrap(const TensorView& v);

// Adds a group of references (at static initialization); returns true for the macro.
bool add_torch_group(void (*fn)(TorchRegistry&));
#define OPBENCH_REGISTER_TORCH(fn) static const bool fn##_registered = ::opbench::reference::add_torch_group(fn)

}  // namespace opbench::reference
