#include "reports/markdown.hpp"
#include "reports/model_section.hpp"
#include "reports/sweep_section.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "reports/fleet.hpp"
#include "reports/format.hpp"

namespace opbench::reports {
namespace {

// A long list buries the point: the first kMaxItems, then how many more the report holds.
constexpr std::size_t kMaxItems = 25;

std::string timing_text(const std::string& mode) {
  if (mode == "pure") return "pure: device time of one launch";
  if (mode == "graph") return "graph: time per launch of N launches replayed from a CUDA graph";
  if (mode == "real") return "real: host wall clock per call, launch + synchronize";
  if (mode == "both") return "both: pure (device time, the headline) and real (host wall clock)";
  return mode;
}

// The clock of device-time samples, by the timer's name when the report carries no text for it (reports
// that predate the timer field were timed by CUDA events).
std::string device_timer_text(const RunContext& c) {
  if (!c.device_timer_text.empty()) return c.device_timer_text;
  if (c.device_timer == "cupti") return "CUPTI activity timestamps of the launch's own work";
  if (c.device_timer == "cupti-stream")
    return "CUPTI activity timestamps, from the end of the harness work before the launch";
  return "CUDA events around the launch";
}

std::string l2_text(const std::string& mode) {
  if (mode == "cold") return "cold: L2 flushed before each timed call";
  if (mode == "warm") return "warm: operands may stay resident in L2 between calls";
  return mode;
}

std::string opt_or_dash(const std::string& s) { return s.empty() ? kDash : s; }

std::string bandwidth_text(double gbps, double theoretical, const char* what) {
  if (gbps <= 0) return "not measured";
  std::string s = fmt::format("{} GB/s ({})", fmt_gbps(gbps), what);
  if (theoretical > 0) s += fmt::format(" = {} of theoretical", fmt_pct(100 * gbps / theoretical));
  return s;
}

// The compute roof of one dtype: the measured GEMM where there is one, and the datasheet peak.
std::string compute_roof_text(const DeviceInfo& d, DType t, bool tf32) {
  std::string s;
  if (const GemmRoof* g = measured_gemm(d, t, tf32))
    s = fmt::format("measured GEMM {} TFLOP/s{}; ", fmt_tflops(g->tflops), g->how.empty() ? "" : " (" + g->how + ")");
  return s + "datasheet " + peak_basis_text(d, t, tf32);
}

// The sweeps at smaller sizes as shares of their roofs, at every power-of-two size measured (the JSON's
// roof_curve has them all).
std::string roof_curve_text(const DeviceInfo& d) {
  if (d.roof_curve.empty() || d.measured_read_gbps <= 0 || d.measured_copy_gbps <= 0) return "not measured";
  const bool writes = d.measured_write_gbps > 0;
  std::string s;
  for (const RoofPoint& p : d.roof_curve) {
    const double mb = p.bytes / 1e6, l = std::log2(mb);
    if (std::abs(l - std::round(l)) > 1e-6) continue;
    s += fmt::format("{}{:.0f} MB {:.0f}% / {:.0f}%", s.empty() ? "" : ", ", mb, 100 * p.read_gbps / d.measured_read_gbps,
                     100 * p.copy_gbps / d.measured_copy_gbps);
    if (writes) s += fmt::format(" / {:.0f}%", 100 * p.write_gbps / d.measured_write_gbps);
  }
  return std::string(writes ? "read / copy / write" : "read / copy") + " sweep at that size as % of its roof: " + s +
         " (clean cold L2, timed like the roofs; each memory-bound result's `pct_of_size_roof` in the JSON is "
         "against these, interpolated at its size)";
}

void write_system(const Report& report, std::ostream& os) {
  const RunContext& c = report.context();
  const DeviceInfo& d = c.device;
  std::vector<std::vector<std::string>> rows = {
      {"GPU", fmt::format("{} (device {}, {})", d.name, d.device, arch_str(d))},
      {"SMs", std::to_string(d.sm_count)},
      {"Max SM clock", fmt::format("{:.0f} MHz", d.sm_clock_mhz)},
      {"Max memory clock", fmt::format("{:.0f} MHz", d.mem_clock_mhz)},
      {"Memory bus", fmt::format("{}-bit", d.bus_width_bits)},
      {"L2 cache", fmt::format("{:.1f} MB", d.l2_mb)},
      {"Device memory", fmt::format("{:.1f} GB", d.memory_gb)},
      {"Theoretical bandwidth",
       fmt::format("{} GB/s = 2 × memory clock × bus width = 2 × {:.0f} MHz × {} bit / 8", fmt_gbps(d.theoretical_gbps),
                   d.mem_clock_mhz, d.bus_width_bits)},
      {"Measured copy bandwidth",
       bandwidth_text(d.measured_copy_gbps, d.theoretical_gbps, "device-to-device copy, bytes read + written")},
      {"Measured read bandwidth",
       bandwidth_text(d.measured_read_gbps, d.theoretical_gbps, "read-only sweep: the roof of ops that only read")},
      {"Measured write bandwidth",
       bandwidth_text(d.measured_write_gbps, d.theoretical_gbps, "store-only sweep: the roof of ops that only write")},
      {"Roofs by size", roof_curve_text(d)},
      {"Driver / CUDA runtime", fmt::format("{} / {}", opt_or_dash(d.driver_version), opt_or_dash(d.runtime_version))},
      {"cuBLAS / cuDNN / LibTorch", fmt::format("{} / {} / {}", opt_or_dash(d.cublas_version),
                                                opt_or_dash(d.cudnn_version), opt_or_dash(d.torch_version))},
      {"Command line", c.command_line.find('`') == std::string::npos ? "`" + c.command_line + "`" : c.command_line},
      {"Git commit", opt_or_dash(c.git_commit)},
      {"Timing", timing_text(c.timing_mode)},
      {"Device timer", device_timer_text(c)},
      {"L2", l2_text(c.l2_mode)},
      {"TF32", onoff(c.tf32)},
      {"Outlier filter", c.outlier_filter ? "on (IQR)" : "off"},
      {"Launch floor", fmt::format("results under {:.0f} µs are launch-bound", kLaunchFloorMs * 1000)},
  };
  // One compute roof per dtype among the problems that count FLOPs: what their % of peak and % of roof
  // are measured against.
  std::set<int> dtypes;
  for (const auto& p : report.rows.results->problems)
    if (p.flops > 0) dtypes.insert(int(p.dtype));
  for (int t : dtypes)
    rows.push_back({fmt::format("Compute roof ({})", dtype_name(DType(t))), compute_roof_text(d, DType(t), c.tf32)});
  os << "## System information\n\n";
  write_md_table(os, {"Property", "Value"}, "ll", rows);
}

void write_size_classes(const Summary& s, std::ostream& os) {
  os << "## Size-class breakdown\n\n"
     << "Efficiencies are means over the framework's correct, timed rows.\n\n";
  std::vector<std::vector<std::string>> sizes;
  for (const auto& c : s.size_classes)
    sizes.push_back({size_class_name(c.size_class), std::to_string(c.problems), std::to_string(c.compared),
                     fmt_speedup(c.geomean),
                     c.min_speedup ? fmt_speedup(*c.min_speedup) + " – " + fmt_speedup(*c.max_speedup) : kDash,
                     fmt_pct(c.avg_gpu_efficiency), fmt_pct(c.avg_copy_efficiency)});
  write_md_table(os, {"Size class", "Problems", "Compared", "Geomean", "Speedup range", "Avg % of theoretical",
                      "Avg % of measured copy"},
                 "lrrrrrr", sizes);
}

void write_ranked(const char* title, const std::vector<RankedRow>& rows, std::ostream& os) {
  os << "### " << title << "\n\n";
  if (rows.empty()) {
    os << "No problem was both correct and timed against LibTorch.\n\n";
    return;
  }
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RankedRow& r = rows[i];
    cells.push_back({std::to_string(i + 1), r.op, r.shape, r.dtype, size_class_name(r.size_class),
                     fmt_speedup(r.speedup), fmt_ms(r.framework_ms), fmt_ms(r.torch_ms),
                     fmt::format("{} {}", grade_symbol(r.grade), grade_name(r.grade))});
  }
  write_md_table(os, {"#", "Op", "Shape", "Dtype", "Size", "Speedup", "Framework ms", "LibTorch ms", "Grade"},
                 "rllllrrrl", cells);
}

void write_recommendations(const Summary& s, std::ostream& os) {
  os << "## Optimization recommendations\n\n";
  if (s.recommendations.empty()) {
    os << "None: no row is incorrect, failed, slower than " << fmt_speedup(goal_speedup())
       << " LibTorch, launch-bound, short of its memory roof at large sizes, a slow broadcast or unreliably "
          "timed.\n\n";
    return;
  }
  for (std::size_t i = 0; i < s.recommendations.size(); ++i) {
    const Recommendation& r = s.recommendations[i];
    os << "### " << i + 1 << ". " << r.title << "\n\n" << r.detail << "\n\n";
    for (std::size_t k = 0; k < r.items.size() && k < kMaxItems; ++k) os << "- " << r.items[k] << '\n';
    if (r.items.size() > kMaxItems)
      os << "- … and " << r.items.size() - kMaxItems << " more (see the detailed results)\n";
    os << '\n';
  }
}

std::string bounds_text(const BoundCounts& b) { return fmt::format("{} / {} / {}", b[0], b[1], b[2]); }

}  // namespace

