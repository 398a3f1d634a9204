#include "reports/live_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "reports/format.hpp"
#include "reports/rows.hpp"

namespace opbench::reports {
namespace {

constexpr const char* kNone = "-";  // ASCII, so that padding counts it as one column

std::string ms_or_none(const ImplRow* r) {
  if (!r) return kNone;
  if (!r->timed()) return r->verdict == Status::ok ? kNone : status_name(r->verdict);
  return fmt_ms(r->time_ms);
}

std::string ascii(const std::string& s) { return s == kDash ? kNone : s; }

// Every LibTorch or vendor verdict that is not ok, so that a failed reference is seen as it happens.
std::string reference_verdicts(const ProblemRow& row) {
  std::string s;
  for (const ImplRow& m : row.impls) {
    if (m.impl == ImplKind::framework || m.verdict == Status::ok) continue;
    const std::string detail = verdict_detail(*m.result);
    s += fmt::format("  ({} {}{}{})", impl_label(m.impl), status_name(m.verdict), detail.empty() ? "" : ": ", detail);
  }
  return s;
}

}  // namespace

LiveReporter::LiveReporter(const RunResults& results, std::ostream& out) : results_(results), out_(out) {
  SetOutputStream(&out);
  SetErrorStream(&out);
}

bool LiveReporter::ReportContext(const Context&) {
  if (context_printed_) return true;
  context_printed_ = true;
  const RunContext& c = results_.context;
  const DeviceInfo& d = c.device;
  out_ << fmt::format("Device:   {} (device {}, {}), {} SMs @ {:.0f} MHz, L2 {:.1f} MB, {:.1f} GB\n", d.name,
                      d.device, arch_str(d), d.sm_count, d.sm_clock_mhz, d.l2_mb, d.memory_gb)
       << fmt::format("Memory:   {}-bit @ {:.0f} MHz, theoretical {} GB/s (2 x clock x width), measured copy {} GB/s, "
                      "read {} GB/s, write {} GB/s\n",
                      d.bus_width_bits, d.mem_clock_mhz, fmt_gbps(d.theoretical_gbps), fmt_gbps(d.measured_copy_gbps),
                      d.measured_read_gbps > 0 ? fmt_gbps(d.measured_read_gbps) : kNone,
                      d.measured_write_gbps > 0 ? fmt_gbps(d.measured_write_gbps) : kNone)
       << fmt::format("Software: driver {}, runtime {}, cuBLAS {}, cuDNN {}, LibTorch {}\n", d.driver_version,
                      d.runtime_version, d.cublas_version, d.cudnn_version, d.torch_version)
       << fmt::format("Timing:   {} ({} timer), L2 {}, TF32 {}, outlier filter {}\n\n", c.timing_mode, c.device_timer,
                      c.l2_mode, onoff(c.tf32), onoff(c.outlier_filter));
  // Problems the runner listed up front set the op column; later, longer names just push the line.
  for (const auto& p : results_.problems) op_width_ = std::max(op_width_, std::min<std::size_t>(p.op.size(), 32));
  print_header();
  return true;
}

void LiveReporter::print_header() {
  out_ << fmt::format("{:<{}} {:<16} {:<5} {:>11} {:>12} {:>16} {:>8} {:>9} {:<7} {:>7}  {}\n", "op", op_width_,
                      "shape", "dtype", "LibTorch ms", "framework ms", "vendor ms", "speedup", "GB/s", "bound",
                      "% roof", "grade");
}

void LiveReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    // function_name is the name the benchmark was registered under, without /repeats:... suffixes.
    const std::string& id = run.run_name.function_name;
    if (!printed_.insert(id).second) continue;
    if (const ProblemResult* p = results_.find(id)) {
      print_problem(*p);
    } else {
      out_ << id << ": no result recorded" << (run.error_occurred ? "; " + run.error_message : std::string()) << '\n';
    }
  }
  out_.flush();
}

