#include "src/verify/gate.hpp"

#include <fmt/format.h>

#include "src/core/cuda_check.hpp"
#include "src/verify/device_ops.hpp"

namespace opbench {

static void run_once(const Prepared& p, const std::vector<TensorView>& outs, cudaStream_t s) {
  for (const TensorView& o : outs) poison(o, s);
  p.launch(s);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  if (p.finish) p.finish();
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
}

Verification check_correctness(const Tolerance& tol, ProblemSetup& setup, const Prepared& framework,
                               const Prepared& torch, const Oracle& oracle, cudaStream_t s) {
  const Bindings fw = setup.bindings(ImplKind::framework);
  const Bindings th = setup.bindings(ImplKind::torch);
  run_once(framework, fw.out, s);
  run_once(torch, th.out, s);
  const std::vector<TensorView> exact = setup.make_outputs(DType::f64);
  oracle(th, exact);
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));

  Verification v;
  v.checked = true;
  v.tolerance = tol;
  for (std::size_t j = 0; j < fw.out.size(); ++j) {
    const Comparison vs_torch = compare(fw.out[j], th.out[j], tol, s);
    const Comparison vs_oracle = compare(fw.out[j], exact[j], tol, s);
    v.max_abs_err = std::max(v.max_abs_err, vs_torch.max_abs_err);
    v.max_rel_err = std::max(v.max_rel_err, vs_torch.max_rel_err);
    v.oracle_max_abs_err = std::max(v.oracle_max_abs_err, vs_oracle.max_abs_err);
    v.oracle_max_rel_err = std::max(v.oracle_max_rel_err, vs_oracle.max_rel_err);
    v.oracle_rel_l2_err = std::max(v.oracle_rel_l2_err, vs_oracle.rel_l2_err);
    v.mismatches += std::max(vs_torch.violations, vs_oracle.violations);
    if (v.first_mismatch.empty()) {
      if (vs_torch.violations)
        v.first_mismatch = fmt::format("output {} element {}: framework {:.7g}, LibTorch {:.7g}", j,
                                       vs_torch.first_violation, vs_torch.got, vs_torch.expected);
      else if (vs_oracle.violations)
        v.first_mismatch = fmt::format("output {} element {}: framework {:.7g}, fp64 oracle {:.7g}", j,
                                       vs_oracle.first_violation, vs_oracle.got, vs_oracle.expected);
    }
  }
  v.correct = v.mismatches == 0;
  return v;
}

}  // namespace opbench
