// The vendor registries and the Impl lookups the op registry uses.
#include <cublas_v2.h>

#include <utility>
#include <vector>

#include "src/reference/reference.hpp"
#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {

namespace {
std::vector<std::pair<ImplKind, void (*)(VendorRegistry&)>>& vendor_groups() {
  static std::vector<std::pair<ImplKind, void (*)(VendorRegistry&)>> g;
  return g;
}

VendorRegistry build(ImplKind library) {
  VendorRegistry r;
  for (const auto& [k, fn] : vendor_groups())
    if (k == library) fn(r);
  return r;
}
}  // namespace

bool add_vendor_group(ImplKind library, void (*fn)(VendorRegistry&)) {
  vendor_groups().emplace_back(library, fn);
  return true;
}

const VendorRegistry& cudnn_registry() {
  static const VendorRegistry reg = build(ImplKind::cudnn);
  return reg;
}

const VendorRegistry& cublas_registry() {
  static const VendorRegistry reg = build(ImplKind::cublas);
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
