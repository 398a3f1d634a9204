// Internal to src/reference: vendor (cuDNN, cuBLAS) implementations, registered like the LibTorch ones.
// A vendor prepare function does its setup (descriptors, workspace) outside the timed launch.
#pragma once
#include <map>
#include <string>

#include "opbench/op.hpp"

namespace opbench::reference {

class VendorRegistry {
 public:
  void add(const std::string& op, Prepare p) { fns_[op] = std::move(p); }
  const Prepare* find(const std::string& op) const {
    auto it = fns_.find(op);
    return it == fns_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Prepare> fns_;
};

const VendorRegistry& cudnn_registry();
const VendorRegistry& cublas_registry();

// Per category, in cudnn_<category>.cpp / cublas_<category>.cpp; the unused ones are empty.
void register_cudnn_element(VendorRegistry& r);
void register_cudnn_activation(VendorRegistry& r);
void register_cudnn_reduction(VendorRegistry& r);
void register_cudnn_layout(VendorRegistry& r);
void register_cublas_matmul(VendorRegistry& r);

}  // namespace opbench::reference
