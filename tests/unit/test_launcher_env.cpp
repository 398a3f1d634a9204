// The launcher's environment (torchrun, Open MPI, Slurm): which one started bench_ops, its rank and
// local rank, the GPU that follows, malformed values; and how the command line's --devices, --device,
// --shard and --replicate combine with it (every user error exits with code 2).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/cli/options.hpp"
#include "src/dist/launcher_env.hpp"
#include "src/dist/role.hpp"

using namespace opbench;
using namespace opbench::dist;

namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

const std::map<std::string, std::string> kTorchrun = {
    {"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}};
const std::map<std::string, std::string> kOpenMpi = {
    {"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}};
const std::map<std::string, std::string> kSrunStep = {
    {"SLURM_PROCID", "6"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "6"}, {"SLURM_STEP_NUM_TASKS", "16"}};
// What a batch script's own shell sees: rank variables, but no srun step.
const std::map<std::string, std::string> kSbatchShell = {
    {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "0"}, {"SLURM_JOB_ID", "1234"}};

std::map<std::string, std::string> with(std::map<std::string, std::string> a, const std::map<std::string, std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

ParseOutcome parse(std::vector<std::string> args, Options& opt) {
  args.insert(args.begin(), "bench_ops");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_options(int(argv.size()), argv.data(), global_registry(), opt);
}

// Parses, selects the problems and resolves the role as bench_ops does; returns the exit code or -1.
int resolve(std::vector<std::string> args, const FakeEnv& env, Role& role, std::vector<Problem>* kept = nullptr) {
  Options opt;
  const ParseOutcome r = parse(args, opt);
  if (r.exit_now) return r.exit_code;
  std::vector<Problem> problems = select_problems(global_registry(), opt.filter);
  const auto code = Role::resolve(opt, env.lookup(), problems, role);
  if (kept) *kept = problems;
  return code ? *code : -1;
}

}  // namespace

TEST(LauncherEnv, NoneWithoutVariables) {
  EXPECT_FALSE(detect_launcher(FakeEnv{}.lookup()));
}

TEST(LauncherEnv, Torchrun) {
  const auto r = detect_launcher(FakeEnv{kTorchrun}.lookup());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "torchrun");
  EXPECT_EQ(r->rank, 5);
  EXPECT_EQ(r->world_size, 8);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->variables, "RANK=5 WORLD_SIZE=8 LOCAL_RANK=1");
}

TEST(LauncherEnv, OpenMpi) {
  const auto r = detect_launcher(FakeEnv{kOpenMpi}.lookup());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "openmpi");
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world_size, 4);
  EXPECT_EQ(r->local_rank, 1);
}

TEST(LauncherEnv, SlurmOnlyInsideAnSrunStep) {
  const auto r = detect_launcher(FakeEnv{kSrunStep}.lookup());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "slurm");
  EXPECT_EQ(r->rank, 6);
  EXPECT_EQ(r->world_size, 16);
  EXPECT_EQ(r->local_rank, 6);
  EXPECT_FALSE(detect_launcher(FakeEnv{kSbatchShell}.lookup()));  // the batch script itself runs everything
}

TEST(LauncherEnv, PrecedenceTorchrunThenOpenMpiThenSlurm) {
  // srun starting torchrun: torchrun's RANK is the process's own.
  EXPECT_EQ(detect_launcher(FakeEnv{with(kTorchrun, kSrunStep)}.lookup())->launcher, "torchrun");
  // mpirun inside an allocation inherits the batch script's SLURM_* variables.
  EXPECT_EQ(detect_launcher(FakeEnv{with(kOpenMpi, kSbatchShell)}.lookup())->launcher, "openmpi");
  EXPECT_EQ(detect_launcher(FakeEnv{with(kOpenMpi, kSrunStep)}.lookup())->launcher, "openmpi");
}

