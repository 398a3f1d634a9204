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

// Pools into `base` the samples of `more`: further reports of the baseline's state (earlier nights that
// passed, other processes of the same build). A GPU kernel's median moves between processes by more than
// its samples spread within one (allocation addresses, the library's kernel choice: notes/methodology.md
// measured up to ~6% on kernels under 20 us), so one baseline process can be a lucky one; the pooled
// samples carry that spread, and a change must stand out from it to be judged (the rule in verdict.hpp
// runs unchanged on the pooled timing). Per result and timing mode, the samples of every report that
// timed it are concatenated and the statistics recomputed; the SM clock is the sample-weighted mean; a
// pooled timing is reliable when every part was. Results a pool report lacks keep the samples they have.
void pool_baselines(RunResults& base, const std::vector<RunResults>& more);

struct BaselineChoice {
  std::string path;
  int shared = 0;  // problems it has in common with the current run
};

// The baseline for `current` among the ops_*.json reports in `dirs`: reports of the same GPU model and
// driver (any, with ignore_device) and the same settings (timing mode, device timer, L2 mode, TF32), other than the
// current run itself; of those, the one sharing the most problems with the current run, the newest on
// a tie. Unreadable reports and reports of another schema are skipped. nullopt when none qualifies.
std::optional<BaselineChoice> find_baseline(const std::vector<std::string>& dirs, const RunResults& current,
                                            const std::string& current_path, bool ignore_device);

// The best `count` baselines, best first, by the same rule (most problems in common, then newest).
std::vector<BaselineChoice> find_baselines(const std::vector<std::string>& dirs, const RunResults& current,
                                           const std::string& current_path, bool ignore_device, int count);

}  // namespace opbench::compare
