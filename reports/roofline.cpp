#include "reports/roofline.hpp"

#include <cmath>

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

// The rate of an op reading bytes - bytes_written and writing bytes_written, from the sweeps' rates: seconds a byte
// linear in the written share f between the two sweeps around it, the read sweep (f = 0) and the copy (f = 1/2), or
// the copy and the write sweep (f = 1). Without a write sweep (reports before it had one) the line through the read
// sweep and the copy goes on to f = 1, where it gives less than a store-only stream reaches (H200: 4.17 TB/s implied,
// 4.3-4.6 measured; expand ran at 109-112% of it).
double combined_gbps(double read, double copy, double write, double bytes, double bytes_written) {
  const bool split_known = bytes_written > 0 && bytes_written <= bytes;
  // Seconds a GB written only: the write sweep's, or the line's (2 / copy - 1 / read); a read sweep under half the
  // copy rate would make the line's negative (the sweeps disagree), and then the copy alone is the roof.
  const double line_end = read > 0 ? 2 / copy - 1 / read : 0;
  if (!split_known || read <= 0 || line_end <= 0) return copy;
  const double r = bytes - bytes_written, w = bytes_written;
  if (w <= r) return bytes / (r / read + w * line_end);  // up to the copy: the read sweep's line
  const double end = write > 0 ? 1 / write : line_end;  // past it: from the copy to the write sweep (or the line on)
  return bytes / (2 * r / copy + (w - r) * end);
}

}  // namespace

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::launch: return "launch";
  }
  return "?";
}

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

const GemmRoof* measured_gemm(const DeviceInfo& d, DType t, bool tf32) {
  // TF32 only changes fp32; a 16-bit GEMM is the same with or without it.
  const bool want_tf32 = t == DType::f32 && tf32;
  for (const GemmRoof& g : d.measured_gemm)
    if (g.dtype == t && (t != DType::f32 || g.tf32 == want_tf32) && g.tflops > 0) return &g;
  return nullptr;
}

MemoryRoof memory_roof(const DeviceInfo& d, double bytes, double bytes_written) {
  if (d.measured_copy_gbps <= 0) {
    if (d.theoretical_gbps > 0) return {d.theoretical_gbps, RoofBasis::datasheet};
    return {};
  }
  return {combined_gbps(d.measured_read_gbps, d.measured_copy_gbps, d.measured_write_gbps, bytes, bytes_written),
          RoofBasis::measured};
}

MemoryRoof memory_roof_at_size(const DeviceInfo& d, double bytes, double bytes_written) {
  const std::vector<RoofPoint>& c = d.roof_curve;
  if (c.empty() || bytes < c.front().bytes || c.front().bytes <= 0) return {};
  std::size_t i = 1;
  while (i < c.size() && c[i].bytes < bytes) ++i;
  RoofPoint at = c.back();
  if (i < c.size()) {
    const RoofPoint &lo = c[i - 1], &hi = c[i];
    const double t = hi.bytes > lo.bytes ? std::log(bytes / lo.bytes) / std::log(hi.bytes / lo.bytes) : 0;
    const bool writes = lo.write_gbps > 0 && hi.write_gbps > 0;
    at = {bytes, lo.read_gbps + t * (hi.read_gbps - lo.read_gbps), lo.copy_gbps + t * (hi.copy_gbps - lo.copy_gbps),
          writes ? lo.write_gbps + t * (hi.write_gbps - lo.write_gbps) : 0};
  }
  if (at.copy_gbps <= 0) return {};
  return {combined_gbps(at.read_gbps, at.copy_gbps, at.write_gbps, bytes, bytes_written), RoofBasis::measured};
}

ComputeRoof compute_roof(const DeviceInfo& d, DType t, bool tf32) {
  if (const GemmRoof* g = measured_gemm(d, t, tf32)) return {g->tflops, RoofBasis::measured};
  const double peak = peak_tflops(d, t, tf32);
  if (peak > 0) return {peak, RoofBasis::datasheet};
  return {};
}

Placement place(const RunContext& c, const ProblemResult& p) {
  Placement pl;
  pl.memory = memory_roof(c.device, p.bytes, p.bytes_written);
  pl.memory_at_size = memory_roof_at_size(c.device, p.bytes, p.bytes_written);
  pl.compute = compute_roof(c.device, p.dtype, c.tf32);
  if (p.bytes > 0) pl.intensity = p.flops / p.bytes;
  if (pl.memory.gbps > 0 && pl.compute.tflops > 0) pl.ridge = pl.compute.tflops * 1e12 / (pl.memory.gbps * 1e9);
  if (!pl.intensity) return pl;
  if (p.flops <= 0) {
    // Pure data movement: only the memory roof applies, whatever the compute roof.
    if (pl.memory.gbps > 0) pl.roof_bound = Bound::memory;
  } else if (pl.ridge) {
    pl.roof_bound = *pl.intensity >= *pl.ridge ? Bound::compute : Bound::memory;
  }
  return pl;
}

}  // namespace opbench::reports
