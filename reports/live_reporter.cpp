#include "reports/live_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/format.hpp"
#include "reports/metrics.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {
namespace {

constexpr const char* kNone = "-";  // ASCII, so that padding counts it as one column

std::string ms_or_none(const ImplResult* r) {
  if (!r) return kNone;
  if (r->status == Status::failed || r->status == Status::not_supported) return status_name(r->status);
  return r->time_ms() > 0 ? fmt_ms(r->time_ms()) : kNone;
}

std::string ascii(const std::string& s) { return s == kDash ? kNone : s; }

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
       << fmt::format("Memory:   {}-bit @ {:.0f} MHz, theoretical {} GB/s (2 x clock x width), measured copy {} GB/s\n",
                      d.bus_width_bits, d.mem_clock_mhz, fmt_gbps(d.theoretical_gbps), fmt_gbps(d.measured_copy_gbps))
       << fmt::format("Software: driver {}, runtime {}, cuBLAS {}, cuDNN {}, LibTorch {}\n", d.driver_version,
                      d.runtime_version, d.cublas_version, d.cudnn_version, d.torch_version)
       << fmt::format("Timing:   {}, L2 {}, TF32 {}, outlier filter {}\n\n", c.timing_mode, c.l2_mode, onoff(c.tf32),
                      onoff(c.outlier_filter));
  // Problems the runner listed up front set the op column; later, longer names just push the line.
  for (const auto& p : results_.problems) op_width_ = std::max(op_width_, std::min<std::size_t>(p.op.size(), 32));
  print_header();
  return true;
}

void LiveReporter::print_header() {
  out_ << fmt::format("{:<{}} {:<16} {:<5} {:>11} {:>12} {:>16} {:>8} {:>9} {:>7}  {}\n", "op", op_width_, "shape",
                      "dtype", "LibTorch ms", "framework ms", "vendor ms", "speedup", "GB/s", "% copy", "grade");
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
  const ImplResult* fw = p.find(ImplKind::framework);
  const ImplResult* torch = p.find(ImplKind::torch);
  const ImplResult* vendor = vendor_row(p);
  const Status status = problem_status(p);
  std::string line = fmt::format("{:<{}} {:<16} {:<5} ", p.op, op_width_, shape_str(p.shape), dtype_name(p.dtype));

  if (status == Status::failed || status == Status::not_supported) {
    line += fmt::format("{}: {}", status == Status::failed ? "FAILED" : "NOT SUPPORTED",
                        fw ? fw->message : "no framework result");
  } else if (status == Status::incorrect) {
    line += "INCORRECT:";
    if (p.framework_verify().checked)
      line += fmt::format(" max abs err {} (rel {}), {} mismatches", fmt_err(p.framework_verify().max_abs_err),
                          fmt_err(p.framework_verify().max_rel_err), p.framework_verify().mismatches);
    if (!p.framework_verify().first_mismatch.empty()) line += "; " + p.framework_verify().first_mismatch;
    if (fw && !fw->message.empty()) line += "; " + fw->message;
  } else {
    const Metrics m = compute_metrics(results_.context, p, *fw);
    const std::string vcell = vendor ? fmt::format("{} {}", impl_name(vendor->impl), ms_or_none(vendor)) : kNone;
    line += fmt::format("{:>11} {:>12} {:>16} {:>8} {:>9} {:>7}  {}", ms_or_none(torch), ms_or_none(fw), vcell,
                        ascii(fmt_speedup(m.speedup)), ascii(fmt_gbps(m.throughput_gbps)),
                        ascii(fmt_pct(m.copy_efficiency)), m.grade ? grade_symbol(*m.grade) : kNone);
    if (m.tflops && p.category == Category{"matmul"})
      line += fmt::format("  {} TFLOP/s ({} of peak)", fmt_tflops(m.tflops), ascii(fmt_pct(m.pct_of_peak)));
    const bool reliable = timing_reliable(*fw) && (!torch || timing_reliable(*torch));
    if (!reliable) line += "  ⚠ unreliable timing";
    if (torch && torch->status != Status::ok)
      line += fmt::format("  (LibTorch {}: {})", status_name(torch->status), torch->message);
  }
  out_ << line << '\n';
}

void LiveReporter::Finalize() {
  const Summary s = summarize(results_);
  out_ << fmt::format("\nSummary: {} problems, {} correct, {} incorrect, {} failed, {} not supported\n", s.problems,
                      s.correct, s.incorrect, s.failed, s.not_supported)
       << fmt::format("Geomean speedup vs LibTorch: {} over {} compared problems ({} faster than LibTorch)\n",
                      ascii(fmt_speedup(s.geomean_speedup)), s.compared, s.faster_than_torch)
       << "Grades:";
  for (int g = 0; g < 5; ++g) out_ << fmt::format("  {} {} {}", grade_symbol(Grade(g)), grade_name(Grade(g)), s.grades[g]);
  out_ << '\n';
  out_.flush();
}

}  // namespace opbench::reports
