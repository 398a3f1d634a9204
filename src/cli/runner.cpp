#include "src/cli/runner.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>

#include "reports/live_reporter.hpp"
#include "reports/report_files.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_info.hpp"
#include "src/core/problem_setup.hpp"
#include "src/reference/reference.hpp"
#include "src/verify/gate.hpp"

#ifndef OPBENCH_SOURCE_DIR
#define OPBENCH_SOURCE_DIR "."
#endif

namespace opbench {
namespace {

constexpr cudaStream_t kStream = nullptr;  // the legacy default stream: LibTorch's current stream too

uint64_t seed_for(const Problem& p) { return std::hash<std::string>{}(p.id()) | 1; }

Tolerance tolerance_for(const Problem& p, bool tf32) {
  if (tf32 && p.dtype == DType::f32 && p.op->tf32_tolerance) return p.op->tf32_tolerance(p.shape);
  return p.op->tolerance(p.shape, p.dtype);
}

Oracle oracle_for(const OpDef& op) {
  return [name = op.name](const Bindings& in, const std::vector<TensorView>& out) {
    reference::run_oracle(name, in, out);
  };
}

ImplResult failed(ImplKind k, Status st, const std::string& msg) {
  ImplResult r;
  r.impl = k;
  r.status = st;
  r.message = msg;
  return r;
}

// Runs f; turns what it throws into a failed (or not_supported) row.
template <class F>
ImplResult guarded(ImplKind k, F&& f) {
  try {
    return f();
  } catch (const NotSupported& e) {
    return failed(k, Status::not_supported, e.what());
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    return failed(k, Status::failed, e.what());
  }
}

std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, f)) out += buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// The commit the reports name: $OPBENCH_GIT_COMMIT when set (CI runners that build from an exported
// tree without .git set it), else `git rev-parse` in the source tree, "-dirty" with local changes.
std::string git_commit() {
  if (const char* env = std::getenv("OPBENCH_GIT_COMMIT"); env && *env) return env;
  const std::string dir = OPBENCH_SOURCE_DIR;
  std::string c = command_output("git -C '" + dir + "' rev-parse --short=12 HEAD 2>/dev/null");
  if (c.empty()) return "unknown";
  if (!command_output("git -C '" + dir + "' status --porcelain --untracked-files=no 2>/dev/null").empty())
    c += "-dirty";
  return c;
}

std::string utc_now(const char* fmt_str) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt_str, std::gmtime(&t));
  return buf;
}

}  // namespace

Verification ProblemRunner::verify(const Problem& p, int64_t misalign) {
  OpIO io = p.op->io(p.shape, p.dtype);
  io.params.set("tf32", tf32);
  ProblemSetup setup(io, seed_for(p), kStream, misalign);
  const Impl& fw = p.op->impls.at(0);
  const Impl* th = p.op->impl(ImplKind::torch);
  if (!th || !th->prepare) throw std::runtime_error(th ? th->missing : "no LibTorch reference");
  Prepared fwp = fw.prepare(setup.bindings(ImplKind::framework));
  Prepared thp = th->prepare(setup.bindings(ImplKind::torch));
  return check_correctness(tolerance_for(p, tf32), setup, fwp, thp, oracle_for(*p.op), kStream);
}

