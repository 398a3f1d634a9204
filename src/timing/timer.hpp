// How bench_ops times the implementations of one problem (notes/methodology.md has the reasons).
//  - pure (default): device time of one launch: the span of its GPU work in CUPTI's activity records
//    (activity_trace.hpp), or between two CUDA events around it (--device-timer events). Before each sample the L2
//    is made cold and clean (l2_flush.hpp) and the stream is held until the whole sample is queued
//    (blocking_kernel.hpp), so neither the previous sample's cache state nor host queueing time reach
//    the events.
//  - graph: N launches captured in a CUDA graph, replayed between the events; time per launch (graph.hpp).
//  - real: host wall clock around launch + stream synchronize: what an eager caller waits for.
// Every sample's SM clock is measured (clock_probe.hpp); throttled samples are set aside. The
// implementations are sampled in interleaved rounds, one sample of each per round, after a wall-clock
// warm-up, until every median is known to the target precision (stopping.hpp).
#pragma once
#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/result.hpp"
#include "src/timing/resources.hpp"

namespace opbench {

struct TimingConfig {
  bool pure = true, real = false, graph = false;  // --timing pure|real|graph|both (both = pure + real)
  bool l2_cold = true;
  DeviceTimer device_timer = DeviceTimer::cupti;  // --device-timer: the clock of pure and graph samples
  bool outlier_filter = true;
  double warmup_ms = 15;  // wall-clock warm-up before each mode's samples, all implementations in turn
  // Sample in interleaved rounds until every implementation's median is known to `rel_precision`
  // (half-width of its 95% confidence interval / median), after at least min_samples and
  // min_time_ms; stop anyway after max_samples rounds or timeout_ms (per problem and mode).
  // Measured on the H100 (notes/methodology.md): each sample costs ~0.1 ms beyond the kernel (the
  // 2 x L2 write-then-read flush, the handshake, the clock probes), so a launch-bound kernel's set is
  // capped by max_samples, and these bounds keep a full suite (2776 problems) near five minutes.
  double rel_precision = 0.01;
  int min_samples = 10;
  int max_samples = 500;
  double min_time_ms = 3;
  double timeout_ms = 250;
  double clock_threshold = 0.75;  // a sample whose SM clock is below this fraction of the max is dropped
  int graph_launches = 0;         // 0: chosen from the estimate (about 0.5 ms of work per replay, 10..1000)
  // false: pure samples are timed as the call is issued, without the launch handshake: the events span
  // the host's queueing too wherever the GPU waits for it (OpDef::timed_as_issued: a whole model's step,
  // whose hundreds of launches are part of what a user pays, and could overfill a held stream's queue).
  bool hold_stream = true;
};

TimingConfig fast_timing(TimingConfig base);  // --fast: looser precision, smaller budgets

// For the report's context: "write then read a 100 MiB buffer (2 x L2) before each sample" | "none (warm)".
std::string describe_flush(const TimingConfig& c);
// The stopping rule in words.
std::string describe_stopping(const TimingConfig& c);

struct Measurement {
  std::optional<TimeStats> pure, real, graph;
  int graph_launches = 0;          // launches per replay (graph mode)
  std::string graph_error;         // why `graph` is absent although asked for (the capture failed)
  std::vector<std::string> notes;  // handshake fallbacks, in words, for the report
};

// Warms up, then samples the implementations of one problem in the configured modes, interleaved.
// One Measurement per launch, in order; the first launch is the one the others' ratios are checked
// against (the framework). `names` (optional) name the implementations in stop reasons. Every launch
// must queue its work on `s`; graph mode needs a created stream (not the legacy default stream).
// Throws CudaError on a CUDA error, std::invalid_argument for graph mode on the legacy stream.
std::vector<Measurement> measure(const std::vector<Launch>& launches, const TimingConfig& cfg, TimingResources& res,
                                 cudaStream_t s, const std::vector<std::string>& names = {});

// For ncu / nsys: one launch of each implementation between cudaProfilerStart and cudaProfilerStop,
// each inside an NVTX range named names[i] (e.g. "element/add/fp32/4096x4096/framework"), each
// followed by a stream synchronize, so `ncu --profile-from-start off` captures exactly these kernels.
// No flush and no handshake: ncu flushes caches itself (--cache-control all) and serializes launches.
// graph_launches > 0 (--timing graph): each implementation is captured as graph mode times it, that many
// launches in one CUDA graph, and the graph is launched once inside a range named names[i] + "/graph<N>",
// for `ncu --graph-profiling graph`, whose gpu__time_duration of the whole graph / N is the figure graph
// mode's time per launch compares with. An implementation that cannot be captured is not launched (the
// reason goes to stderr).
void profile_once(const std::vector<Launch>& launches, const std::vector<std::string>& names, cudaStream_t s,
                  int graph_launches = 0);
// Launches per graph under --profile --timing graph when --graph-launches does not say.
constexpr int kProfileGraphLaunches = 100;

}  // namespace opbench
