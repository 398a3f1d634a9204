// Runs the selected problems through Google Benchmark: one benchmark per problem, in which the
// framework is checked against LibTorch and then every implementation is timed back to back.
#pragma once
#include <memory>

#include "opbench/registry.hpp"
#include "opbench/result.hpp"
#include "src/cli/options.hpp"

namespace opbench {

// Everything after parsing: GPU check, context, benchmarks, reports. Returns the exit code.
int run_benchmarks(const Options& opt, const Registry& reg);

// One problem, start to finish (the body of its Google Benchmark); never throws: failures are
// recorded in the result. Exposed for the GPU tests.
struct ProblemRunner {
  TimingConfig timing;
  bool tf32 = false;
  std::unique_ptr<TimingResources> timing_resources;  // made on the first timed problem, kept for the rest
  ProblemResult run(const Problem& p);
  // Correctness only (GPU tests): the gate on the problem's inputs, `misalign` elements off alignment.
  Verification verify(const Problem& p, int64_t misalign = 0);
};

}  // namespace opbench
