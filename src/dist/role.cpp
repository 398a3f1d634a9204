#include "src/dist/role.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <set>

#include "reports/file_set.hpp"
#include "reports/json_writer.hpp"
#include "reports/report_files.hpp"
#include "reports/summary.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_info.hpp"
#include "src/dist/gpu_identity.hpp"
#include "src/dist/journal.hpp"
#include "src/dist/merge.hpp"
#include "src/dist/workers.hpp"
#include "src/run/build_info.hpp"
#include "src/run/context.hpp"
#include "src/run/output.hpp"

namespace fs = std::filesystem;

namespace opbench::dist {
namespace {

int usage(const std::string& msg) {
  std::cerr << "bench_ops: " << msg << "\n";
  return kExitUsage;
}

// What a report says of the run when no GPU was described in this process (an empty shard, a parent
// whose workers all failed to start).
RunContext base_context(const Options& opt) { return settings_context(opt); }

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find bench_ops's own executable (/proc/self/exe): " + ec.message());
  return p.string();
}

// The cost of each problem for the shard balance (shard.hpp); --balance-from supplies measured ones.
std::optional<int> problem_costs(const Options& opt, const std::vector<Problem>& problems, std::vector<double>& out) {
  std::vector<std::string> ids;
  std::vector<double> estimates;
  for (const Problem& p : problems) {
    ids.push_back(p.id());
    double bytes = 0, flops = 0;
    try {
      bytes = p.op->bytes ? p.op->bytes(p.shape, p.dtype) : 0;
      flops = p.op->flops ? p.op->flops(p.shape, p.dtype) : 0;
    } catch (const std::exception&) {
      // A shape the op rejects fails fast when it runs: the overhead alone is its cost.
    }
    estimates.push_back(estimate_problem_ms(bytes, flops, p.dtype));
  }
  std::map<std::string, double> measured;
  if (!opt.dist.balance_from.empty()) {
    try {
      measured = measured_costs(read_report(opt.dist.balance_from).results);
    } catch (const std::exception& e) {
      return usage(std::string("--balance-from: ") + e.what());
    }
  }
  out = blend_costs(ids, estimates, measured);
  return std::nullopt;
}

std::string list_text(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

Role::Role() = default;
Role::~Role() = default;
Role::Role(Role&&) noexcept = default;
Role& Role::operator=(Role&&) noexcept = default;

std::optional<int> Role::resolve(const Options& opt, const EnvLookup& env, std::vector<Problem>& problems, Role& r) {
  const DistOptions& d = opt.dist;
  r.replicate_ = d.replicate;
  r.margin_ = d.slow_gpu_margin;
  std::vector<int> all(problems.size());
  std::iota(all.begin(), all.end(), 0);

  if (d.is_worker()) {
    if (!d.device || d.worker_problems.empty())
      return usage("--worker-journal needs --device and --worker-problems (workers are started by bench_ops "
                   "--devices or --isolate, not by hand)");
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < problems.size(); ++i) index[problems[i].id()] = int(i);
    std::ifstream in(d.worker_problems);
    if (!in) return usage("cannot read the worker's problem list " + d.worker_problems);
    std::vector<Problem> mine;
    for (std::string id; std::getline(in, id);) {
      if (id.empty()) continue;
      const auto it = index.find(id);
      if (it == index.end())
        return usage(fmt::format("worker: {} is not in this selection (parent and worker run different builds?)", id));
      mine.push_back(problems[std::size_t(it->second)]);
      r.selection_.push_back(it->second);
    }
    problems = std::move(mine);
    r.kind_ = Kind::worker;
    r.device_ = *d.device;
    try {
      r.journal_ = std::make_unique<JournalWriter>(d.worker_journal);
    } catch (const std::exception& e) {
      std::cerr << "bench_ops: " << e.what() << "\n";
      return kExitReportWrite;
    }
    return std::nullopt;
  }

  try {
    r.launch_ = detect_launcher(env);
  } catch (const LauncherEnvError& e) {
    return usage(e.what());
  }
  if (!d.devices.empty() && d.device)
    return usage("--devices and --device exclude each other: --devices starts one worker per listed GPU, --device N "
                 "runs on GPU N in this process");
  if (opt.profile && (!d.devices.empty() || d.isolate || d.replicate))
    return usage("--profile runs in this process: drop --devices, --isolate and --replicate (--device N picks the GPU)");

  std::optional<ShardSpec> shard = d.shard;
  std::string launcher = "--shard";
  if (!shard && r.launch_) {
    shard = ShardSpec{r.launch_->rank, r.launch_->world_size};
    launcher = r.launch_->launcher;
  }
  if (d.replicate && d.devices.empty() && !shard)
    return usage("--replicate runs every problem on every GPU: name the GPUs with --devices all|0,1,..., or start one "
                 "process per GPU with torchrun, srun or mpirun");

  r.kind_ = !d.devices.empty() || d.isolate ? Kind::parent : shard ? Kind::rank : Kind::single;
  r.devices_ = d.devices.ids;
  r.devices_all_ = d.devices.all;
  if (d.device) r.device_ = *d.device, r.opt_device_given_ = true;

  std::vector<double> costs;
  const bool split_here = shard && shard->count > 1 && !d.replicate;
  const bool split_later = r.kind_ == Kind::parent && !d.replicate && (d.devices.all || d.devices.ids.size() > 1);
  if (split_here || split_later)
    if (auto code = problem_costs(opt, problems, costs)) return code;

  std::vector<std::size_t> keep(problems.size());
  std::iota(keep.begin(), keep.end(), 0);
  if (shard) {
    r.shard_ = ShardTag{shard->index, shard->count, launcher};
    if (split_here) {
      std::vector<CostItem> items;
      for (std::size_t i = 0; i < problems.size(); ++i) items.push_back({problems[i].id(), costs[i]});
      const std::vector<int> of = assign_shards(items, shard->count);
      keep.clear();
      for (std::size_t i = 0; i < problems.size(); ++i)
        if (of[i] == shard->index) keep.push_back(i);
    }
    const std::string who = r.launch_ && !d.shard ? fmt::format("{} rank {} of {} ({})", launcher, r.launch_->rank,
                                                                  r.launch_->world_size, r.launch_->variables)
                                                  : "--shard";
    std::cout << fmt::format("bench_ops: {}: shard {}/{}, {} of {} problems{}\n", who, shard->index, shard->count,
                             keep.size(), problems.size(), d.replicate ? " (replicated: every rank runs all)" : "");
  }
  std::vector<Problem> mine;
  for (std::size_t i : keep) {
    mine.push_back(problems[i]);
    r.selection_.push_back(all[i]);
    if (!costs.empty()) r.costs_.push_back(costs[i]);
  }
  problems = std::move(mine);
  return std::nullopt;
}

std::optional<int> Role::bind_device() {
  std::string why;
  const int visible = cuda_device_count(&why);
  auto check = [&](int d) -> std::optional<int> {
    if (d >= 0 && d < visible) return std::nullopt;
    return usage(fmt::format("GPU {} does not exist here: {} {} visible (0-{}). nvidia-smi -L lists them; "
                             "CUDA_VISIBLE_DEVICES restricts and renumbers them",
                             d, visible, visible == 1 ? "is" : "are", visible - 1));
  };
  if (kind_ == Kind::parent) {
    if (devices_all_) {
      devices_.resize(std::size_t(visible));
      std::iota(devices_.begin(), devices_.end(), 0);
    }
    if (devices_.empty()) {  // --isolate alone: one GPU, as a one-process run would use
      if (launch_ && !opt_device_given_) {
        try {
          device_ = device_for_local_rank(launch_->local_rank, visible);
        } catch (const LauncherEnvError& e) {
          return usage(e.what());
        }
      }
      devices_ = {device_};
    }
    for (int d : devices_)
      if (auto code = check(d)) return code;
    if (std::set<int>(devices_.begin(), devices_.end()).size() < devices_.size())
      std::cerr << "bench_ops: a GPU is listed more than once in --devices: its workers share it, and their timings "
                   "disturb each other\n";
    return std::nullopt;
  }
  if (kind_ == Kind::rank && launch_ && !opt_device_given_) {
    try {
      device_ = device_for_local_rank(launch_->local_rank, visible);
    } catch (const LauncherEnvError& e) {
      return usage(e.what());
    }
  }
  if (auto code = check(device_)) return code;
  OPBENCH_CUDA_CHECK(cudaSetDevice(device_));
  gpu_ = identify_gpu(device_);
  if (kind_ == Kind::rank) {
    const bool shared = launch_ && !opt_device_given_ && launch_->local_rank > 0 && visible == 1;
    std::cout << fmt::format("bench_ops: on GPU {} ({}, {}){}\n", device_, gpu_.name, gpu_.uuid,
                             shared ? ": the only one visible; if other ranks of this node see it too, their "
                                      "timings disturb each other"
                                    : "");
  }
  return std::nullopt;
}

std::optional<int> Role::dispatch(const Options& opt, const std::vector<Problem>& problems) {
  if (kind_ == Kind::parent) return run_parent(opt, problems);
  if (kind_ == Kind::rank && problems.empty() && !opt.profile) {
    // More ranks than problems: this one has none, and says so, so that the merge finds every shard.
    RunResults none;
    none.context = base_context(opt);
    none.context.shard = shard_;
    none.context.replicate = replicate_;
    none.context.slow_gpu_margin = margin_;
    return write_output(opt, none);
  }
  return std::nullopt;
}

void Role::on_context(RunContext& ctx) {
  FleetGpu g;
  g.id = gpu_;
  g.measured_copy_gbps = ctx.device.measured_copy_gbps;
  g.max_temperature_c = gpu_temperature_c(gpu_.uuid);
  ctx.gpus = {g};
  ctx.shard = shard_;
  ctx.replicate = replicate_;
  ctx.slow_gpu_margin = margin_;
  if (journal_) journal_->start(ctx);
}

void Role::on_begin(const std::string& id) {
  if (journal_) journal_->begin(id);
}

void Role::on_result(ProblemResult& r, std::size_t problem, double wall_ms) {
  r.gpu = gpu_;
  r.wall_ms = wall_ms;
  if (problem < selection_.size()) r.selection_index = selection_[problem];
}

void Role::on_pooled(RunContext& ctx, const ProblemResult& r) {
  if (!ctx.gpus.empty())
    if (const auto t = gpu_temperature_c(gpu_.uuid)) {
      auto& max_t = ctx.gpus.front().max_temperature_c;
      max_t = std::max(max_t.value_or(*t), *t);
    }
  if (journal_) journal_->done(ctx, r);
}

std::optional<int> Role::finish(const Options& opt, const RunResults& results) {
  if (kind_ == Kind::worker) {
    journal_->end();
    return reports::has_failures(reports::build_report(results).summary) ? kExitFailures : kExitOk;
  }
  if (kind_ == Kind::rank && !opt.profile) {
    RunResults copy = results;
    return write_output(opt, copy);
  }
  return std::nullopt;
}

int Role::write_output(const Options& opt, RunResults& results) {
  if (shard_.count == 0) return write_run_reports(opt, reports::build_report(results));
  const bool failures = reports::has_failures(reports::build_report(results).summary);
  try {
    const std::string path = write_shard_report(results, opt.output_dir);
    std::cout << "shard report: " << path << (failures ? " (it holds incorrect or failed results)" : "")
              << "\nWhen every rank has finished: bench_ops merge " << opt.output_dir << "\n";
    // A launcher takes a non-zero exit for a crash and stops the other ranks (torchrun, mpirun): a rank
    // whose report is written exits 0, and the merge's exit code says whether every result is correct.
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: could not write the shard report: " << e.what()
              << "\nChoose a writable directory with --output-dir DIR.\n";
    return kExitReportWrite;
  }
}

int Role::run_parent(const Options& opt, const std::vector<Problem>& problems) {
  const std::string started = utc_now("%Y-%m-%dT%H:%M:%SZ");
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<WorkerSlot> slots(devices_.size());
  for (std::size_t k = 0; k < slots.size(); ++k) slots[k].device = devices_[k];
  std::vector<int> slot_of(problems.size(), 0);
  if (!replicate_ && slots.size() > 1) {
    std::vector<CostItem> items;
    for (std::size_t i = 0; i < problems.size(); ++i) items.push_back({problems[i].id(), costs_[i]});
    slot_of = assign_shards(items, int(slots.size()));
  }
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Problem& p = problems[i];
    WorkerTask t;
    t.id = p.id();
    ProblemResult& ph = t.placeholder;
    ph.op = p.op->name, ph.category = p.op->category, ph.shape = p.shape, ph.size_class = p.size_class;
    ph.dtype = p.dtype, ph.selection_index = selection_[i];
    try {
      ph.bytes = p.op->bytes ? p.op->bytes(p.shape, p.dtype) : 0;
      ph.flops = p.op->flops ? p.op->flops(p.shape, p.dtype) : 0;
    } catch (const std::exception&) {
    }
    for (std::size_t k = 0; k < slots.size(); ++k)
      if (replicate_ || slots.size() == 1 || slot_of[i] == int(k)) slots[k].tasks.push_back(t);
  }

