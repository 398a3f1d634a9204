#include "reports/markdown.hpp"

#include <fmt/format.h>

#include <set>

#include "reports/fleet.hpp"
#include "reports/format.hpp"
#include "reports/metrics.hpp"

namespace opbench::reports {
namespace {

constexpr Grade kGrades[] = {Grade::excellent, Grade::good, Grade::fair, Grade::poor, Grade::critical};

std::string timing_text(const std::string& mode) {
  if (mode == "pure") return "pure: device time between CUDA events";
  if (mode == "real") return "real: host wall clock per call, launch + synchronize";
  if (mode == "both") return "both: pure (CUDA events, the headline) and real (host wall clock)";
  return mode;
}

std::string l2_text(const std::string& mode) {
  if (mode == "cold") return "cold: L2 flushed before each timed call";
  if (mode == "warm") return "warm: operands may stay resident in L2 between calls";
  return mode;
}

std::string opt_or_dash(const std::string& s) { return s.empty() ? kDash : s; }

void write_system(const RunResults& r, std::ostream& os) {
  const RunContext& c = r.context;
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
       d.theoretical_gbps > 0
           ? fmt::format("{} GB/s (device-to-device copy, bytes read + written) = {} of theoretical",
                         fmt_gbps(d.measured_copy_gbps), fmt_pct(100 * d.measured_copy_gbps / d.theoretical_gbps))
           : fmt::format("{} GB/s", fmt_gbps(d.measured_copy_gbps))},
      {"Driver / CUDA runtime", fmt::format("{} / {}", opt_or_dash(d.driver_version), opt_or_dash(d.runtime_version))},
      {"cuBLAS / cuDNN / LibTorch", fmt::format("{} / {} / {}", opt_or_dash(d.cublas_version),
                                                opt_or_dash(d.cudnn_version), opt_or_dash(d.torch_version))},
      {"Command line", c.command_line.find('`') == std::string::npos ? "`" + c.command_line + "`" : c.command_line},
      {"Git commit", opt_or_dash(c.git_commit)},
      {"Timing", timing_text(c.timing_mode)},
      {"L2", l2_text(c.l2_mode)},
      {"TF32", onoff(c.tf32)},
      {"Outlier filter", c.outlier_filter ? "on (IQR)" : "off"},
  };
  // One peak per dtype among the matmul rows: that is what their "% of peak" is measured against.
  std::set<int> dtypes;
  for (const auto& p : r.problems)
    if (p.category == Category::matmul) dtypes.insert(int(p.dtype));
  for (int t : dtypes)
    rows.push_back({fmt::format("Peak FLOP/s ({})", dtype_name(DType(t))), peak_basis_text(d, DType(t), c.tf32)});
  os << "## System information\n\n";
  write_md_table(os, {"Property", "Value"}, "ll", rows);
}

std::string time_cell(const ImplResult* r) {
  if (!r) return kDash;
  if (r->status == Status::failed || r->status == Status::not_supported) return status_name(r->status);
  if (r->time_ms() <= 0) return kDash;
  return fmt_ms(r->time_ms()) + (timing_reliable(*r) ? "" : " ⚠");
}

std::string vendor_cell(const ImplResult* v) {
  return v ? fmt::format("{} {}", impl_name(v->impl), time_cell(v)) : kDash;
}

// Status plus whatever explains a missing figure: the framework's message, a failed reference.
std::string status_cell(const ProblemResult& p) {
  const Status st = problem_status(p);
  const ImplResult* fw = p.find(ImplKind::framework);
  std::string s = st == Status::ok ? "ok" : st == Status::incorrect ? "❌ incorrect" : status_name(st);
  if (st != Status::ok && fw && !fw->message.empty()) s += ": " + fw->message;
  if (st == Status::incorrect && p.framework_verify().checked && !p.framework_verify().first_mismatch.empty())
    s += fmt::format(" ({})", p.framework_verify().first_mismatch);
  const ImplResult* t = p.find(ImplKind::torch);
  if (!t) s += "; no LibTorch row";
  else if (t->status != Status::ok) s += fmt::format("; LibTorch {}{}{}", status_name(t->status),
                                                     t->message.empty() ? "" : ": ", t->message);
  return s;
}

std::string grade_cell(const Metrics& m) {
  return m.grade ? fmt::format("{} {}", grade_symbol(*m.grade), grade_name(*m.grade)) : kDash;
}

std::string err_cell(const ProblemResult& p) { return p.framework_verify().checked ? fmt_err(p.framework_verify().max_abs_err) : kDash; }

