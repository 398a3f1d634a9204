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

// Per category, in cudnn_<category>.cpp / cublas_<category>.cpp: a function adding that file's
// implementations, registered with OPBENCH_REGISTER_VENDOR(cudnn|cublas, fn).
bool add_vendor_group(ImplKind library, void (*fn)(VendorRegistry&));
#define OPBENCH_REGISTER_VENDOR(library, fn) \
  static const bool fn##_registered = ::opbench::reference::add_vendor_group(::opbench::ImplKind::library, fn)

}  // namespace opbench::reference