void write_summary_table(const Summary& s, std::ostream& os) {
  std::vector<std::vector<std::string>> rows = {
      {"Problems", std::to_string(s.problems)},
      {"Framework correct", std::to_string(s.correct)},
      {"Framework incorrect", std::to_string(s.incorrect)},
      {"Framework failed", std::to_string(s.failed)},
      {"Framework not supported", std::to_string(s.not_supported)},
      {"Reference results incorrect (LibTorch, vendors)", std::to_string(s.reference_incorrect)},
      {"Reference results failed", std::to_string(s.reference_failed)},
      {"Reference results not supported (no fault)", std::to_string(s.reference_not_supported)},
      {"Compared with LibTorch (correct, both timed)", std::to_string(s.compared)},
      {"Geomean speedup vs LibTorch", fmt_speedup(s.geomean_speedup)},
      {"Faster than LibTorch (speedup > 1)", fmt::format("{} of {}", s.faster_than_torch, s.compared)},
      {"Bound: memory / compute / launch", bounds_text(s.bounds)},
  };
  for (Grade g : kAllGrades)
    rows.push_back({fmt::format("{} {}", grade_symbol(g), grade_name(g)), std::to_string(s.grades[int(g)])});
  write_md_table(os, {"Metric", "Value"}, "lr", rows);

  if (!s.reference_failures.empty()) {
    os << "Reference results that failed or were incorrect (they are not the framework's ❌; no speedup is "
          "reported against an incorrect or failed LibTorch):\n\n";
    for (std::size_t i = 0; i < s.reference_failures.size() && i < kMaxItems; ++i) {
      const ReferenceFailure& f = s.reference_failures[i];
      os << "- " << f.problem << " [" << impl_label(f.impl) << "]: " << status_name(f.status)
         << (f.detail.empty() ? "" : ": " + f.detail) << '\n';
    }
    if (s.reference_failures.size() > kMaxItems)
      os << "- … and " << s.reference_failures.size() - kMaxItems << " more (see the detailed results)\n";
    os << '\n';
  }

  os << "Grades compare the framework's speed with LibTorch's (speedup = LibTorch time / framework time); an "
        "incorrect result is always ❌:\n\n";
  for (Grade g : kAllGrades) {
    std::string name = grade_name(g);
    name[0] = char(name[0] - 'a' + 'A');
    os << "- " << grade_symbol(g) << " **" << name << " (" << grade_range(g) << ")**: the framework runs at "
       << grade_range(g) << " of LibTorch's speed" << (g == Grade::critical ? ", or its result is incorrect" : "")
       << '\n';
  }
  os << '\n';
}

