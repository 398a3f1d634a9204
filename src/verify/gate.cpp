#include "src/verify/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "src/core/cuda_check.hpp"
#include "src/verify/device_ops.hpp"

namespace opbench {

namespace {

// Elements beyond an elementwise tolerance; for a bound on the norm, the NaNs and unequal infinities (the
// norms leave them out, and none ever passes), or 1 when the output as a whole is beyond the bound.
int64_t violations(const Comparison& c, const Tolerance& tol) {
  if (!tol.by_norm()) return c.violations;
  if (c.nonfinite > 0) return c.nonfinite;
  return !(c.rel_l2_err <= tol.rel_l2) ? 1 : 0;
}

std::string norm_mismatch(std::size_t j, const char* who, const char* against, const Comparison& c,
                          const Tolerance& tol) {
  return fmt::format("output {}: {}'s relative L2 error against {} is {:.3g}, above the bound {:.3g}", j, who,
                     against, c.rel_l2_err, tol.rel_l2);
}

}  // namespace

Gate::Gate(ProblemSetup& setup, std::vector<Tolerance> tols, const Oracle& oracle, cudaStream_t s)
    : setup_(setup), tols_(std::move(tols)), stream_(s) {
  if (tols_.empty()) throw std::invalid_argument("Gate: one tolerance per output, at least one");
  exact_ = setup_.make_outputs(DType::f64);
  for (const TensorView& o : exact_) poison(o, s);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  oracle(setup_.bindings(ImplKind::torch), exact_);
  OPBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

Verification Gate::check(ImplKind k, const Prepared& impl, const std::vector<TensorView>* against_torch) {
  const std::vector<TensorView> outs = setup_.bindings(k).out;
  for (const TensorView& o : outs) poison(o, stream_);
  impl.launch(stream_);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  if (impl.finish) impl.finish();
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));

  Verification v;
  v.checked = true;
  v.tolerance = tols_.front();
  const char* who = impl_name(k);
  for (std::size_t j = 0; j < outs.size(); ++j) {
    const Tolerance& tol = tols_[std::min(j, tols_.size() - 1)];
    const Comparison vs_oracle = compare(outs[j], exact_[j], tol, stream_);
    v.oracle_max_abs_err = std::max(v.oracle_max_abs_err, vs_oracle.max_abs_err);
    v.oracle_max_rel_err = std::max(v.oracle_max_rel_err, vs_oracle.max_rel_err);
    v.oracle_rel_l2_err = std::max(v.oracle_rel_l2_err, vs_oracle.rel_l2_err);
    int64_t bad = violations(vs_oracle, tol);
    if (v.first_mismatch.empty() && bad) {
      v.tolerance = tol;  // the bound the reported output missed (outputs may have their own)
      v.first_mismatch = tol.by_norm() && vs_oracle.nonfinite == 0
                             ? norm_mismatch(j, who, "the oracle", vs_oracle, tol)
                             : fmt::format("output {} element {}: {} {:.7g}, fp64 oracle {:.7g}", j,
                                           vs_oracle.first_violation, who, vs_oracle.got, vs_oracle.expected);
    }
    if (against_torch) {
      // LibTorch passed the oracle, so each side is within `tol` of the exact value and they may be up
      // to twice that apart: the comparison between them allows 2 x tol. (layer_norm on 100003x3 fp32:
      // framework 8.4e-6 and LibTorch 1.1e-5 from the fp64 oracle, both within atol 1e-5 + rtol 1e-5,
      // on opposite sides: 1.5e-5 apart.) The oracle comparison above is the binding one.
      const Tolerance twice{2 * tol.atol, 2 * tol.rtol, 2 * tol.rel_l2};
      const Comparison vs_torch = compare(outs[j], (*against_torch)[j], twice, stream_);
      v.max_abs_err = std::max(v.max_abs_err, vs_torch.max_abs_err);
      v.max_rel_err = std::max(v.max_rel_err, vs_torch.max_rel_err);
      v.rel_l2_err = std::max(v.rel_l2_err, vs_torch.rel_l2_err);
      const int64_t bad_torch = violations(vs_torch, twice);
      bad = std::max(bad, bad_torch);
      if (v.first_mismatch.empty() && bad_torch) {
        v.tolerance = tol;
        v.first_mismatch = twice.by_norm() && vs_torch.nonfinite == 0
                               ? norm_mismatch(j, who, "LibTorch", vs_torch, twice)
                               : fmt::format("output {} element {}: {} {:.7g}, LibTorch {:.7g}", j,
                                             vs_torch.first_violation, who, vs_torch.got, vs_torch.expected);
      }
    }
    v.mismatches += bad;
  }
  v.correct = v.mismatches == 0;
  return v;
}

}  // namespace opbench
