// The --devices / --isolate parent with a stand-in worker (a shell script that journals prepared
// results, and dies by a signal on the problem it is told to): a crash costs only that problem, a new
// worker takes the rest, and start-up failures are told apart. No GPU needed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reports/file_set.hpp"
#include "src/dist/journal.hpp"
#include "src/dist/workers.hpp"

using namespace opbench;
using namespace opbench::dist;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "opbench-test-workers-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { opbench::reports::remove_tree(path.string()); }
};

std::string file_key(const std::string& id) {
  std::string k = id;
  for (char& c : k)
    if (c == '/') c = '_';
  return k;
}

ProblemResult result_of(const std::string& op, int selection, int device) {
  ProblemResult p;
  p.op = op, p.category = Category{"element"}, p.shape = {256, 256}, p.selection_index = selection;
  p.gpu = {"testhost", device, "NVIDIA H100 80GB HBM3", "GPU-0000000" + std::to_string(device)};
  ImplResult fw;
  fw.pure = TimeStats{};
  fw.pure->median_ms = 0.01, fw.pure->samples = 10;
  fw.verify.checked = fw.verify.correct = true;
  p.impls = {fw};
  return p;
}

// A stand-in for bench_ops as a worker: reads --device, --worker-problems and --worker-journal, journals
// the prepared "start" and per-problem "done" lines, and behaves as `mode` says:
//   crash_on=ID  dies by SIGSEGV after "begin" of ID, every time it meets ID
//   exit_code=N  exits N before its first problem
//   skip=ID      never begins ID (as --benchmark_filter would), ends normally
struct FakeWorker {
  TempDir dir;
  std::string script;
  std::vector<std::string> ids;

  FakeWorker(const std::vector<std::string>& ops, const std::string& mode) {
    const fs::path data = dir.path / "data";
    fs::create_directories(data);
    for (int d = 0; d < 4; ++d) {
      RunContext ctx;
      ctx.device.name = "NVIDIA H100 80GB HBM3";
      ctx.gpus = {FleetGpu{result_of("x", 0, d).gpu, 3000, 40.0 + d}};
      JournalWriter((data / ("start" + std::to_string(d) + ".jsonl")).string()).start(ctx);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const ProblemResult p = result_of(ops[i], int(i), d);
        if (d == 0) ids.push_back(p.id());
        JournalWriter((data / (file_key(p.id()) + "." + std::to_string(d) + ".jsonl")).string()).done(ctx, p);
      }
    }
    script = (dir.path / "fake_worker.sh").string();
    std::ofstream s(script);
    s << "#!/bin/bash\n"
      << "data='" << data.string() << "'\n" << mode << "\n"
      << R"(while [ $# -gt 0 ]; do
  case "$1" in
    --device) dev=$2; shift;;
    --worker-problems) list=$2; shift;;
    --worker-journal) journal=$2; shift;;
  esac
  shift
done
echo "fake worker on GPU $dev: $*"
[ -n "$exit_code" ] && { echo "cannot start" >&2; exit "$exit_code"; }
cat "$data/start$dev.jsonl" > "$journal"
while read -r id; do
  [ "$id" = "$skip" ] && continue
  printf '{"event":"begin","id":"%s"}\n' "$id" >> "$journal"
  if [ "$id" = "$crash_on" ]; then echo "faulting on $id"; kill -SEGV $$; fi
  cat "$data/$(echo "$id" | tr / _).$dev.jsonl" >> "$journal"
done < "$list"
echo '{"event":"end"}' >> "$journal"
)";
    s.close();
    ::chmod(script.c_str(), 0755);
  }

  std::vector<WorkerSlot> slots(const std::vector<int>& devices, bool replicate = false) const {
    std::vector<WorkerSlot> out;
    for (std::size_t k = 0; k < devices.size(); ++k) {
      WorkerSlot s;
      s.device = devices[k];
      for (std::size_t i = 0; i < ids.size(); ++i)
        if (replicate || i % devices.size() == k) {
          ProblemResult ph;
          ph.op = ids[i].substr(ids[i].find('/') + 1, ids[i].find('/', ids[i].find('/') + 1) - ids[i].find('/') - 1);
          ph.shape = {256, 256}, ph.selection_index = int(i);
          s.tasks.push_back({ids[i], ph});
        }
      out.push_back(std::move(s));
    }
    return out;
  }

  WorkerOutcome run(const std::vector<int>& devices, bool isolate, std::ostringstream& log, bool replicate = false) {
    return run_workers({script, {"--op", "x"}}, slots(devices, replicate),
                       {isolate, (dir.path / "work").string(), &log});
  }
};

const std::vector<std::string> kOps = {"add", "mul", "sub", "div", "exp", "log"};

const ProblemResult* find(const WorkerOutcome& o, const std::string& op) {
  for (const ProblemResult& p : o.problems)
    if (p.op == op) return &p;
  return nullptr;
}

}  // namespace

TEST(Workers, ArgumentsLessTheParentsOptions) {
  EXPECT_EQ(worker_args({"--op", "add", "--devices", "0,1", "--fast", "--output-dir=/x", "--isolate", "--shard", "1/2",
                         "--benchmark_filter=bf16", "--replicate", "--format", "md", "--balance-from", "r.json",
                         "--device=3", "--slow-gpu-margin", "5", "--benchmark_out=x.json", "--benchmark_out_format=json",
                         "--benchmark_repetitions=3", "--tf32"}),
            (std::vector<std::string>{"--op", "add", "--fast", "--benchmark_filter=bf16", "--benchmark_repetitions=3", "--tf32"}));
}

