// What a run produced: the context it ran in and one record per (problem, implementation). The reports
// derive every figure (speedup, GB/s, % of peak, grade) from these fields, so they are all measured.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/op.hpp"
#include "opbench/shape.hpp"
#include "opbench/size_class.hpp"

namespace opbench {

struct DeviceInfo {
  std::string name;
  int device = 0;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;       // max SM clock
  double mem_clock_mhz = 0;      // max memory clock
  int bus_width_bits = 0;
  double l2_mb = 0;
  double memory_gb = 0;
  double theoretical_gbps = 0;   // 2 x memory clock x bus width / 8
  double measured_copy_gbps = 0; // device-to-device copy, bytes read + written
  std::string driver_version, runtime_version, cublas_version, cudnn_version, torch_version;
};

struct RunContext {
  DeviceInfo device;
  std::string command_line;
  std::string git_commit;
  std::string timestamp;     // ISO 8601, UTC
  std::string timing_mode;   // pure | real | both
  std::string l2_mode;       // cold | warm
  bool tf32 = false;
  bool outlier_filter = true;
};

// Statistics of one timing mode's samples (milliseconds), after the outlier filter.
struct TimeStats {
  double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0, stddev_ms = 0, cv = 0;
  int samples = 0;      // kept
  int outliers = 0;     // removed by the IQR filter
  bool reliable = true; // cv below the reliability threshold
};

enum class Status { ok, incorrect, failed, not_supported };
const char* status_name(Status s);

struct Verification {
  bool checked = false;
  bool correct = false;
  double max_abs_err = 0;          // framework vs LibTorch
  double max_rel_err = 0;
  double oracle_max_abs_err = 0;   // framework vs LibTorch on fp64 inputs
  double oracle_max_rel_err = 0;
  double oracle_rel_l2_err = 0;     // ||framework - oracle|| / ||oracle||
  int64_t mismatches = 0;          // elements beyond tolerance (either comparison)
  std::string first_mismatch;      // "index 17: got 1.5, expected 1.25"
  Tolerance tolerance{0, 0};
};

struct ImplResult {
  ImplKind impl = ImplKind::framework;
  Status status = Status::ok;
  std::string message;             // why it failed / was incorrect
  std::optional<TimeStats> pure;   // device time, CUDA events
  std::optional<TimeStats> real;   // host wall clock per call, launch + sync
  double memory_mb = 0;            // operands + what it allocated during a call

  // The headline time: pure when measured, else real. 0 when not timed.
  double time_ms() const;
};

struct ProblemResult {
  std::string op;
  Category category = Category::element;
  Shape shape;
  SizeClass size_class = SizeClass::custom;
  DType dtype = DType::f32;
  double bytes = 0;   // minimal bytes moved
  double flops = 0;
  Verification verify;
  std::vector<ImplResult> impls;

  const ImplResult* find(ImplKind k) const;
  // "element/add/fp32/4096x4096": the Google Benchmark name of this problem, unique in a run.
  std::string id() const;
};

struct RunResults {
  RunContext context;
  std::vector<ProblemResult> problems;
  const ProblemResult* find(const std::string& id) const;
};

}  // namespace opbench
