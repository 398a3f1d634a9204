// Figures derived from one implementation's measured fields: speedup, GB/s, % of theoretical and of
// measured copy bandwidth, TFLOP/s, % of peak, grade. Nothing here is estimated; a figure whose inputs
// were not measured (no time, no bytes, an unknown architecture) is absent, never zero.
#pragma once
#include <optional>
#include <string>

#include "opbench/grade.hpp"
#include "opbench/result.hpp"

namespace opbench::reports {

// Dense peak of the device for a matmul in `t` (TF32 tensor cores for fp32 when tf32 is set), in
// TFLOP/s: SMs x max SM clock x FLOP/clock/SM of the architecture. 0 for an architecture or dtype
// without a known rate (reports print "n/a").
double peak_tflops(const DeviceInfo& d, DType t, bool tf32);
// The arithmetic behind peak_tflops, for the report: "132 SMs × 1980 MHz × 4096 FLOP/clk/SM (...)".
std::string peak_basis_text(const DeviceInfo& d, DType t, bool tf32);

// FLOPs per byte of the problem (0 when bytes are unknown).
double arithmetic_intensity(const ProblemResult& p);
// The roofline's ridge: peak FLOP/s / theoretical bytes/s. Absent when either is unknown.
std::optional<double> ridge_point(const DeviceInfo& d, DType t, bool tf32);
// "compute-bound" when the problem's intensity reaches the ridge, else "memory-bound"; "n/a" unknown.
const char* bound_name(const RunContext& c, const ProblemResult& p);

// The problem's outcome as its framework row says: no row is a failure, and a verification that found
// mismatches makes it incorrect whatever the row's status.
Status problem_status(const ProblemResult& p);
// The first vendor (cuDNN, cuBLAS) row, if the problem has one.
const ImplResult* vendor_row(const ProblemResult& p);
// Every timing of the row that was measured passed the reliability test.
bool timing_reliable(const ImplResult& r);

struct Metrics {
  double time_ms = 0;                        // 0: not timed
  std::optional<double> speedup;             // LibTorch time / this time (1 for the LibTorch row)
  std::optional<double> throughput_gbps;     // bytes / time
  std::optional<double> gpu_efficiency;      // % of DeviceInfo::theoretical_gbps
  std::optional<double> copy_efficiency;     // % of DeviceInfo::measured_copy_gbps
  std::optional<double> tflops;              // flops / time (problems with flops only)
  std::optional<double> pct_of_peak;         // % of peak_tflops
  std::optional<double> inference_speed;     // calls per second: 1000 / time_ms
  std::optional<Grade> grade;                // framework and vendor rows; never the LibTorch baseline
  bool timed() const { return time_ms > 0; }
};

Metrics compute_metrics(const RunContext& c, const ProblemResult& p, const ImplResult& r);

}  // namespace opbench::reports
