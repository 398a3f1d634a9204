// The vendor registries and the Impl lookups the op registry uses.
#include <cublas_v2.h>

#include "src/reference/reference.hpp"
#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {

const VendorRegistry& cudnn_registry() {
  static const VendorRegistry reg = [] {
    VendorRegistry r;
    register_cudnn_element(r);
    register_cudnn_activation(r);
    register_cudnn_reduction(r);
    register_cudnn_layout(r);
    return r;
  }();
  return reg;
}

const VendorRegistry& cublas_registry() {
  static const VendorRegistry reg = [] {
    VendorRegistry r;
    register_cublas_matmul(r);
    return r;
  }();
  return reg;
}

static std::optional<Impl> lookup(const VendorRegistry& reg, ImplKind kind, const std::string& op) {
  const Prepare* p = reg.find(op);
  if (!p) return std::nullopt;
  return Impl{kind, *p, ""};
}

std::optional<Impl> cudnn_impl(const std::string& op) { return lookup(cudnn_registry(), ImplKind::cudnn, op); }
std::optional<Impl> cublas_impl(const std::string& op) { return lookup(cublas_registry(), ImplKind::cublas, op); }

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS) return "unknown";
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace opbench::reference