void LiveReporter::print_problem(const ProblemResult& p) {
  const ProblemRow row = build_row(results_.context, p);
  const ImplRow* fw = row.framework();
  const ImplResult* fw_result = p.find(ImplKind::framework);
  std::string line = fmt::format("{:<{}} {:<16} {:<5} ", p.op, op_width_, shape_label(p), dtype_name(p.dtype));

  if (row.verdict == Status::failed || row.verdict == Status::not_supported) {
    line += fmt::format("{}: {}", row.verdict == Status::failed ? "FAILED" : "NOT SUPPORTED",
                        fw_result ? fw_result->message : "no framework result");
  } else if (row.verdict == Status::incorrect) {
    const Verification& v = p.framework_verify();
    line += "INCORRECT:";
    if (v.checked)
      line += fmt::format(" max abs err {} (rel {}), {} mismatches", fmt_err(v.max_abs_err), fmt_err(v.max_rel_err),
                          v.mismatches);
    if (!v.first_mismatch.empty()) line += "; " + v.first_mismatch;
    if (!fw_result->message.empty()) line += "; " + fw_result->message;
  } else {
    const ImplRow* vendor = row.vendor();
    const std::string vcell = vendor ? fmt::format("{} {}", impl_label(vendor->impl), ms_or_none(vendor)) : kNone;
    line += fmt::format("{:>11} {:>12} {:>16} {:>8} {:>9} {:<7} {:>7}  {}", ms_or_none(row.torch()), ms_or_none(fw),
                        vcell, ascii(fmt_speedup(fw->speedup)), ascii(fmt_gbps(fw->gbps)),
                        fw->bound ? bound_name(*fw->bound) : kNone, ascii(fmt_pct(fw->pct_of_roof)),
                        fw->grade ? grade_symbol(*fw->grade) : kNone);
    if (fw->tflops && row.placement.roof_bound == Bound::compute)
      line += fmt::format("  {} TFLOP/s ({} of peak)", fmt_tflops(fw->tflops), ascii(fmt_pct(fw->pct_of_peak)));
    if (!fw_result->kernel.empty()) line += "  kernel " + fw_result->kernel;
    const ImplRow* torch = row.torch();
    if (!fw->reliable || (torch && !torch->reliable)) line += "  ⚠ unreliable timing";
  }
  line += reference_verdicts(row);
  out_ << line << '\n';
}

void write_console_summary(const Summary& s, std::ostream& os) {
  os << fmt::format("\nSummary: {} problems; framework {} correct, {} incorrect, {} failed, {} not supported\n",
                    s.problems, s.correct, s.incorrect, s.failed, s.not_supported)
     << fmt::format("References (LibTorch, vendors): {} incorrect, {} failed, {} not supported\n",
                    s.reference_incorrect, s.reference_failed, s.reference_not_supported);
  // The first few; the report lists them all.
  constexpr std::size_t kMaxListed = 10;
  for (std::size_t i = 0; i < s.reference_failures.size() && i < kMaxListed; ++i) {
    const ReferenceFailure& f = s.reference_failures[i];
    os << fmt::format("  {} [{}]: {}{}{}\n", f.problem, impl_label(f.impl), status_name(f.status),
                      f.detail.empty() ? "" : ": ", f.detail);
  }
  if (s.reference_failures.size() > kMaxListed)
    os << fmt::format("  ... and {} more (see the report)\n", s.reference_failures.size() - kMaxListed);
  os << fmt::format("Geomean speedup vs LibTorch: {} over {} compared problems ({} faster than LibTorch)\n",
                    ascii(fmt_speedup(s.geomean_speedup)), s.compared, s.faster_than_torch)
     << fmt::format("Bound: {} memory, {} compute, {} launch\n", s.bounds[int(Bound::memory)],
                    s.bounds[int(Bound::compute)], s.bounds[int(Bound::launch)])
     << "Grades:";
  for (Grade g : kAllGrades) os << fmt::format("  {} {} {}", grade_symbol(g), grade_name(g), s.grades[int(g)]);
  os << '\n';
}

void LiveReporter::Finalize() {
  report_ = build_report(results_);
  write_console_summary(report_->summary, out_);
  out_.flush();
}

const Report& LiveReporter::report() const {
  if (!report_) throw std::logic_error("LiveReporter::report() before Google Benchmark finished the run");
  return *report_;
}

}  // namespace opbench::reports
