// What a run produced: the context it ran in and one record per (problem, implementation). The reports
// derive every figure (speedup, GB/s, % of peak, grade) from these fields, so they are all measured.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/kinds.hpp"
#include "opbench/model_info.hpp"
#include "opbench/sweep.hpp"
#include "opbench/shape.hpp"
#include "opbench/size_class.hpp"

namespace opbench {

// A compute roof measured at start: a large GEMM timed in one dtype (the rate a compute-bound op can
// actually reach, beside the datasheet peak derived from the device).
struct GemmRoof {
  DType dtype = DType::f32;
  bool tf32 = false;        // fp32 with TF32 tensor cores allowed
  double tflops = 0;
  std::string how;          // what was timed, in words: "cuBLAS 8192x8192x8192, median of 20"
};

// The memory roofs measured at one size below their own (8x L2), the same way (clean cold L2, median):
// what a streaming kernel reaches when a problem this small pays its ramp-up and drain.
struct RoofPoint {
  double bytes = 0;       // moved: read by the sweep; half read, half written by the copy; written by the write sweep
  double read_gbps = 0;   // the read sweep over `bytes`
  double copy_gbps = 0;   // a copy kernel moving bytes / 2 (launch_copy_sweep), counting bytes read + written
  double write_gbps = 0;  // a store-only kernel writing `bytes` (launch_write_sweep); 0: not measured (older reports)
};

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
  double measured_copy_gbps = 0; // device-to-device copy sweep, bytes read + written, clean cold L2
  double measured_read_gbps = 0; // read-only sweep (the roof of ops that only read), clean cold L2
  double measured_write_gbps = 0; // store-only sweep (the roof of ops that only write), clean cold L2; 0: not measured
  std::vector<RoofPoint> roof_curve;  // the same sweeps at smaller sizes, ascending (empty: not measured)
  std::string driver_version, runtime_version, cublas_version, cudnn_version, torch_version;
  std::vector<GemmRoof> measured_gemm;  // one per dtype measured at start (empty: datasheet peaks only)
};

// Which GPU measured a result, on which host (runs over several GPUs and nodes say it for every result).
// The UUID identifies the board whatever CUDA_VISIBLE_DEVICES makes of the index (nvidia-smi -L prints it).
struct GpuId {
  std::string host;
  int index = -1;  // CUDA ordinal in the process that measured (-1: not recorded)
  std::string name;
  std::string uuid;
  bool known() const { return index >= 0 || !host.empty() || !uuid.empty(); }
  bool same_board(const GpuId& o) const { return host == o.host && (uuid.empty() ? index == o.index : uuid == o.uuid); }
};

// One GPU of a run, as its process saw it: the per-GPU consistency table reads these.
struct FleetGpu {
  GpuId id;
  double measured_copy_gbps = 0;          // its own device-to-device copy measurement
  std::optional<double> max_temperature_c; // hottest NVML reading after a problem (absent without NVML)
};

// The part of a run's problem selection a report covers: shard `index` of `count` (0 <= index < count).
struct ShardTag {
  int index = 0;
  int count = 0;          // 0: the whole selection (not a shard)
  std::string launcher;   // who handed out the shard: torchrun, slurm, openmpi, --shard
};

struct RunContext {
  DeviceInfo device;
  std::string command_line;
  std::string git_commit;
  std::string timestamp;     // ISO 8601, UTC
  std::string timing_mode;   // pure | real | graph (| both: pure and real)
  // The clock of pure and graph samples: cupti | events (reports that predate the field: events), and
  // in words, with the reason when CUPTI was asked for but could not trace.
  std::string device_timer = "events";
  std::string device_timer_text;
  std::string l2_mode;       // cold | warm
  std::string l2_flush;      // how a cold L2 is made, in words ("none" when warm)
  std::string stopping;      // the stopping rule, in words
  bool tf32 = false;
  bool outlier_filter = true;
  int repetitions = 1;       // --benchmark_repetitions: results are the median across repetitions
  // Several GPUs and nodes (appended; empty/zero for reports that predate them):
  std::vector<FleetGpu> gpus;     // every GPU whose results the report holds (one for a one-GPU run)
  ShardTag shard;                 // a shard report: which part of the selection it covers
  bool replicate = false;         // --replicate: every GPU ran the same problems
  double slow_gpu_margin = 0.05;  // a GPU this much slower than the fleet median is flagged
  std::optional<ModelConfig> model;  // --category model: the model whose runs the report holds
};