TEST(LauncherEnv, MalformedOrInconsistentValuesAreErrors) {
  const std::vector<std::map<std::string, std::string>> bad = {
      {{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}},
      {{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}},
      {{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}},
      {{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"LOCAL_RANK", "0"}},
      {{"RANK", "1"}, {"LOCAL_RANK", "0"}},                       // no WORLD_SIZE
      {{"RANK", "1"}, {"WORLD_SIZE", "2"}},                       // no LOCAL_RANK
      {{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", ""}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}},
  };
  for (const auto& vars : bad) {
    try {
      detect_launcher(FakeEnv{vars}.lookup());
      ADD_FAILURE() << "accepted " << vars.begin()->first << "=" << vars.begin()->second;
    } catch (const LauncherEnvError& e) {
      EXPECT_FALSE(std::string(e.what()).empty());
    }
  }
  try {
    detect_launcher(FakeEnv{{{"RANK", "1"}, {"LOCAL_RANK", "0"}}}.lookup());
  } catch (const LauncherEnvError& e) {
    EXPECT_NE(std::string(e.what()).find("WORLD_SIZE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--shard"), std::string::npos) << e.what();  // the way out
  }
}

TEST(LauncherEnv, DeviceFollowsTheLocalRank) {
  EXPECT_EQ(device_for_local_rank(0, 8), 0);
  EXPECT_EQ(device_for_local_rank(7, 8), 7);
  EXPECT_EQ(device_for_local_rank(5, 1), 0);  // one GPU made visible per process (srun --gpus-per-task=1)
  EXPECT_THROW(device_for_local_rank(8, 8), LauncherEnvError);
  EXPECT_THROW(device_for_local_rank(2, 2), LauncherEnvError);
}

TEST(LauncherEnv, RolesFromCommandLineAndEnvironment) {
  Role role;
  EXPECT_EQ(resolve({"--op", "add", "--fast"}, {}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::single);
  EXPECT_EQ(resolve({"--op", "add", "--fast", "--devices", "0,1"}, {}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::parent);
  EXPECT_EQ(resolve({"--op", "add", "--fast", "--isolate"}, {}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::parent);
  EXPECT_EQ(resolve({"--op", "add", "--fast", "--shard", "1/2"}, {}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::rank);
  EXPECT_EQ(resolve({"--op", "add", "--fast"}, FakeEnv{kTorchrun}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::rank);
  // Under a launcher, --devices makes each rank (one per node) a parent of its node's GPUs.
  EXPECT_EQ(resolve({"--op", "add", "--fast", "--devices", "all"}, FakeEnv{kSrunStep}, role), -1);
  EXPECT_EQ(role.kind(), Role::Kind::parent);
}

TEST(LauncherEnv, ShardFromTheCommandLineWinsOverTheLauncher) {
  Role a, b;
  std::vector<Problem> by_env, by_flag;
  const FakeEnv two = {{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}}};
  ASSERT_EQ(resolve({"--op", "add,mul", "--fast"}, two, a, &by_env), -1);
  ASSERT_EQ(resolve({"--op", "add,mul", "--fast", "--shard", "0/2"}, two, b, &by_flag), -1);
  ASSERT_FALSE(by_env.empty());
  ASSERT_FALSE(by_flag.empty());
  for (const Problem& p : by_env)
    for (const Problem& q : by_flag) EXPECT_NE(p.id(), q.id());  // shards 1/2 and 0/2 do not overlap
  // --shard 0/1: the whole selection, whatever the launcher says.
  std::vector<Problem> whole;
  Role c;
  ASSERT_EQ(resolve({"--op", "add,mul", "--fast", "--shard", "0/1"}, two, c, &whole), -1);
  EXPECT_EQ(whole.size(), by_env.size() + by_flag.size());
}

TEST(LauncherEnv, ReplicatedRanksKeepEveryProblem) {
  Role role;
  std::vector<Problem> kept, all;
  ASSERT_EQ(resolve({"--op", "add", "--fast", "--replicate"}, FakeEnv{kOpenMpi}, role, &kept), -1);
  Role single;
  ASSERT_EQ(resolve({"--op", "add", "--fast"}, {}, single, &all), -1);
  EXPECT_EQ(kept.size(), all.size());
}

TEST(LauncherEnv, UsageErrorsExitWithCode2) {
  const std::vector<std::pair<std::vector<std::string>, FakeEnv>> bad = {
      {{"--op", "add", "--devices", "0,1", "--device", "1"}, {}},
      {{"--op", "add", "--replicate"}, {}},                         // one GPU: nothing to replicate on
      {{"--op", "add", "--devices", "all", "--profile"}, {}},
      {{"--op", "add", "--isolate", "--profile"}, {}},
      {{"--op", "add", "--devices", "0,x"}, {}},
      {{"--op", "add", "--devices", ""}, {}},
      {{"--op", "add", "--shard", "2/2"}, {}},
      {{"--op", "add", "--shard", "1"}, {}},
      {{"--op", "add", "--device", "-1"}, {}},
      {{"--op", "add", "--slow-gpu-margin", "150"}, {}},
      {{"--op", "add", "--balance-from", "/nonexistent/report.json", "--shard", "0/2"}, {}},
      {{"--op", "add"}, FakeEnv{{{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}}},
      {{"--op", "add", "--worker-journal", "/tmp/j.jsonl"}, {}},  // a worker needs --device and its list
  };
  for (const auto& [args, env] : bad) {
    Role role;
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(resolve(args, env, role), kExitUsage) << line;
  }
}

TEST(LauncherEnv, ParsesTheDistOptions) {
  Options opt;
  ASSERT_FALSE(parse({"--devices", "0,2", "--isolate", "--replicate", "--balance-from", "r.json", "--slow-gpu-margin",
                      "7.5", "--op", "add"},
                     opt)
                   .exit_now);
  EXPECT_EQ(opt.dist.devices.ids, (std::vector<int>{0, 2}));
  EXPECT_TRUE(opt.dist.isolate && opt.dist.replicate);
  EXPECT_EQ(opt.dist.balance_from, "r.json");
  EXPECT_DOUBLE_EQ(opt.dist.slow_gpu_margin, 0.075);
  EXPECT_EQ(opt.args.size(), 10u);  // as given, for the workers
  Options b;
  ASSERT_FALSE(parse({"--shard", "1/3", "--device", "2"}, b).exit_now);
  EXPECT_EQ(*b.dist.shard, (ShardSpec{1, 3}));
  EXPECT_EQ(*b.dist.device, 2);
}
