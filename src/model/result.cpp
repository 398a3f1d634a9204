// Out-of-line members of result.hpp: the headline time, the problem id, lookups.
#include "opbench/result.hpp"

#include <fmt/format.h>

namespace opbench {

double ImplResult::time_ms() const {
  if (pure && pure->samples > 0) return pure->median_ms;
  if (graph && graph->samples > 0) return graph->median_ms;
  if (real && real->samples > 0) return real->median_ms;
  return 0;
}

const ImplResult* ProblemResult::find(ImplKind k) const {
  for (const auto& r : impls)
    if (r.impl == k) return &r;
  return nullptr;
}

const Verification& ProblemResult::framework_verify() const {
  static const Verification unchecked;
  const ImplResult* fw = find(ImplKind::framework);
  return fw ? fw->verify : unchecked;
}

std::string ProblemResult::id() const {
  return fmt::format("{}/{}/{}/{}{}", category_name(category), op, dtype_name(dtype), shape_str(shape),
                     sweep_id_suffix(sweep));
}

const ProblemResult* RunResults::find(const std::string& id) const {
  for (const auto& p : problems)
    if (p.id() == id) return &p;
  return nullptr;
}

}  // namespace opbench
