// What this bench_ops process is in a run over several GPUs and nodes, and the hooks through which the
// session (src/run/session.cpp) lets it act. Decided from the command line and the launcher's
// environment before any GPU work:
//
//   single  one process, one GPU (--device N, default 0): the usual run and reports
//   parent  --devices / --isolate: starts one worker per GPU (or per problem), merges their results,
//           writes the reports (or, under a launcher, its node's shard report); touches no GPU itself
//   worker  started by a parent: runs the listed problems on --device, journals every result
//   rank    started by torchrun / srun / mpirun, or given --shard i/n: runs its shard on its GPU and
//           writes shard-<i>-of-<n>.json into --output-dir for `bench_ops merge`
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opbench/registry.hpp"
#include "opbench/result.hpp"
#include "src/cli/options.hpp"
#include "src/dist/launcher_env.hpp"

namespace opbench::dist {

class JournalWriter;

class Role {
 public:
  enum class Kind { single, parent, worker, rank };

  Role();
  ~Role();
  Role(Role&&) noexcept;
  Role& operator=(Role&&) noexcept;

  // Checks the options together with the launcher's environment and keeps this process's share of
  // `problems` (its shard, or a worker's list). Prints the reason and returns the exit code on an error.
  static std::optional<int> resolve(const Options& opt, const EnvLookup& env, std::vector<Problem>& problems, Role& out);

  // After the GPU check: picks this process's GPU and makes it current (cudaSetDevice, before any other
  // CUDA call, so the context, LibTorch and the device description are all on it); a parent checks its
  // --devices. Exit code on an error.
  std::optional<int> bind_device();

  // Runs what does not run in this process (a parent's workers), or writes an empty shard report (a
  // rank with nothing to do). Returns the exit code when the session is to stop here.
  std::optional<int> dispatch(const Options& opt, const std::vector<Problem>& problems);

  // Hooks of the session's run, in order.
  void on_context(RunContext& ctx);                         // this GPU, the shard; a worker's journal start
  void on_begin(const std::string& id);                     // before each problem (each repetition)
  void on_result(ProblemResult& r, std::size_t problem, double wall_ms);  // stamps GPU, wall time, place
  void on_pooled(RunContext& ctx, const ProblemResult& r);  // after each repetition: temperature, journal
  // After the run: a worker ends its journal, a rank writes its shard report. Returns the exit code when
  // it wrote the output, nullopt when the session writes its usual reports.
  std::optional<int> finish(const Options& opt, const RunResults& results);

  Kind kind() const { return kind_; }
  int device() const { return device_; }

 private:
  int run_parent(const Options& opt, const std::vector<Problem>& problems);
  int write_output(const Options& opt, RunResults& results);

  Kind kind_ = Kind::single;
  std::optional<LaunchRank> launch_;
  ShardTag shard_;                 // count 0: not a shard
  bool replicate_ = false;
  double margin_ = 0.05;
  int device_ = 0;                 // single, worker, rank
  bool opt_device_given_ = false;  // --device N, which wins over a launcher's local rank
  std::vector<int> devices_;       // parent
  bool devices_all_ = false;
  std::vector<int> selection_;     // selection index of each kept problem
  std::vector<double> costs_;      // cost of each kept problem (the parent's split)
  GpuId gpu_;
  std::unique_ptr<JournalWriter> journal_;
};

}  // namespace opbench::dist
