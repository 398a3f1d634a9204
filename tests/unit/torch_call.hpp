// Shared by the test_torch_*.cpp files: calls a registered LibTorch reference on CPU tensors.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference::test_util {

inline std::vector<at::Tensor> call(const std::string& op, std::vector<at::Tensor> in, at::Tensor out,
                                    Params p = {}) {
  const TorchFn* fn = torch_registry().find(op);
  if (!fn) {
    ADD_FAILURE() << "no LibTorch reference registered for " << op;
    return {};
  }
  TorchArgs a;
  a.in = std::move(in);
  a.out = {out};
  a.params = p;
  return (*fn)(a);
}

}  // namespace opbench::reference::test_util
