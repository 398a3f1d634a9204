// The console view of a run: the device once, then one aligned line per problem as Google Benchmark
// finishes it, then the run's summary. Each benchmark is one problem whose name is ProblemResult::id();
// the runner has filled that problem into the RunResults before Google Benchmark reports it, so the line
// shows the harness's figures (LibTorch, framework and vendor medians), not Google Benchmark's timing.
// Plain text: no colour codes, so that piped output and log files read the same as a terminal.
#pragma once
#include <benchmark/benchmark.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::reports {

class LiveReporter : public benchmark::BenchmarkReporter {
 public:
  LiveReporter(const RunResults& results, std::ostream& out);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  void print_problem(const ProblemResult& p);
  void print_header();

  const RunResults& results_;
  std::ostream& out_;
  std::set<std::string> printed_;  // a benchmark with repetitions reports several runs: one line each problem
  bool context_printed_ = false;
  std::size_t op_width_ = 18;
};

}  // namespace opbench::reports