void write_details(const RunResults& r, std::ostream& os) {
  const RunContext& c = r.context;
  const bool multi_gpu = c.gpus.size() > 1;
  std::vector<std::vector<std::string>> plain, matmul;
  for (const auto& p : r.problems) {
    const ImplResult* fw = p.find(ImplKind::framework);
    const ImplResult* vendor = vendor_row(p);
    const Metrics m = fw ? compute_metrics(c, p, *fw) : Metrics{};
    std::vector<std::string> row = {p.op, shape_str(p.shape), dtype_name(p.dtype), size_class_name(p.size_class),
                                    time_cell(p.find(ImplKind::torch)), time_cell(fw), vendor_cell(vendor),
                                    fmt_speedup(m.speedup)};
    if (p.category == Category::matmul) {
      std::optional<double> pct_vendor;
      if (vendor && vendor->status == Status::ok && vendor->time_ms() > 0 && m.timed())
        pct_vendor = 100 * vendor->time_ms() / m.time_ms;
      row.insert(row.end(), {fmt_tflops(m.tflops), fmt_pct(m.pct_of_peak), fmt_pct(pct_vendor),
                             fmt::format("{:.1f}", arithmetic_intensity(p)), bound_name(c, p)});
    } else {
      row.insert(row.end(), {fmt_gbps(m.throughput_gbps), fmt_pct(m.gpu_efficiency), fmt_pct(m.copy_efficiency)});
    }
    row.insert(row.end(), {grade_cell(m), err_cell(p), status_cell(p)});
    if (multi_gpu) row.insert(row.begin(), gpu_label(p.gpu));
    (p.category == Category::matmul ? matmul : plain).push_back(std::move(row));
  }
  // Several GPUs: a first column says which one measured each row.
  auto gpu_col = [&](std::vector<std::string> header, std::string align) {
    if (multi_gpu) header.insert(header.begin(), "GPU"), align.insert(align.begin(), 'l');
    return std::make_pair(header, align);
  };
  os << "## Detailed results\n\n"
     << "Times are medians in ms; ⚠ marks a timing whose spread failed the reliability test. "
        "Speedup = LibTorch time / framework time.\n\n";
  if (!plain.empty()) {
    const auto [header, align] =
        gpu_col({"Op", "Shape", "Dtype", "Size", "LibTorch ms", "Framework ms", "Vendor ms", "Speedup", "GB/s",
                 "% of theoretical", "% of measured copy", "Grade", "Max abs err", "Status"},
                "llllrrrrrrrlrl");
    write_md_table(os, header, align, plain);
  }
  if (!matmul.empty()) {
    os << "### Matmul\n\n"
       << "TFLOP/s against the dense peak in System information; % of vendor = vendor time / framework time. "
          "FLOP/B is the arithmetic intensity; a problem is compute-bound when it reaches the ridge point "
          "(peak FLOP/s / theoretical bandwidth).\n\n";
    const auto [header, align] =
        gpu_col({"Op", "Shape", "Dtype", "Size", "LibTorch ms", "Framework ms", "Vendor ms", "Speedup", "TFLOP/s",
                 "% of peak", "% of vendor", "FLOP/B", "Bound", "Grade", "Max abs err", "Status"},
                "llllrrrrrrrrllrl");
    write_md_table(os, header, align, matmul);
  }
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
    os << "None: no row is incorrect, failed, slower than " << fmt_speedup(kSlowSpeedup)
       << " LibTorch, launch-bound, short of bandwidth at large sizes, a slow broadcast or unreliably timed.\n\n";
    return;
  }
  for (std::size_t i = 0; i < s.recommendations.size(); ++i) {
    const Recommendation& r = s.recommendations[i];
    os << "### " << i + 1 << ". " << r.title << "\n\n" << r.detail << "\n\n";
    // A long list buries the point: the first kMaxItems, then how many more the detailed results hold.
    constexpr std::size_t kMaxItems = 25;
    for (std::size_t k = 0; k < r.items.size() && k < kMaxItems; ++k) os << "- " << r.items[k] << '\n';
    if (r.items.size() > kMaxItems)
      os << "- … and " << r.items.size() - kMaxItems << " more (see the detailed results)\n";
    os << '\n';
  }
}

}  // namespace

void write_summary_table(const Summary& s, std::ostream& os) {
  std::vector<std::vector<std::string>> rows = {
      {"Problems", std::to_string(s.problems)},
      {"Correct", std::to_string(s.correct)},
      {"Incorrect", std::to_string(s.incorrect)},
      {"Failed", std::to_string(s.failed)},
      {"Not supported", std::to_string(s.not_supported)},
      {"Compared with LibTorch (correct, both timed)", std::to_string(s.compared)},
      {"Geomean speedup vs LibTorch", fmt_speedup(s.geomean_speedup)},
      {"Faster than LibTorch (speedup > 1)", fmt::format("{} of {}", s.faster_than_torch, s.compared)},
  };
  for (Grade g : kGrades)
    rows.push_back({fmt::format("{} {}", grade_symbol(g), grade_name(g)), std::to_string(s.grades[int(g)])});
  write_md_table(os, {"Metric", "Value"}, "lr", rows);
  os << "Grades compare the framework's speed with LibTorch's (speedup = LibTorch time / framework time); an "
        "incorrect result is always ❌:\n\n";
  for (Grade g : kGrades) {
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
    for (Grade g : kGrades) row.push_back(std::to_string(c.grades[int(g)]));
    row.insert(row.end(), {std::to_string(c.incorrect), std::to_string(c.failed)});
    rows.push_back(std::move(row));
  }
  write_md_table(os, {"Category", "Problems", "Compared", "Geomean", "Min", "Max", "🟢", "🟡", "🟠", "🔴", "❌",
                      "Incorrect", "Failed"},
                 "lrrrrrrrrrrrr", rows);
}

void write_markdown(const RunResults& results, std::ostream& os) {
  const Summary s = summarize(results);
  os << "# opbench operation benchmark — " << results.context.timestamp << "\n\n";
  write_system(results, os);
  if (const auto fleet = fleet_table(results)) write_fleet_markdown(*fleet, os);
  os << "## Performance summary\n\n";
  write_summary_table(s, os);
  os << "## Category breakdown\n\n";
  write_category_table(s, os);

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

  write_details(results, os);
  os << "## Top performers\n\n";
  write_ranked("Top 5 (fastest relative to LibTorch)", s.top, os);
  write_ranked("Bottom 5 (slowest relative to LibTorch)", s.bottom, os);
  write_recommendations(s, os);
}

}  // namespace opbench::reports
