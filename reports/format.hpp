// How numbers and names look in every report (live console, Markdown, index), so that one figure reads
// the same wherever it appears.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::reports {

inline constexpr const char* kDash = "—";  // a figure that does not exist for this row

std::string fmt_ms(double ms);                  // 0.00512, 0.0123, 1.234, 12.35, 123.5
std::string fmt_speedup(double s);              // "1.05x"
std::string fmt_pct(double p);                  // "55.9%"
std::string fmt_gbps(double g);                 // "1678.2"
std::string fmt_tflops(double t);               // "612.40"
std::string fmt_err(double e);                  // "1.20e-03"
// The optional forms print kDash when the figure is absent.
std::string fmt_speedup(std::optional<double> s);
std::string fmt_pct(std::optional<double> p);
std::string fmt_gbps(std::optional<double> g);
std::string fmt_tflops(std::optional<double> t);

std::string fmt_intensity(double flop_per_byte); // "0.25", "170.7", "2731"
std::string fmt_intensity(std::optional<double> i);

std::string arch_str(const DeviceInfo& d);       // "sm_90"
// How reports name an implementation: "framework", "LibTorch", "cuDNN", "cuBLAS".
const char* impl_label(ImplKind k);
std::string onoff(bool b);                       // "on" / "off"
// "add 4096x4096 fp16": how recommendations and the console name one problem.
std::string problem_label(const ProblemResult& p);
// The shape as reports print it; a --sweep problem adds its grid point ("8192x768 (b16 s512)"), since
// points of different batch and sequence length share a shape.
std::string shape_label(const ProblemResult& p);

// A Markdown table cell: '|' escaped, line breaks flattened, so that no text can break the table.
std::string md_cell(const std::string& text);
// A GitHub-flavoured Markdown table; `align` has one letter per column, 'l' or 'r'. Cells are escaped.
void write_md_table(std::ostream& os, const std::vector<std::string>& header, const std::string& align,
                    const std::vector<std::vector<std::string>>& rows);

}  // namespace opbench::reports
