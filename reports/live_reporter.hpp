// The console view of a run: the device once, then one aligned line per problem as Google Benchmark
// finishes it (its row, rows.hpp), then the run's summary. Each benchmark is one problem whose name is
// ProblemResult::id(); the runner has filled that problem into the RunResults before Google Benchmark
// reports it, so the line shows the harness's figures (LibTorch, framework and vendor medians), not
// Google Benchmark's timing. When Google Benchmark says the run is over (Finalize), the reporter builds
// the run's Report once and keeps it: the session writes the report files and decides the exit code
// (has_failures) from that same Report, so console, files and exit code agree.
// Plain text: no colour codes, so that piped output and log files read the same as a terminal.
#pragma once
#include <benchmark/benchmark.h>

#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "opbench/result.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {

class LiveReporter : public benchmark::BenchmarkReporter {
 public:
  LiveReporter(const RunResults& results, std::ostream& out);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // The Report Finalize built. Throws std::logic_error before Finalize.
  const Report& report() const;

 private:
  void print_problem(const ProblemResult& p);
  void print_header();

  const RunResults& results_;
  std::ostream& out_;
  std::set<std::string> printed_;  // a benchmark with repetitions reports several runs: one line each problem
  bool context_printed_ = false;
  std::size_t op_width_ = 18;
  std::optional<Report> report_;
};

// The run's summary as the console shows it (Finalize prints it).
void write_console_summary(const Summary& s, std::ostream& os);

}  // namespace opbench::reports
