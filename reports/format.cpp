#include "reports/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace opbench::reports {

std::string fmt_ms(double ms) {
  // About four significant digits: enough to tell kernels apart, few enough to scan a column.
  const double a = std::fabs(ms);
  int decimals = 0;
  if (a < 0.01) decimals = 5;
  else if (a < 1) decimals = 4;
  else if (a < 10) decimals = 3;
  else if (a < 100) decimals = 2;
  else if (a < 1000) decimals = 1;
  return fmt::format("{:.{}f}", ms, decimals);
}

std::string fmt_speedup(double s) { return fmt::format("{:.2f}x", s); }
std::string fmt_pct(double p) { return fmt::format("{:.1f}%", p); }
std::string fmt_gbps(double g) { return fmt::format("{:.1f}", g); }
std::string fmt_tflops(double t) { return fmt::format("{:.2f}", t); }
std::string fmt_err(double e) { return fmt::format("{:.2e}", e); }

std::string fmt_speedup(std::optional<double> s) { return s ? fmt_speedup(*s) : kDash; }
std::string fmt_pct(std::optional<double> p) { return p ? fmt_pct(*p) : kDash; }
std::string fmt_gbps(std::optional<double> g) { return g ? fmt_gbps(*g) : kDash; }
std::string fmt_tflops(std::optional<double> t) { return t ? fmt_tflops(*t) : kDash; }

std::string fmt_intensity(double i) {
  // Intensities span 0.1 to 1000s of FLOP/B; three significant digits or so everywhere.
  const double a = std::fabs(i);
  return fmt::format("{:.{}f}", i, a < 10 ? 2 : a < 100 ? 1 : 0);
}
std::string fmt_intensity(std::optional<double> i) { return i ? fmt_intensity(*i) : kDash; }

const char* impl_label(ImplKind k) {
  switch (k) {
    case ImplKind::framework: return "framework";
    case ImplKind::torch: return "LibTorch";
    case ImplKind::cudnn: return "cuDNN";
    case ImplKind::cublas: return "cuBLAS";
  }
  return "?";
}

std::string arch_str(const DeviceInfo& d) { return fmt::format("sm_{}{}", d.compute_major, d.compute_minor); }
std::string onoff(bool b) { return b ? "on" : "off"; }

std::string shape_label(const ProblemResult& p) {
  if (!p.sweep) return shape_str(p.shape);
  return fmt::format("{} (b{} s{})", shape_str(p.shape), p.sweep->batch_size, p.sweep->sequence_length);
}

std::string problem_label(const ProblemResult& p) {
  return fmt::format("{} {} {}", p.op, shape_label(p), dtype_name(p.dtype));
}

std::string md_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else if (c != '\r') out += c;
  }
  return out;
}

void write_md_table(std::ostream& os, const std::vector<std::string>& header, const std::string& align,
                    const std::vector<std::vector<std::string>>& rows) {
  auto line = [&os](const std::vector<std::string>& cells) {
    os << '|';
    for (const auto& c : cells) os << ' ' << md_cell(c) << " |";
    os << '\n';
  };
  line(header);
  os << '|';
  for (std::size_t i = 0; i < header.size(); ++i) os << (i < align.size() && align[i] == 'r' ? "---:|" : ":---|");
  os << '\n';
  for (const auto& r : rows) line(r);
  os << '\n';
}

}  // namespace opbench::reports
