// The roofs of this GPU and where a result stands under them (the roofline model): a problem with
// arithmetic intensity I (FLOPs per byte) can run no faster than min(compute roof, I x memory roof).
//
// Memory roof: measured, not the datasheet. The copy sweep (bytes read + written, equal amounts) is the
// roof of an op that writes as much as it reads; the read-only sweep is the roof of an op that only
// reads (reductions, losses). An op that reads R and writes W bytes is held to the rate those two
// sweeps predict for it: R bytes at the read rate, W at the write rate the copy implies
// (copy = N read + N written, so 2/copy = 1/read + 1/write). That is the copy roof when R = W and the
// read roof when W is tiny, with no threshold between. Without bytes_written, or without a read
// sweep, the copy roof; without a copy sweep, the theoretical bandwidth.
//
// Compute roof: the measured GEMM rate for the dtype where one was measured at start, else the
// datasheet peak derived from the device (SMs x clock x FLOP/clk/SM): the dense matrix-multiply rate,
// the most the GPU computes in that dtype. Ops without matrix multiplies never come near it; their
// intensity puts them far left of the ridge, where the memory roof bounds them.
//
// Bound: compute when the intensity reaches the ridge (compute roof / memory roof), memory below it,
// and launch when the result took under kLaunchFloorMs: there the fixed cost of a kernel (launch on the
// GPU, a wave's ramp-up and drain: about 2-4 us on an H100 between CUDA events) is most of the time,
// so neither roof is what limits it.
#pragma once
#include <optional>
#include <string>

#include "opbench/result.hpp"

namespace opbench::reports {

inline constexpr double kLaunchFloorMs = 0.005;

enum class Bound { memory, compute, launch };
const char* bound_name(Bound b);  // "memory", "compute", "launch"

// Datasheet peak of a dense matrix multiply in `t` (TF32 tensor cores for fp32 when tf32 is set), in
// TFLOP/s: SMs x max SM clock x FLOP/clock/SM of the architecture. 0 for an architecture or dtype
// without a known rate (reports print "n/a").
double peak_tflops(const DeviceInfo& d, DType t, bool tf32);
// The arithmetic behind peak_tflops, for the report: "132 SMs × 1980 MHz × 4096 FLOP/clk/SM (...)".
std::string peak_basis_text(const DeviceInfo& d, DType t, bool tf32);
// The GEMM measured at start for this dtype (and TF32 setting, for fp32), if any.
const GemmRoof* measured_gemm(const DeviceInfo& d, DType t, bool tf32);

enum class RoofBasis { measured, datasheet, none };

struct MemoryRoof {
  double gbps = 0;  // 0: unknown
  RoofBasis basis = RoofBasis::none;
};
struct ComputeRoof {
  double tflops = 0;  // 0: unknown
  RoofBasis basis = RoofBasis::none;
};

MemoryRoof memory_roof(const DeviceInfo& d, double bytes, double bytes_written);
// The same roof at the problem's own size (DeviceInfo::roof_curve: both sweeps measured at sizes from 1 MB up):
// each sweep's GB/s interpolated between the two measured sizes around `bytes`, linearly in log(bytes), then
// combined as above. What a streaming kernel reaches moving this many bytes from a clean cold L2, ramp-up and
// drain included. Unknown (gbps 0) without a curve or below its smallest size; the largest size's beyond it.
MemoryRoof memory_roof_at_size(const DeviceInfo& d, double bytes, double bytes_written);
ComputeRoof compute_roof(const DeviceInfo& d, DType t, bool tf32);

// Where one problem stands: its intensity, its roofs and the bound they give (before timing).
struct Placement {
  std::optional<double> intensity;  // FLOPs / bytes; absent when the bytes are unknown
  MemoryRoof memory;
  MemoryRoof memory_at_size;  // memory_roof_at_size: the memory roof at the problem's own size
  ComputeRoof compute;
  std::optional<double> ridge;      // FLOP/B where the roofs meet; absent when either is unknown
  std::optional<Bound> roof_bound;  // memory or compute by the roofline; absent when it cannot be told
};
Placement place(const RunContext& c, const ProblemResult& p);

}  // namespace opbench::reports
