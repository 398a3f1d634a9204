// bench_ops starting itself once per GPU (--devices) or once per problem (--isolate): each worker runs
// a fixed list of problems on a fixed GPU and journals every result (journal.hpp); the parent waits,
// shows progress, and gathers the results into one RunResults. A worker that dies (a kernel fault, a
// signal) costs only the problem it was running: that problem is recorded as failed with the signal or
// exit status, and a new worker takes the rest of the list.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::dist {

// How to start a worker: `executable args... --device N --worker-problems FILE --worker-journal FILE
// --output-dir WORK_DIR`.
struct WorkerCommand {
  std::string executable;          // /proc/self/exe in bench_ops; a stand-in in the tests
  std::vector<std::string> args;   // the user's arguments less those only the parent acts on
};

// The user's arguments for a worker: drops the options the parent handles (--devices, --device, --shard,
// --isolate, --replicate, --balance-from, --output-dir, --format, --slow-gpu-margin) and Google
// Benchmark's --benchmark_out(_format) (every worker would write the same file), in both the
// "--opt value" and "--opt=value" forms.
std::vector<std::string> worker_args(const std::vector<std::string>& user_args);

// One problem a worker is to run. `placeholder` names it (op, category, shape, dtype, size class, bytes,
// flops, selection_index) for the failed result recorded if a worker dies on it.
struct WorkerTask {
  std::string id;
  ProblemResult placeholder;
};

// The problems one GPU runs, in order.
struct WorkerSlot {
  int device = 0;
  std::vector<WorkerTask> tasks;
};

struct WorkerSettings {
  bool isolate = false;             // a fresh worker for every problem
  std::string work_dir;             // where problem lists, journals and logs go (created; kept on a crash)
  std::ostream* progress = nullptr; // one line per finished problem, and what a crash cost
};

struct WorkerOutcome {
  std::vector<ProblemResult> problems;     // every result, the crashed problems as failed
  std::vector<RunContext> contexts;        // the context each slot's workers reported (slot order)
  std::vector<FleetGpu> gpus;              // one entry per distinct GPU that reported
  int crashes = 0;                         // workers that died
  std::optional<int> abort_exit_code;      // a worker's start-up failure that every worker would meet (2, 5)
  bool keep_work_dir = false;              // logs a user should read
};

// Runs the slots' workers concurrently and waits for them all. Throws std::runtime_error when a worker
// cannot be started at all (fork or exec failing, the work folder unwritable).
WorkerOutcome run_workers(const WorkerCommand& cmd, const std::vector<WorkerSlot>& slots, const WorkerSettings& s);

// "killed by signal 11 (SIGSEGV)", "exited with status 3": a wait status in words.
std::string describe_wait_status(int status);

}  // namespace opbench::dist
