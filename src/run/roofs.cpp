#include "src/run/roofs.hpp"

#include <fmt/format.h>

#include "src/core/problem_setup.hpp"

namespace opbench {

std::vector<GemmRoof> measure_gemm_roofs(const Registry& reg, const std::vector<DType>& dtypes, const RunSettings& s,
                                         const TimingConfig& timing, TimingResources& res, cudaStream_t stream) {
  std::vector<GemmRoof> roofs;
  const OpDef* mm = reg.find("matmul");
  const Impl* cublas = mm ? mm->impl(ImplKind::cublas) : nullptr;
  if (!cublas || !cublas->prepare) return roofs;
  TimingConfig t = timing;
  t.pure = true, t.real = false, t.graph = false;
  for (DType dt : dtypes) {
    const int64_t n = dt == DType::f32 && !s.tf32 ? 4096 : 8192;
    try {
      ProblemSetup setup(mm->io({n, n, n}, dt), 0x5eed, stream);
      Bindings b = setup.bindings(ImplKind::cublas);
      b.settings = s;
      const Prepared p = cublas->prepare(b);
      const std::vector<Measurement> m = measure({p.launch}, t, res, stream);
      if (!m.at(0).pure || m.at(0).pure->median_ms <= 0) continue;
      const TimeStats& st = *m.at(0).pure;
      GemmRoof r;
      r.dtype = dt;
      r.tf32 = dt == DType::f32 && s.tf32;
      r.tflops = mm->flops({n, n, n}, dt) / (st.median_ms * 1e-3) / 1e12;
      r.how = fmt::format("cuBLAS {}x{}x{} {}{}, median of {} samples", n, n, n, dtype_name(dt), r.tf32 ? " (TF32)" : "",
                          st.samples);
      roofs.push_back(r);
    } catch (const std::exception&) {
      (void)cudaGetLastError();  // no roof for this dtype; the datasheet peak stands alone
    }
  }
  return roofs;
}

}  // namespace opbench