// Statistics of one timing mode's samples (milliseconds), after the clock filter and the outlier
// filter. A comparison of two runs reads q1/median/q3 and samples_ms.
struct TimeStats {
  double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0, stddev_ms = 0, cv = 0;
  double q1_ms = 0, q3_ms = 0;
  int samples = 0;                  // kept
  int outliers = 0;                 // removed by the IQR filter
  int throttled_samples = 0;        // dropped: the SM clock during the sample was below the threshold
  double sm_clock_mhz = 0;          // mean SM clock over the kept samples (0: not measured)
  std::vector<double> samples_ms;   // the kept samples, in the order taken
  std::string stop_reason;          // why sampling stopped: precision, max_samples, timeout, ...
  int remeasured = 0;               // times the problem was measured again whole (unstable first set)
  bool reliable = true;             // the median is known to the target precision
};

// One implementation's verdict. Every implementation is checked against the fp64 oracle (LibTorch on
// fp64 copies of the inputs); the framework also against LibTorch in the same dtype.
struct Verification {
  bool checked = false;
  bool correct = false;
  double max_abs_err = 0;          // vs LibTorch in the same dtype (framework only)
  double max_rel_err = 0;
  double rel_l2_err = 0;           // ||impl - LibTorch|| / ||LibTorch|| (framework only)
  double oracle_max_abs_err = 0;   // vs the fp64 oracle
  double oracle_max_rel_err = 0;
  double oracle_rel_l2_err = 0;    // ||impl - oracle|| / ||oracle||
  int64_t mismatches = 0;          // elements beyond tolerance (either comparison)
  std::string first_mismatch;      // "output 0 element 17: framework 1.5, fp64 oracle 1.25"
  Tolerance tolerance{0, 0};
};

struct ImplResult {
  ImplKind impl = ImplKind::framework;
  Status status = Status::ok;
  std::string message;             // why it failed / was incorrect
  std::optional<TimeStats> pure;   // device time of one launch (CUPTI or CUDA events: context.device_timer)
  std::optional<TimeStats> real;   // host wall clock per call, launch + sync
  std::optional<TimeStats> graph;  // device time per launch, N launches replayed from a CUDA graph
  double memory_mb = 0;            // operands + what it allocated during a call
  Verification verify;             // this implementation's own verdict
  std::string kernel;              // the kernel or path it ran, where the implementation names one

  // The headline time: pure when measured, else graph, else real. 0 when not timed.
  double time_ms() const;
};

struct ProblemResult {
  std::string op;
  Category category;
  Shape shape;
  SizeClass size_class = SizeClass::custom;
  DType dtype = DType::f32;
  double bytes = 0;   // minimal bytes moved
  double flops = 0;
  std::vector<ImplResult> impls;   // framework, LibTorch, then vendors
  // Of `bytes`, those written (0: not declared). It chooses the memory roof: an op that writes as much
  // as it reads is held to the measured copy, one that only reads to the measured read sweep.
  double bytes_written = 0;
  std::string twin_of;  // OpDef::twin_of: the op this one should never be slower than on the same shape
  // Appended for runs over several GPUs and nodes:
  GpuId gpu;                 // where it was measured
  double wall_ms = 0;        // wall time the whole problem took (setup, gate, warm-up, samples); balances shards
  int selection_index = -1;  // position in the run's selection, so that shards merge back in order
  std::optional<SweepPoint> sweep;  // a --sweep problem's grid point (JSON: batch_size, sequence_length, tensor_dimension)

  const ImplResult* find(ImplKind k) const;
  // The framework row's verdict (an unchecked one when there is no framework row).
  const Verification& framework_verify() const;
  // "element/add/fp32/4096x4096": the Google Benchmark name of this problem, unique in a run.
  std::string id() const;
};

struct RunResults {
  RunContext context;
  std::vector<ProblemResult> problems;
  const ProblemResult* find(const std::string& id) const;
};

}  // namespace opbench
