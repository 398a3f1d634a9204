#include "src/run/session.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>

#include "reports/live_reporter.hpp"
#include "reports/report_files.hpp"
#include "reports/summary.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_info.hpp"
#include "src/dist/role.hpp"
#include "src/model/stats.hpp"
#include "src/reference/reference.hpp"
#include "src/run/context.hpp"
#include "src/run/output.hpp"
#include "src/run/pipeline.hpp"
#include "src/run/roofs.hpp"

namespace opbench {
namespace {

// The problems the command line selects, minus those whose op cannot read a --shape (said why). Exit code
// on a selection that runs nothing.
std::optional<int> select(const Options& opt, const Registry& reg, std::vector<Problem>& problems) {
  try {
    problems = select_problems(reg, opt.filter);
  } catch (const std::invalid_argument& e) {
    std::cerr << "bench_ops: " << e.what() << "\n";
    return kExitUsage;
  }
  const std::vector<Rejected> rejected = reject_unreadable_shapes(problems);
  for (std::size_t i = 0; i < rejected.size() && i < 8; ++i)
    std::cerr << "bench_ops: skipping " << rejected[i].problem.id() << ": " << rejected[i].reason << "\n";
  if (rejected.size() > 8) std::cerr << "bench_ops: ... and " << rejected.size() - 8 << " more such problems\n";
  if (problems.empty()) {
    std::cerr << (rejected.empty() ? "bench_ops: the selection matches no problem (an op that lacks the dtype "
                                     "asked for?); see --list-ops\n"
                                   : "bench_ops: no selected op can take the shape given; see the reasons above\n");
    return kExitUsage;
  }
  return std::nullopt;
}

// Before any GPU work: a writable output folder, a GPU, a CUDA LibTorch. Exit code when one is missing.
std::optional<int> check_environment(const Options& opt) {
  try {
    reports::check_writable(opt.output_dir);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: " << e.what() << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }
  std::string why;
  if (cuda_device_count(&why) == 0) {
    std::cerr << "bench_ops: no usable CUDA GPU (" << why
              << ").\nRun on a machine with an NVIDIA GPU and driver; check with nvidia-smi. "
                 "(--list-ops, --list-sizes and --help work without one.)\n";
    return kExitNoGpu;
  }
  if (!reference::torch_has_cuda()) {
    std::cerr << "bench_ops: built against LibTorch " << reference::torch_version()
              << " without CUDA: the CUDA references need a CUDA LibTorch.\nReconfigure with "
                 "-DTorch_DIR=$(python3 -c 'import torch,os; print(os.path.join(torch.utils.cmake_prefix_path, \"Torch\"))') "
                 "(a CUDA PyTorch) and rebuild.\n";
    return kExitNoCudaTorch;
  }
  return std::nullopt;
}

RunContext describe(const Options& opt, const Registry& reg, const std::vector<Problem>& problems,
                    TimingResources& timing, cudaStream_t stream) {
  RunContext ctx = settings_context(opt);
  ctx.device_timer = device_timer_name(timing.device_timer());
  ctx.device_timer_text = timing.device_timer_text();
  ctx.device = query_device();
  ctx.device.measured_copy_gbps = measure_copy_gbps(timing, stream);
  ctx.device.roof_curve = measure_roofs_at(roof_curve_sizes(timing), timing, stream);
  // The curve closes at the roofs' own size: its read point there is the read roof (measure_read_gbps's).
  ctx.device.measured_read_gbps = ctx.device.roof_curve.back().read_gbps;
  ctx.device.measured_write_gbps = ctx.device.roof_curve.back().write_gbps;  // and its write point the write roof
  std::vector<DType> dtypes;
  for (const Problem& p : problems)
    if (std::find(dtypes.begin(), dtypes.end(), p.dtype) == dtypes.end()) dtypes.push_back(p.dtype);
  ctx.device.measured_gemm = measure_gemm_roofs(reg, dtypes, opt.settings, opt.timing, timing, stream);
  ctx.device.cublas_version = reference::cublas_version();
  ctx.device.cudnn_version = reference::cudnn_version();
  ctx.device.torch_version = reference::torch_version();
  for (const Problem& p : problems)
    if (!p.op->model.empty() && !ctx.model)
      if (const ModelConfig* m = find_model(p.op->model)) ctx.model = *m;
  return ctx;
}

// --benchmark_repetitions=N: every repetition is kept; a problem's result is then measured over the
// samples of all of them (median and quartiles of the pooled samples), so no repetition wins alone.
TimeStats pooled(const std::vector<const TimeStats*>& sets, bool outlier_filter) {
  std::vector<double> all;
  int throttled = 0, remeasured = 0;
  double clock_sum = 0;
  for (const TimeStats* t : sets) {
    all.insert(all.end(), t->samples_ms.begin(), t->samples_ms.end());
    throttled += t->throttled_samples;
    remeasured += t->remeasured;
    clock_sum += t->sm_clock_mhz;
  }
  TimeStats st = compute_stats(std::move(all), outlier_filter);
  st.throttled_samples = throttled;
  st.remeasured = remeasured;
  st.sm_clock_mhz = clock_sum / double(sets.size());
  st.stop_reason = fmt::format("{} repetitions pooled", sets.size());
  bool reliable = true;
  for (const TimeStats* t : sets) reliable = reliable && t->reliable;
  st.reliable = reliable;
  return st;
}

ProblemResult merge_repetitions(std::vector<ProblemResult> reps, bool outlier_filter) {
  ProblemResult out = reps.back();
  if (reps.size() == 1) return out;
  out.wall_ms = 0;
  for (const ProblemResult& r : reps) out.wall_ms += r.wall_ms;
  for (ImplResult& row : out.impls) {
    auto pool = [&](std::optional<TimeStats> ImplResult::*mode) {
      std::vector<const TimeStats*> sets;
      for (const ProblemResult& r : reps)
        if (const ImplResult* x = r.find(row.impl); x && x->status == Status::ok && (x->*mode)) sets.push_back(&*(x->*mode));
      if (sets.size() == reps.size()) row.*mode = pooled(sets, outlier_filter);
    };
    pool(&ImplResult::pure);
    pool(&ImplResult::real);
    pool(&ImplResult::graph);
    // A repetition that failed or was incorrect marks the result, whatever the last one said.
    for (const ProblemResult& r : reps)
      if (const ImplResult* x = r.find(row.impl); x && x->status != Status::ok && row.status == Status::ok) {
        row.status = x->status;
        row.message = x->message;
        row.verify = x->verify;
      }
  }
  return out;
}

int repetitions_of(const std::vector<std::string>& gb_args) {
  for (const std::string& a : gb_args)
    if (a.rfind("--benchmark_repetitions=", 0) == 0) return std::max(1, std::atoi(a.c_str() + 24));
  return 1;
}

// What a problem holds on the device at its peak, roughly: its inputs with their fp64 copies for the
// oracle, and each output three times over (framework, LibTorch, a vendor) plus the oracle's fp64 one.
double device_footprint_bytes(const Problem& p) {
  const OpIO io = p.op->io(p.shape, p.dtype);
  double b = double(io.workspace_bytes);
  for (const TensorSpec& t : io.inputs) b += double(numel(t.shape)) * double(dtype_size(t.dtype) + 8);
  for (const TensorSpec& t : io.outputs) b += double(numel(t.shape)) * double(3 * dtype_size(t.dtype) + 8);
  return b;
}

// Sweep points that would not fit in this GPU's free memory are skipped with the reason (the default
// grid's corner, 128 x 2048 x 4096, is 1 G elements a tensor); other problems that run out of memory are
// reported failed, as any failing op. Exit code when nothing is left.
std::optional<int> drop_oversized_sweep_points(std::vector<Problem>& problems) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return std::nullopt;
  const double budget = 0.8 * double(free_b);
  std::vector<Problem> kept;
  int skipped = 0;
  for (Problem& p : problems) {
    const double need = p.sweep ? device_footprint_bytes(p) : 0;
    if (need <= budget) {
      kept.push_back(std::move(p));
      continue;
    }
    if (++skipped <= 8)
      std::cerr << fmt::format("bench_ops: skipping {}: it needs about {:.1f} GB of device memory, {:.1f} GB are free\n",
                               p.id(), need / 1e9, double(free_b) / 1e9);
  }
  if (skipped > 8) std::cerr << "bench_ops: ... and " << skipped - 8 << " more sweep points too large for this GPU\n";
  problems = std::move(kept);
  if (problems.empty()) {
    std::cerr << "bench_ops: no sweep point fits in this GPU's memory; choose smaller --sweep values\n";
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace

int run_session(const Options& opt, const Registry& reg) {
  std::vector<Problem> problems;
  if (auto code = select(opt, reg, problems)) return *code;
  // Several GPUs and nodes (src/dist): this process's share of the problems, its GPU, or its workers.
  dist::Role role;
  if (auto code = dist::Role::resolve(opt, dist::process_env(), problems, role)) return *code;
  if (auto code = check_environment(opt)) return *code;
  if (auto code = role.bind_device()) return *code;
  if (auto code = role.dispatch(opt, problems)) return *code;
  if (auto code = drop_oversized_sweep_points(problems)) return *code;

  reference::set_torch_tf32(opt.settings.tf32);
  cudaStream_t stream = nullptr;
  OPBENCH_CUDA_CHECK(cudaStreamCreate(&stream));  // blocking: ordered with LibTorch's legacy default stream
  // --profile times nothing itself and runs under ncu or nsys, which hold CUPTI: no trace of ours.
  TimingResources timing_resources(opt.profile ? DeviceTimer::events : opt.timing.device_timer);

  RunResults results;
  results.context = describe(opt, reg, problems, timing_resources, stream);
  results.context.repetitions = repetitions_of(opt.benchmark_args);
  role.on_context(results.context);
  PipelineConfig cfg;
  cfg.timing = opt.timing;
  cfg.settings = opt.settings;
  cfg.last = opt.profile ? PipelineStage::profile : PipelineStage::measure;
  ProblemPipeline pipeline(cfg, timing_resources, stream);

  std::map<std::string, std::vector<ProblemResult>> repetitions;
  const bool outlier_filter = opt.timing.outlier_filter;
  for (const Problem& p : problems) {
    const std::size_t index = std::size_t(&p - problems.data());
    benchmark::RegisterBenchmark(p.id().c_str(), [&, p, index](benchmark::State& state) {
      ProblemResult r;
      role.on_begin(p.id());
      const auto t0 = std::chrono::steady_clock::now();
      for (auto _ : state) {
        r = pipeline.run(p);
        const ImplResult* fw = r.find(ImplKind::framework);
        const double t = fw ? fw->time_ms() : 0;
        state.SetIterationTime(t > 0 ? t * 1e-3 : 0);
      }
      role.on_result(r, index, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (const ImplResult* th = r.find(ImplKind::torch)) state.counters["torch_ms"] = th->time_ms();
      if (const ImplResult* fw = r.find(ImplKind::framework)) {
        if (fw->time_ms() > 0) state.counters["GB/s"] = r.bytes / (fw->time_ms() * 1e-3) / 1e9;
        if (fw->status != Status::ok) state.SkipWithError((std::string(status_name(fw->status)) + ": " + fw->message).c_str());
      }
      auto& reps = repetitions[r.id()];
      reps.push_back(r);
      // The live reporter reads results.problems (in the order problems ran): keep the entry current
      // as repetitions arrive.
      ProblemResult merged = merge_repetitions(reps, outlier_filter);
      for (ProblemResult& slot : results.problems)
        if (slot.id() == merged.id()) {
          slot = merged;
          role.on_pooled(results.context, std::move(merged));
          return;
        }
      results.problems.push_back(merged);
      role.on_pooled(results.context, std::move(merged));
    })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }

  std::vector<std::string> gb_args = {"bench_ops"};
  for (const std::string& a : opt.benchmark_args) gb_args.push_back(a);
  std::vector<char*> gb_argv;
  for (std::string& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = int(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return kExitUsage;

  reports::LiveReporter reporter(results, std::cout);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  OPBENCH_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream));

  if (auto code = role.finish(opt, results)) return *code;  // a worker's journal, a rank's shard report
  if (results.problems.empty()) {
    std::cerr << "bench_ops: no problem ran (does --benchmark_filter match any?)\n";
    return kExitUsage;
  }
  // The report the live reporter built when the run ended: the console summary, the files and the exit
  // code all come from it.
  const reports::Report& report = reporter.report();
  if (opt.profile) {
    std::cout << "profiled " << results.problems.size() << " problems (no reports are written with --profile)\n";
    return reports::has_failures(report.summary) ? kExitFailures : kExitOk;
  }
  return write_run_reports(opt, report);
}

}  // namespace opbench
