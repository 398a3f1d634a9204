// Reading reports for a comparison, and choosing a baseline among the reports in folders
// (bench_ops compare --find-baseline, scripts/run.sh and scripts/nightly.sh --baseline latest).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::compare {

// Reads a bench_ops JSON report. Throws InputError naming the file: unreadable, not JSON, not an
// opbench report of the current schema (with the schema it has, and the fix).
RunResults load_report(const std::string& path);

struct BaselineChoice {
  std::string path;
  int shared = 0;  // problems it has in common with the current run
};

// The baseline for `current` among the ops_*.json reports in `dirs`: reports of the same GPU model and
// driver (any, with ignore_device) and the same settings (timing mode, L2 mode, TF32), other than the
// current run itself; of those, the one sharing the most problems with the current run, the newest on
// a tie. Unreadable reports and reports of another schema are skipped. nullopt when none qualifies.
std::optional<BaselineChoice> find_baseline(const std::vector<std::string>& dirs, const RunResults& current,
                                            const std::string& current_path, bool ignore_device);

}  // namespace opbench::compare