TEST(Workers, WaitStatusInWords) {
  EXPECT_EQ(describe_wait_status(SIGSEGV), "was killed by signal 11 (SIGSEGV)");  // WIFSIGNALED encoding
  EXPECT_EQ(describe_wait_status(3 << 8), "exited with status 3");
}

TEST(Workers, EveryResultFromTwoGpus) {
  FakeWorker w(kOps, "");
  std::ostringstream log;
  const WorkerOutcome o = w.run({0, 1}, false, log);
  EXPECT_EQ(o.problems.size(), kOps.size());
  EXPECT_EQ(o.crashes, 0);
  EXPECT_FALSE(o.keep_work_dir);
  ASSERT_EQ(o.gpus.size(), 2u);
  EXPECT_EQ(o.gpus[1].id.index, 1);
  EXPECT_EQ(o.gpus[1].max_temperature_c, 41.0);
  EXPECT_EQ(find(o, "mul")->gpu.index, 1);  // odd problems went to the second slot
  EXPECT_EQ(find(o, "add")->gpu.index, 0);
  EXPECT_NE(log.str().find("[GPU 1 3/3]"), std::string::npos) << log.str();
}

TEST(Workers, ACrashCostsOnlyItsProblem) {
  FakeWorker w(kOps, "crash_on=element/sub/fp32/256x256");
  std::ostringstream log;
  const WorkerOutcome o = w.run({0}, false, log);
  ASSERT_EQ(o.problems.size(), kOps.size()) << log.str();
  EXPECT_EQ(o.crashes, 1);
  EXPECT_TRUE(o.keep_work_dir);
  for (const std::string& op : kOps) {
    const ProblemResult* p = find(o, op);
    ASSERT_TRUE(p) << op;
    if (op == "sub") {
      ASSERT_EQ(p->impls.size(), 1u);
      EXPECT_EQ(p->impls[0].status, Status::failed);
      EXPECT_NE(p->impls[0].message.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << p->impls[0].message;
      EXPECT_EQ(p->gpu.index, 0);
      EXPECT_EQ(p->selection_index, 2);
    } else {
      EXPECT_EQ(p->impls[0].status, Status::ok) << op;  // the problems after it ran in a new worker
    }
  }
  EXPECT_NE(log.str().find("faulting on element/sub"), std::string::npos) << log.str();  // the log's tail
}

TEST(Workers, IsolateRunsEachProblemInItsOwnProcess) {
  FakeWorker w(kOps, "crash_on=element/exp/fp32/256x256");
  std::ostringstream log;
  const WorkerOutcome o = w.run({0, 2}, true, log);
  EXPECT_EQ(o.problems.size(), kOps.size());
  EXPECT_EQ(o.crashes, 1);
  int logs = 0;
  for (const auto& e : fs::directory_iterator(w.dir.path / "work")) logs += e.path().extension() == ".log";
  EXPECT_EQ(logs, int(kOps.size()));  // one worker per problem
  EXPECT_EQ(find(o, "exp")->impls[0].status, Status::failed);
  EXPECT_EQ(find(o, "log")->impls[0].status, Status::ok);
}

TEST(Workers, ReplicatedEveryGpuRunsEveryProblem) {
  FakeWorker w(kOps, "");
  std::ostringstream log;
  const WorkerOutcome o = w.run({0, 1, 3}, false, log, true);
  EXPECT_EQ(o.problems.size(), 3 * kOps.size());
  EXPECT_EQ(o.gpus.size(), 3u);
}

TEST(Workers, FilteredProblemsAreNotFailures) {
  FakeWorker w(kOps, "skip=element/div/fp32/256x256");
  std::ostringstream log;
  const WorkerOutcome o = w.run({0}, false, log);
  EXPECT_EQ(o.problems.size(), kOps.size() - 1);
  EXPECT_FALSE(find(o, "div"));
  EXPECT_EQ(o.crashes, 0);
}

TEST(Workers, StartUpFailures) {
  {
    // A bad command line (2) or a LibTorch without CUDA (5) would stop every worker: the run stops.
    FakeWorker w(kOps, "exit_code=2");
    std::ostringstream log;
    const WorkerOutcome o = w.run({0, 1}, false, log);
    EXPECT_EQ(o.abort_exit_code, 2);
  }
  {
    // Anything else is this GPU's: its problems fail with the reason, the run goes on.
    FakeWorker w(kOps, "exit_code=3");
    std::ostringstream log;
    const WorkerOutcome o = w.run({0}, false, log);
    EXPECT_FALSE(o.abort_exit_code);
    ASSERT_EQ(o.problems.size(), kOps.size());
    for (const ProblemResult& p : o.problems) {
      EXPECT_EQ(p.impls[0].status, Status::failed);
      EXPECT_NE(p.impls[0].message.find("exited with status 3 before running a problem"), std::string::npos);
    }
    EXPECT_NE(log.str().find("cannot start"), std::string::npos) << log.str();
  }
  EXPECT_THROW(run_workers({"/nonexistent/bench_ops", {}}, {}, {false, "/tmp/unused", nullptr}), std::runtime_error);
}
