// Charts of a report, drawn by scripts/plots/plot_report.py (matplotlib, Agg backend) from the report's
// JSON, as tritonbench, Liger-Kernel and nvbench draw theirs. This side only runs the script (no
// shell) and reads back the list of what it drew. A missing interpreter or plotting library, a failing
// script or a timeout never fails a run: the ChartSet then says why no charts were drawn, and the
// report prints that.
#pragma once
#include <string>
#include <vector>

namespace opbench::reports {

// The interpreter CMake found able to import matplotlib (else "python3"), and the script in this
// source tree: fixed at build time, so that a run does not depend on which python3 is first on PATH.
std::string default_python();
std::string default_plot_script();

// How charts are drawn; the caller (bench_ops, a test) chooses, nothing is read from the environment.
struct ChartSettings {
  bool enabled = true;
  std::string python = default_python();
  std::string script = default_plot_script();
  int timeout_s = 300;  // a first matplotlib import builds its font cache, which can take a while
};

struct Chart {
  std::string file;     // the PNG, relative to the chart folder
  std::string title;    // alt text
  std::string caption;  // what it shows, in a sentence
};

struct ChartSet {
  std::string folder;         // the chart folder, relative to the report that embeds it
  std::vector<Chart> charts;  // in the order the report shows them
  std::string skipped;        // why no charts were drawn; empty when they were
  bool drawn() const { return skipped.empty(); }
};

// Draws the charts of the report `json_path` into the existing folder `out_dir` (PNGs only are left
// there). folder is left empty for the caller to set.
ChartSet draw_report_charts(const std::string& json_path, const std::string& out_dir, const ChartSettings& s);

// Draws the trend of geomean speedup per category over the runs recorded in `history_path` (JSON
// lines), with a line at `goal` (goal_speedup()), into `out_dir`.
ChartSet draw_history_chart(const std::string& history_path, double goal, const std::string& out_dir,
                            const ChartSettings& s);

}  // namespace opbench::reports