ProblemResult ProblemRunner::run(const Problem& p) {
  const OpDef& op = *p.op;
  ProblemResult res;
  res.op = op.name;
  res.category = op.category;
  res.shape = p.shape;
  res.size_class = p.size_class;
  res.dtype = p.dtype;

  std::unique_ptr<ProblemSetup> setup;
  try {
    OpIO io = op.io(p.shape, p.dtype);
    io.params.set("tf32", tf32);
    res.bytes = op.bytes(p.shape, p.dtype);
    res.flops = op.flops(p.shape, p.dtype);
    setup = std::make_unique<ProblemSetup>(io, seed_for(p), kStream);
  } catch (const std::invalid_argument& e) {
    res.impls.push_back(failed(ImplKind::framework, Status::failed, std::string("bad shape: ") + e.what()));
    return res;
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    for (const Impl& i : op.impls) res.impls.push_back(failed(i.kind, Status::failed, e.what()));
    return res;
  }
  const double operand_mb = double(setup->operand_bytes()) / (1 << 20);

  // Prepare the framework and LibTorch; the gate needs both.
  const Impl& fw_impl = op.impls.at(0);
  const Impl* th_impl = op.impl(ImplKind::torch);
  std::unique_ptr<Prepared> fw, th;
  ImplResult fw_row = guarded(ImplKind::framework, [&] {
    fw = std::make_unique<Prepared>(fw_impl.prepare(setup->bindings(ImplKind::framework)));
    return ImplResult{ImplKind::framework};
  });
  ImplResult th_row = guarded(ImplKind::torch, [&] {
    if (!th_impl || !th_impl->prepare) throw std::runtime_error(th_impl ? th_impl->missing : "no LibTorch reference");
    th = std::make_unique<Prepared>(th_impl->prepare(setup->bindings(ImplKind::torch)));
    return ImplResult{ImplKind::torch};
  });

  // Correctness before any timing.
  if (fw && th) {
    fw_row = guarded(ImplKind::framework, [&] {
      ImplResult r{ImplKind::framework};
      r.verify = check_correctness(tolerance_for(p, tf32), *setup, *fw, *th, oracle_for(op), kStream);
      if (!r.verify.correct) {
        r.status = Status::incorrect;
        r.message = fmt::format("{} elements beyond tolerance (atol {:g}, rtol {:g}); first: {}", r.verify.mismatches,
                                r.verify.tolerance.atol, r.verify.tolerance.rtol, r.verify.first_mismatch);
      }
      return r;
    });
  } else if (fw && fw_row.status == Status::ok) {
    fw_row = failed(ImplKind::framework, Status::failed, "not verified: LibTorch's reference did not run (" + th_row.message + ")");
  }

  // Vendor libraries: prepared and run once (a library that refuses the problem says so here).
  std::vector<ImplResult> vendor_rows;
  std::vector<std::unique_ptr<Prepared>> vendor_preps;
  for (const Impl& v : op.impls) {
    if (v.kind != ImplKind::cudnn && v.kind != ImplKind::cublas) continue;
    std::unique_ptr<Prepared> vp;
    vendor_rows.push_back(guarded(v.kind, [&] {
      vp = std::make_unique<Prepared>(v.prepare(setup->bindings(v.kind)));
      vp->launch(kStream);
      OPBENCH_CUDA_CHECK(cudaStreamSynchronize(kStream));
      return ImplResult{v.kind};
    }));
    vendor_preps.push_back(std::move(vp));
  }

  // Every implementation that is ready is timed, interleaved, then its memory is measured.
  std::vector<std::pair<ImplResult*, const Prepared*>> ready;
  if (fw && fw_row.status == Status::ok) ready.emplace_back(&fw_row, fw.get());
  if (th && th_row.status == Status::ok) ready.emplace_back(&th_row, th.get());
  for (std::size_t i = 0; i < vendor_rows.size(); ++i)
    if (vendor_preps[i] && vendor_rows[i].status == Status::ok) ready.emplace_back(&vendor_rows[i], vendor_preps[i].get());
  try {
    std::vector<Launch> launches;
    for (const auto& r : ready) launches.push_back(r.second->launch);
    if (!timing_resources) timing_resources = std::make_unique<TimingResources>();
    const std::vector<Measurement> m = measure(launches, timing, *timing_resources, kStream);
    for (std::size_t j = 0; j < ready.size(); ++j) {
      ImplResult& row = *ready[j].first;
      const Prepared& prep = *ready[j].second;
      row.pure = m[j].pure;
      row.real = m[j].real;
      row.graph = m[j].graph;
      row = guarded(row.impl, [&] {
        ImplResult r = row;
        double extra = double(prep.workspace_bytes);
        if (r.impl == ImplKind::framework) extra += double(setup->io().workspace_bytes);
        if (prep.uses_torch_allocator) extra += double(reference::torch_peak_extra_bytes(prep.launch, kStream));
        r.memory_mb = operand_mb + extra / (1 << 20);
        return r;
      });
    }
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    for (const auto& r : ready) *r.first = failed(r.first->impl, Status::failed, std::string("timing: ") + e.what());
  }
  res.impls.push_back(fw_row);
  res.impls.push_back(th_row);
  for (const ImplResult& r : vendor_rows) res.impls.push_back(r);
  setup.reset();
  reference::torch_empty_cache();
  return res;
}

int run_benchmarks(const Options& opt, const Registry& reg) {
  std::vector<Problem> problems;
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

  reference::set_torch_tf32(opt.tf32);

  RunResults results;
  RunContext& ctx = results.context;
  ctx.device = query_device();
  ctx.device.measured_copy_gbps = measure_copy_gbps();
  ctx.device.cublas_version = reference::cublas_version();
  ctx.device.cudnn_version = reference::cudnn_version();
  ctx.device.torch_version = reference::torch_version();
  ctx.command_line = opt.command_line;
  ctx.git_commit = git_commit();
  ctx.timestamp = utc_now("%Y-%m-%dT%H:%M:%SZ");
  ctx.timing_mode = opt.timing_mode;
  ctx.l2_mode = opt.l2_mode;
  ctx.tf32 = opt.tf32;
  ctx.outlier_filter = opt.timing.outlier_filter;

  ProblemRunner runner{opt.timing, opt.tf32};
  for (const Problem& p : problems) {
    benchmark::RegisterBenchmark(p.id().c_str(), [&runner, &results, p](benchmark::State& state) {
      ProblemResult r;
      for (auto _ : state) {
        r = runner.run(p);
        const ImplResult* fw = r.find(ImplKind::framework);
        const double t = fw ? fw->time_ms() : 0;
        state.SetIterationTime(t > 0 ? t * 1e-3 : 0);
      }
      if (const ImplResult* th = r.find(ImplKind::torch)) state.counters["torch_ms"] = th->time_ms();
      if (const ImplResult* fw = r.find(ImplKind::framework)) {
        if (fw->time_ms() > 0) state.counters["GB/s"] = r.bytes / (fw->time_ms() * 1e-3) / 1e9;
        if (fw->status != Status::ok) state.SkipWithError((std::string(status_name(fw->status)) + ": " + fw->message).c_str());
      }
      for (ProblemResult& existing : results.problems)
        if (existing.id() == r.id()) {
          existing = r;  // --benchmark_repetitions: keep the last
          return;
        }
      results.problems.push_back(std::move(r));
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

  if (results.problems.empty()) {
    std::cerr << "bench_ops: no problem ran (does --benchmark_filter match any?)\n";
    return kExitUsage;
  }
  try {
    const std::string stem = "ops_" + utc_now("%Y%m%d-%H%M%S");
    for (const std::string& path :
         reports::write_reports(results, opt.output_dir, opt.write_markdown, opt.write_json, stem))
      std::cout << "report: " << path << "\n";
    reports::refresh_index(opt.output_dir);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: could not write the reports: " << e.what()
              << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }

  bool bad = false;
  for (const ProblemResult& r : results.problems)
    for (const ImplResult& i : r.impls) bad = bad || i.status == Status::failed || i.status == Status::incorrect;
  return bad ? kExitFailures : kExitOk;
}

}  // namespace opbench
