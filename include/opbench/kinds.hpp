// The names a report speaks in, free of CUDA: categories, implementation kinds, outcomes and
// tolerances. The reports library and the comparison tool use these without linking the CUDA runtime.
#pragma once
#include <string>
#include <vector>

namespace opbench {

// A category of ops ("element", "matmul", ...): a name. Categories are data, not a list in the code:
// bench/<category>.cpp registers one (OPBENCH_REGISTER_CATEGORY, include/opbench/registry.hpp) and the
// CLI, the registry and the reports take the list from what is registered.
class Category {
 public:
  Category() = default;
  explicit Category(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  bool operator==(const Category& o) const { return name_ == o.name_; }
  bool operator!=(const Category& o) const { return name_ != o.name_; }
  bool operator<(const Category& o) const { return name_ < o.name_; }

 private:
  std::string name_;
};
inline const char* category_name(const Category& c) { return c.name().c_str(); }

enum class ImplKind { framework, torch, cudnn, cublas };
const char* impl_name(ImplKind k);
// cuDNN and cuBLAS: the vendor libraries.
inline bool is_vendor(ImplKind k) { return k == ImplKind::cudnn || k == ImplKind::cublas; }

// What happened to one implementation of a problem (as cutlass_profiler's dispositions):
// ok: verified against the fp64 oracle and timed; incorrect: ran, but its result is beyond tolerance
// (never timed); failed: an error (CUDA, out of memory, a missing reference); not_supported: the
// library cannot take this problem (a dtype or shape it refuses), which is no fault.
enum class Status { ok, incorrect, failed, not_supported };
const char* status_name(Status s);

// |got - expected| <= atol + rtol * |expected|, elementwise; or, when rel_l2 > 0, a bound on the whole
// output: ||got - expected|| / ||expected|| <= rel_l2 (a model's logits and gradients, where a long chain of
// bf16 roundings leaves no elementwise bound worth stating; atol and rtol are then not used).
struct Tolerance {
  double atol;
  double rtol;
  double rel_l2 = 0;
  bool by_norm() const { return rel_l2 > 0; }
};

}  // namespace opbench
