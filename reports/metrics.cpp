#include "reports/metrics.hpp"

#include <fmt/format.h>

namespace opbench::reports {
namespace {

// Dense FLOP per clock per SM. Tensor-core rates for fp16/bf16 (fp32 accumulate) and TF32; SIMT FMA
// (2 FLOP) x FP32 lanes for plain fp32. Sources: NVIDIA's A100, Ada and H100 architecture whitepapers.
struct SmRate {
  int flop_per_clk = 0;
  const char* unit = "";
};

SmRate sm_rate(const DeviceInfo& d, DType t, bool tf32) {
  const int arch = d.compute_major * 10 + d.compute_minor;
  int tensor16 = 0, tf32_rate = 0, simt32 = 0;
  if (arch == 90) tensor16 = 4096, tf32_rate = 2048, simt32 = 256;
  else if (arch == 80) tensor16 = 2048, tf32_rate = 1024, simt32 = 128;
  else if (arch == 89) tensor16 = 1024, tf32_rate = 512, simt32 = 256;
  else return {};
  switch (t) {
    case DType::f16:
    case DType::bf16: return {tensor16, "dense fp16/bf16 tensor core"};
    case DType::f32:
      if (tf32) return {tf32_rate, "dense TF32 tensor core"};
      return {simt32, "fp32 SIMT FMA"};
    default: return {};  // fp64 and integer peaks are not modelled
  }
}

}  // namespace

double peak_tflops(const DeviceInfo& d, DType t, bool tf32) {
  const SmRate r = sm_rate(d, t, tf32);
  return double(d.sm_count) * d.sm_clock_mhz * 1e6 * r.flop_per_clk / 1e12;
}

std::string peak_basis_text(const DeviceInfo& d, DType t, bool tf32) {
  const SmRate r = sm_rate(d, t, tf32);
  if (r.flop_per_clk == 0 || d.sm_count == 0 || d.sm_clock_mhz <= 0)
    return fmt::format("n/a: no per-SM {} rate known for sm_{}{}", dtype_name(t), d.compute_major,
                       d.compute_minor);
  return fmt::format("{} SMs × {:.0f} MHz × {} FLOP/clk/SM (sm_{}{} {}) = {:.1f} TFLOP/s", d.sm_count,
                     d.sm_clock_mhz, r.flop_per_clk, d.compute_major, d.compute_minor, r.unit,
                     peak_tflops(d, t, tf32));
}

double arithmetic_intensity(const ProblemResult& p) { return p.bytes > 0 ? p.flops / p.bytes : 0; }

std::optional<double> ridge_point(const DeviceInfo& d, DType t, bool tf32) {
  const double peak = peak_tflops(d, t, tf32);
  if (peak <= 0 || d.theoretical_gbps <= 0) return std::nullopt;
  return peak * 1e12 / (d.theoretical_gbps * 1e9);
}

const char* bound_name(const RunContext& c, const ProblemResult& p) {
  const auto ridge = ridge_point(c.device, p.dtype, c.tf32);
  if (!ridge || p.bytes <= 0) return "n/a";
  return arithmetic_intensity(p) >= *ridge ? "compute-bound" : "memory-bound";
}

Status problem_status(const ProblemResult& p) {
  const ImplResult* fw = p.find(ImplKind::framework);
  if (!fw) return Status::failed;
  if (fw->status == Status::ok && fw->verify.checked && !fw->verify.correct) return Status::incorrect;
  return fw->status;
}

const ImplResult* vendor_row(const ProblemResult& p) {
  for (const auto& r : p.impls)
    if (r.impl == ImplKind::cudnn || r.impl == ImplKind::cublas) return &r;
  return nullptr;
}

bool timing_reliable(const ImplResult& r) {
  return (!r.pure || r.pure->reliable) && (!r.real || r.real->reliable);
}

Metrics compute_metrics(const RunContext& c, const ProblemResult& p, const ImplResult& r) {
  Metrics m;
  const bool framework = r.impl == ImplKind::framework;
  const Status status = framework ? problem_status(p) : r.status;
  if (r.status == Status::ok || r.status == Status::incorrect) m.time_ms = r.time_ms();

  const ImplResult* torch = p.find(ImplKind::torch);
  const double torch_ms = torch && torch->status == Status::ok ? torch->time_ms() : 0;
  if (m.timed()) {
    if (torch_ms > 0) m.speedup = torch_ms / m.time_ms;
    m.inference_speed = 1000.0 / m.time_ms;
    if (p.bytes > 0) {
      const double gbps = p.bytes / (m.time_ms * 1e-3) / 1e9;
      m.throughput_gbps = gbps;
      if (c.device.theoretical_gbps > 0) m.gpu_efficiency = 100.0 * gbps / c.device.theoretical_gbps;
      if (c.device.measured_copy_gbps > 0) m.copy_efficiency = 100.0 * gbps / c.device.measured_copy_gbps;
    }
    if (p.flops > 0) {
      m.tflops = p.flops / (m.time_ms * 1e-3) / 1e12;
      const double peak = peak_tflops(c.device, p.dtype, c.tf32);
      if (peak > 0) m.pct_of_peak = 100.0 * *m.tflops / peak;
    }
  }
  if (r.impl != ImplKind::torch) {
    if (status == Status::incorrect) m.grade = Grade::critical;
    else if (m.speedup && status == Status::ok) m.grade = grade_for(*m.speedup);
  }
  return m;
}

}  // namespace opbench::reports
