// Two runs side by side: every result matched by (category, op, dtype, shape, implementation), a timing
// verdict per implementation, the speedup's change per problem, and what is missing on either side.
// The framework's time, LibTorch's time and the speedup are judged separately: "our kernel got
// slower" and "LibTorch got faster" are different news, though both lower the speedup.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "opbench/result.hpp"
#include "src/compare/verdict.hpp"

namespace opbench::compare {

// Bad input: an unreadable file, a report of another schema, reports from different devices or
// settings. The message names the file and the fix; bench_ops compare exits 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What happened to an implementation's outcome between the runs (outcome: ok, incorrect, failed).
enum class StatusChange {
  none,           // ok on both sides (timed and judged) or not ok on both sides
  broke,          // ok in the baseline, incorrect or failed now
  fixed,          // incorrect or failed in the baseline, ok now
  not_supported,  // the library declines the problem on one side or both: nothing to compare
};
const char* status_change_name(StatusChange s);

// The timing of one side, as the reports show it (no samples).
struct TimingBrief {
  double median_ms = 0, q1_ms = 0, q3_ms = 0, sm_clock_mhz = 0;
  int samples = 0;
  bool reliable = true;
};

struct ImplDelta {
  ImplKind impl = ImplKind::framework;
  Status baseline_status = Status::ok, current_status = Status::ok;
  StatusChange status_change = StatusChange::none;
  std::string message;                           // the current run's message (why it failed)
  std::optional<TimingBrief> baseline, current;  // present when that side was timed
  std::optional<TimingDelta> time;               // both sides ok and timed
  // A re-run of a flagged result (bench_ops compare --rerun): the baseline against the re-run.
  std::optional<TimingDelta> rerun_time;
  std::optional<Status> rerun_status;
  bool rerun_missing = false;  // flagged, but the re-run report does not have it
};

// The speedup (LibTorch time / framework time) between the runs, explained by the two time verdicts.
enum class SpeedupVerdict { same, better, worse, unsure };
const char* speedup_verdict_name(SpeedupVerdict v);

struct SpeedupDelta {
  double baseline = 0, current = 0;  // both present when compared
  SpeedupVerdict verdict = SpeedupVerdict::unsure;
  std::string why;  // "LibTorch got faster", "the framework got slower", or why unsure
  double ratio() const { return baseline > 0 ? current / baseline : 0; }
};

struct ProblemDelta {
  std::string id;  // "activation/relu/fp32/4096x4096": the Google Benchmark name
  std::string op;
  Category category;
  DType dtype = DType::f32;
  Shape shape;
  std::vector<ImplDelta> impls;          // implementations present on both sides
  std::vector<ImplKind> only_baseline, only_current;  // implementations present on one side
  std::optional<SpeedupDelta> speedup;   // framework and LibTorch timed on both sides

  const ImplDelta* find(ImplKind k) const;
  ImplDelta* find(ImplKind k);
};

struct RunInfo {
  std::string path;
  RunContext context;
};

struct Comparison {
  RunInfo baseline, current;
  // Further reports whose samples were pooled into the baseline's (pool_baselines, --baseline-pool).
  std::vector<RunInfo> baseline_pool;
  std::optional<RunInfo> rerun;
  Rule rule;
  bool ignore_device = false;
  std::vector<std::string> notes;           // context differences worth knowing (LibTorch version, ...)
  std::vector<ProblemDelta> problems;       // in the current run's order
  std::vector<std::string> only_baseline;   // problem ids missing from the current run
  std::vector<std::string> only_current;    // problem ids new in the current run
};

// Refuses (InputError) reports from different GPU models or drivers, unless ignore_device, and reports
// measured with different settings (timing mode, L2 mode, TF32), which time different things.
void check_comparable(const RunContext& baseline, const RunContext& current, bool ignore_device,
                      const std::string& baseline_name, const std::string& current_name);

// Matches the two runs and judges every result (check_comparable first).
Comparison compare_runs(const RunInfo& baseline_info, const RunResults& baseline, const RunInfo& current_info,
                        const RunResults& current, const Rule& rule, bool ignore_device);

// The framework results that look like regressions: slower, or broke. These are re-run.
bool is_flagged(const ImplDelta& d);
// A flagged result that still holds: without a re-run, every flagged one; with one, those the re-run
// confirms (still slower than the baseline, still broken, or missing from the re-run).
bool is_regression(const Comparison& c, const ImplDelta& d);
bool has_regression(const Comparison& c);
std::vector<std::string> flagged_ids(const Comparison& c);
std::vector<std::string> regression_ids(const Comparison& c);

// Judges the flagged framework results again, baseline against the re-run report (which must be
// comparable with the baseline: check_comparable). `baseline` is the run c was made from.
void apply_rerun(Comparison& c, const RunResults& baseline, const RunInfo& rerun_info, const RunResults& rerun);

// A Google Benchmark filter (bench_ops --benchmark_filter) that selects exactly these problems: an
// anchored alternation of their names, or of their "category/op/" prefixes when there are more than
// `max_names` (a very long alternation is slow to compile; re-running whole ops is the safe side).
std::string benchmark_filter(const std::vector<std::string>& problem_ids, std::size_t max_names = 300);

// Geometric-mean change per category over the problems timed on both sides.
struct CategoryChange {
  Category category;
  int problems = 0;                        // matched problems
  int framework_timed = 0;                 // framework timed on both sides
  std::optional<double> framework_ratio;   // geomean of current / baseline framework medians
  std::optional<double> torch_ratio;       // the same for LibTorch
  std::optional<double> speedup_ratio;     // geomean of current / baseline speedups
  int slower = 0, faster = 0, same = 0, unsure = 0, broke = 0, fixed = 0;  // framework verdicts
};
std::vector<CategoryChange> category_changes(const Comparison& c);  // categories present, in order
CategoryChange overall_change(const Comparison& c);                 // all problems together

}  // namespace opbench::compare
