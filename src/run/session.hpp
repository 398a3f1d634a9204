// A bench_ops run: select the problems, check the environment, describe the device, register one
// Google Benchmark per problem (each runs the problem pipeline), write the reports, and decide the exit
// code from the same summary the reports print.
#pragma once
#include "opbench/registry.hpp"
#include "src/cli/options.hpp"

namespace opbench {

// Everything after parsing. Returns the exit code (ExitCode).
int run_session(const Options& opt, const Registry& reg);

}  // namespace opbench
