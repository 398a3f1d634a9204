// Shared by the command-line tests: parse_options on a list of arguments, as main() gets them.
#pragma once
#include <string>
#include <vector>

#include "src/cli/options.hpp"

namespace opbench::testing_cli {

inline ParseOutcome parse(std::vector<std::string> args, Options& opt) {
  args.insert(args.begin(), "bench_ops");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_options(int(argv.size()), argv.data(), global_registry(), opt);
}

}  // namespace opbench::testing_cli
