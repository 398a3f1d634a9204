// Writing a run's reports: the timestamped Markdown / JSON / charts set into --output-dir and the
// refreshed index, and the exit code that follows from the report (the session and the multi-GPU parent
// both end here).
#pragma once
#include "reports/summary.hpp"
#include "src/cli/options.hpp"

namespace opbench {

// kExitReportWrite (with the reason on stderr) when the files could not be written, else kExitFailures
// when the report holds an incorrect or failed result, else kExitOk.
int write_run_reports(const Options& opt, const reports::Report& report);

}  // namespace opbench