  std::string work_dir = (fs::temp_directory_path() / "opbench-workers-XXXXXX").string();
  if (!::mkdtemp(work_dir.data())) {
    std::cerr << "bench_ops: cannot create a folder for the workers under " << fs::temp_directory_path().string()
              << " (set TMPDIR to a writable folder)\n";
    return kExitReportWrite;
  }
  std::cout << fmt::format("bench_ops: {} problems on GPU{} {}{}{}; worker logs in {}\n", problems.size(),
                           devices_.size() == 1 ? "" : "s", list_text(devices_),
                           replicate_ ? ", every GPU runs every problem" : ", one worker per GPU",
                           opt.dist.isolate ? ", each problem in a fresh process" : "", work_dir);
  WorkerOutcome out;
  try {
    out = run_workers({self_executable(), worker_args(opt.args)}, slots, {opt.dist.isolate, work_dir, &std::cout});
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: " << e.what() << "\n";
    return kExitFailures;
  }
  if (out.abort_exit_code) {
    std::cerr << "bench_ops: the workers stopped before their first problem (exit " << *out.abort_exit_code
              << "); the messages above say why\n";
    return *out.abort_exit_code;
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << fmt::format("bench_ops: {} results from {} GPU{} in {:.1f} s{}\n", out.problems.size(), out.gpus.size(),
                           out.gpus.size() == 1 ? "" : "s", wall_s,
                           out.crashes ? fmt::format("; {} worker crash{} (logs kept in {})", out.crashes,
                                                     out.crashes == 1 ? "" : "es", work_dir)
                                       : "");
  if (!out.keep_work_dir) {
    reports::remove_tree(work_dir);
  }

  RunResults results;
  results.context = out.contexts.empty() ? base_context(opt) : out.contexts.front();
  results.context.command_line = opt.command_line;
  results.context.timestamp = started;
  results.context.gpus = out.gpus;
  results.context.shard = shard_;
  results.context.replicate = replicate_;
  results.context.slow_gpu_margin = margin_;
  results.problems = std::move(out.problems);
  order_by_selection(results.problems);
  if (results.problems.empty()) {
    std::cerr << "bench_ops: no problem ran (does --benchmark_filter match any?)\n";
    return kExitUsage;
  }
  return write_output(opt, results);
}

}  // namespace opbench::dist
