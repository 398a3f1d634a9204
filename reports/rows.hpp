// The report row model: every figure a report shows for a (problem, implementation), derived once from
// the measured fields and read by the live console, the Markdown and JSON writers, the summary, the
// recommendations and (through the JSON) the charts. Nothing here is estimated; a figure whose inputs
// were not measured (no time, no bytes, an unknown architecture) is absent, never zero.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opbench/grade.hpp"
#include "opbench/result.hpp"
#include "reports/roofline.hpp"

namespace opbench::reports {

// An implementation's verdict: its status, made incorrect when its verification found mismatches.
Status verdict(const ImplResult& r);
// What explains a verdict other than ok, in one line: the message, and for an incorrect result what
// the fp64 oracle found ("12 elements beyond tolerance of the fp64 oracle (max abs err 3.1e-02); first:
// ..."). Empty when there is nothing to say.
std::string verdict_detail(const ImplResult& r);

// One implementation of one problem.
struct ImplRow {
  const ImplResult* result = nullptr;
  ImplKind impl = ImplKind::framework;
  Status verdict = Status::ok;
  double time_ms = 0;                         // 0: not timed
  std::optional<double> speedup;              // LibTorch time / this time (1 for LibTorch itself)
  std::string no_speedup;                     // why a timed row has no speedup ("LibTorch incorrect: ...")
  std::optional<double> gbps;                 // bytes / time
  std::optional<double> pct_of_theoretical;   // of DeviceInfo::theoretical_gbps
  std::optional<double> pct_of_copy;          // of DeviceInfo::measured_copy_gbps
  std::optional<double> tflops;               // flops / time (problems with flops only)
  std::optional<double> pct_of_peak;          // of the datasheet peak for the dtype
  std::optional<double> pct_of_roof;          // of the roof that bounds it (memory or compute, roofline.hpp)
  std::optional<double> pct_of_size_roof;     // memory-bound: of the memory roof at the problem's own size
  std::optional<double> inference_speed;      // calls per second: 1000 / time_ms
  std::optional<Bound> bound;                 // timed rows only: launch below the floor, else the roofline's
  std::optional<Grade> grade;                 // the framework row only: LibTorch is the baseline
  bool reliable = true;                       // every measured timing passed the reliability test
  bool timed() const { return time_ms > 0; }
};

// One problem: where it stands under the roofs, and a row per implementation.
struct ProblemRow {
  const ProblemResult* problem = nullptr;
  Placement placement;
  Status verdict = Status::failed;     // the framework's verdict; failed when it has no row
  std::vector<ImplRow> impls;          // one per problem->impls, in the same order
  std::optional<double> pct_of_vendor; // vendor time / framework time, both correct and timed

  const ImplRow* find(ImplKind k) const;
  const ImplRow* framework() const { return find(ImplKind::framework); }
  const ImplRow* torch() const { return find(ImplKind::torch); }
  const ImplRow* vendor() const;  // the first cuDNN or cuBLAS row
};

// The rows of a run, in the order of its problems. A view: it points into the RunResults it was built
// from, which must outlive it unchanged.
struct ReportRows {
  const RunResults* results = nullptr;
  std::vector<ProblemRow> problems;
  const RunContext& context() const { return results->context; }
};

ProblemRow build_row(const RunContext& c, const ProblemResult& p);
ReportRows build_rows(const RunResults& results);

}  // namespace opbench::reports