void write_category_table(const Summary& s, std::ostream& os) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : s.categories) {
    std::vector<std::string> row = {category_name(c.category), std::to_string(c.problems), std::to_string(c.compared),
                                    fmt_speedup(c.geomean), fmt_speedup(c.min_speedup), fmt_speedup(c.max_speedup)};
    for (Grade g : kAllGrades) row.push_back(std::to_string(c.grades[int(g)]));
    row.insert(row.end(), {std::to_string(c.incorrect), std::to_string(c.failed), bounds_text(c.bounds),
                           fmt_pct(c.median_pct_of_roof)});
    rows.push_back(std::move(row));
  }
  write_md_table(os, {"Category", "Problems", "Compared", "Geomean", "Min", "Max", "🟢", "🟡", "🟠", "🔴", "❌",
                      "Incorrect", "Failed", "Bound m / c / l", "Median % of roof"},
                 "lrrrrrrrrrrrrrr", rows);
}

void write_charts(const ChartSet& charts, std::ostream& os) {
  os << "## Charts\n\n";
  if (!charts.drawn()) {
    os << "Charts skipped: " << charts.skipped << ".\n\n";
    return;
  }
  for (const Chart& c : charts.charts)
    os << "### " << c.title << "\n\n![" << c.title << "](" << charts.folder << '/' << c.file << ")\n\n"
       << c.caption << "\n\n";
}

void write_markdown(const Report& report, const ChartSet& charts, std::ostream& os) {
  const Summary& s = report.summary;
  os << "# opbench operation benchmark — " << report.context().timestamp << "\n\n";
  write_system(report, os);
  if (const auto fleet = fleet_table(*report.rows.results)) write_fleet_markdown(*fleet, os);
  os << "## Performance summary\n\n";
  write_summary_table(s, os);
  os << "## Category breakdown\n\n";
  write_category_table(s, os);
  write_sweep_markdown(report.rows, os);
  write_model_markdown(report.rows, os);
  write_size_classes(s, os);
  write_charts(charts, os);
  write_details(report, os);
  os << "## Top performers\n\n";
  write_ranked("Top 5 (fastest relative to LibTorch)", s.top, os);
  write_ranked("Bottom 5 (slowest relative to LibTorch)", s.bottom, os);
  write_recommendations(s, os);
}

}  // namespace opbench::reports
