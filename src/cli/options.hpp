// bench_ops's command line, parsed and validated. Errors a user can make (unknown op, category,
// size, dtype, malformed shape) exit with kExitUsage and a message naming the valid choices.
#pragma once
#include <string>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/registry.hpp"
#include "src/dist/dist_options.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

// Documented exit codes (README, --help).
enum ExitCode : int {
  kExitOk = 0,          // every result correct, nothing failed
  kExitFailures = 1,    // a result was incorrect or an op failed (reports still written)
  kExitUsage = 2,       // bad command line
  kExitNoGpu = 3,       // no usable CUDA device or driver
  kExitReportWrite = 4, // the reports could not be written (output directory not writable, disk full)
  kExitNoCudaTorch = 5, // bench_ops was built against a LibTorch without CUDA
};

// Which clocks a run reads (--timing), typed; TimingConfig's mode flags follow from it.
enum class TimingMode { pure, graph, real, both };
const char* timing_mode_name(TimingMode m);

struct Options {
  ProblemFilter filter;
  TimingConfig timing;
  TimingMode timing_mode = TimingMode::pure;
  RunSettings settings;              // --tf32
  bool profile = false;              // --profile: one launch of each implementation, in NVTX ranges
  std::string output_dir = "docs/benchmark";
  bool write_markdown = true;
  bool write_json = true;
  bool list_ops = false, list_categories = false, list_sizes = false;
  std::vector<std::string> benchmark_args;  // --benchmark_* flags, passed to Google Benchmark
  std::string command_line;
  dist::DistOptions dist;                   // several GPUs and nodes: --devices, --shard, --isolate, ...
  std::vector<std::string> args;            // argv[1..] as given (a --devices parent passes them to its workers)
};

struct ParseOutcome {
  bool exit_now = false;  // --help, a usage error
  int exit_code = 0;
};

// --sweep's KEY=LIST arguments over the default grid (keys batch, seq, dim; positive integers, duplicates
// dropped); `error` says what is wrong with them.
struct SweepParse {
  SweepGrid grid;
  std::string error;
  explicit operator bool() const { return error.empty(); }
};
SweepParse parse_sweep(const std::vector<std::string>& specs);

// Parses argv into `opt` against the registry (for op names). Prints help or the error itself.
ParseOutcome parse_options(int argc, char** argv, const Registry& reg, Options& opt);

void print_ops(const Registry& reg);
void print_categories(const Registry& reg);
void print_sizes();

}  // namespace opbench
