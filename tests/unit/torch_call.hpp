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

// A tensor of these values (given in double) in dtype t, and the values of a tensor back as doubles.
inline at::Tensor tensor(const std::vector<double>& v, std::vector<int64_t> shape, at::ScalarType t = at::kFloat) {
  return at::tensor(v, at::kDouble).to(t).reshape(shape);
}

inline std::vector<double> flat(const at::Tensor& t) {
  at::Tensor c = t.contiguous().to(at::kDouble).reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace opbench::reference::test_util
