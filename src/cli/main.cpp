// bench_ops: parse the command line, then list or run. `bench_ops compare` and `bench_ops history` read
// and write reports only (src/compare).
#include <exception>
#include <iostream>
#include <string>

#include "src/cli/options.hpp"
#include "src/compare/compare_cli.hpp"
#include "src/dist/merge.hpp"
#include "src/run/session.hpp"

int main(int argc, char** argv) {
  using namespace opbench;
  if (argc > 1 && std::string(argv[1]) == "compare") return compare::main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "history") return compare::history_main(argc - 1, argv + 1);
  try {
    // Subcommands first: they have command lines of their own.
    if (argc > 1 && std::string(argv[1]) == "merge") return dist::merge_main(argc - 1, argv + 1);
    const Registry& reg = global_registry();
    Options opt;
    const ParseOutcome parsed = parse_options(argc, argv, reg, opt);
    if (parsed.exit_now) return parsed.exit_code;
    if (opt.list_ops || opt.list_categories || opt.list_sizes) {
      if (opt.list_categories) print_categories(reg);
      if (opt.list_sizes) print_sizes();
      if (opt.list_ops) print_ops(reg);
      return kExitOk;
    }
    return run_session(opt, reg);
  } catch (const std::exception& e) {
    std::cerr << "bench_ops: " << e.what() << "\n";
    return kExitFailures;
  }
}
