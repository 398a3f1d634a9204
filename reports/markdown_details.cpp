// The detailed results of the Markdown report: one table per category, whose columns follow from its
// rows (bandwidth for memory-bound problems, TFLOP/s where some are compute-bound, the vendor and the
// framework's kernel where there are any), never from the category's name.
#include <fmt/format.h>

#include "reports/format.hpp"
#include "reports/markdown.hpp"

namespace opbench::reports {
namespace {

std::string time_cell(const ImplRow* r) {
  if (!r) return kDash;
  if (!r->timed()) return r->verdict == Status::ok ? kDash : status_name(r->verdict);
  return fmt_ms(r->time_ms) + (r->reliable ? "" : " ⚠");
}

std::string vendor_cell(const ImplRow* v) { return v ? fmt::format("{} {}", impl_label(v->impl), time_cell(v)) : kDash; }

std::string grade_cell(const ImplRow* fw) {
  return fw && fw->grade ? fmt::format("{} {}", grade_symbol(*fw->grade), grade_name(*fw->grade)) : kDash;
}

std::string bound_cell(const ImplRow* fw) { return fw && fw->bound ? bound_name(*fw->bound) : kDash; }

// The framework's verdict with what explains it, then every reference whose verdict is not ok: each
// implementation's verdict is visible in the row.
std::string status_cell(const ProblemRow& row) {
  const ProblemResult& p = *row.problem;
  const ImplResult* fw = p.find(ImplKind::framework);
  std::string s;
  switch (row.verdict) {
    case Status::ok: s = "ok"; break;
    case Status::incorrect: s = "❌ incorrect"; break;
    case Status::failed: s = "failed"; break;
    case Status::not_supported: s = "not supported"; break;
  }
  if (row.verdict != Status::ok && fw && !fw->message.empty()) s += ": " + fw->message;
  if (row.verdict == Status::incorrect && p.framework_verify().checked && !p.framework_verify().first_mismatch.empty())
    s += fmt::format(" ({})", p.framework_verify().first_mismatch);
  if (!fw) s += ": no framework result";

  if (!row.torch()) s += "; no LibTorch row";
  for (const ImplRow& m : row.impls) {
    if (m.impl == ImplKind::framework || m.verdict == Status::ok) continue;
    const std::string detail = verdict_detail(*m.result);
    s += fmt::format("; {} {}{}{}", impl_label(m.impl), status_name(m.verdict), detail.empty() ? "" : ": ", detail);
    if (m.impl == ImplKind::torch && m.verdict == Status::incorrect) s += " (no speedup against a wrong result)";
  }
  return s;
}

std::string err_cell(const ProblemResult& p) {
  return p.framework_verify().checked ? fmt_err(p.framework_verify().max_abs_err) : kDash;
}

// Which optional column groups a category's table needs, from its rows.
struct Columns {
  bool vendor = false, memory = false, compute = false, flops = false, kernel = false;
  bool gpu = false;  // rows measured on more than one GPU (a merged run): say which measured each
};

Columns columns_for(const std::vector<const ProblemRow*>& rows) {
  Columns c;
  for (const ProblemRow* r : rows)
    if (!r->problem->gpu.same_board(rows.front()->problem->gpu)) c.gpu = true;
  for (const ProblemRow* r : rows) {
    c.vendor = c.vendor || r->vendor();
    c.compute = c.compute || r->placement.roof_bound == Bound::compute;
    c.memory = c.memory || r->placement.roof_bound != Bound::compute;
    c.flops = c.flops || r->problem->flops > 0;
    const ImplResult* fw = r->problem->find(ImplKind::framework);
    c.kernel = c.kernel || (fw && !fw->kernel.empty());
  }
  return c;
}

void write_table(const std::vector<const ProblemRow*>& rows, std::ostream& os) {
  const Columns col = columns_for(rows);
  std::vector<std::string> header = {"Op", "Shape", "Dtype", "Size", "LibTorch ms", "Framework ms"};
  std::string align = "llllrr";
  if (col.gpu) header.insert(header.begin(), "GPU"), align = "l" + align;
  auto add = [&](std::initializer_list<const char*> names, char a) {
    for (const char* n : names) header.push_back(n), align += a;
  };
  if (col.vendor) add({"Vendor ms"}, 'r');
  add({"Speedup"}, 'r');
  if (col.memory) add({"GB/s", "% of theoretical", "% of measured copy"}, 'r');
  if (col.compute) add({"TFLOP/s", "% of peak"}, 'r');
  if (col.flops) add({"FLOP/B"}, 'r');
  if (col.vendor) add({"% of vendor"}, 'r');
  add({"Bound"}, 'l');
  add({"% of roof"}, 'r');
  if (col.kernel) add({"Kernel"}, 'l');
  add({"Grade"}, 'l');
  add({"Max abs err"}, 'r');
  add({"Status"}, 'l');

  std::vector<std::vector<std::string>> cells;
  for (const ProblemRow* r : rows) {
    const ProblemResult& p = *r->problem;
    const ImplRow* fw = r->framework();
    const ImplRow none;
    const ImplRow& f = fw ? *fw : none;
    std::vector<std::string> row = {p.op, shape_label(p), dtype_name(p.dtype), size_class_name(p.size_class),
                                    time_cell(r->torch()), time_cell(fw)};
    if (col.gpu) row.insert(row.begin(), fmt::format("{}:{}", p.gpu.host, p.gpu.index));
    if (col.vendor) row.push_back(vendor_cell(r->vendor()));
    row.push_back(fmt_speedup(f.speedup));
    if (col.memory) row.insert(row.end(), {fmt_gbps(f.gbps), fmt_pct(f.pct_of_theoretical), fmt_pct(f.pct_of_copy)});
    if (col.compute) row.insert(row.end(), {fmt_tflops(f.tflops), fmt_pct(f.pct_of_peak)});
    if (col.flops) row.push_back(p.flops > 0 ? fmt_intensity(r->placement.intensity) : kDash);
    if (col.vendor) row.push_back(fmt_pct(r->pct_of_vendor));
    row.insert(row.end(), {bound_cell(fw), fmt_pct(f.pct_of_roof)});
    if (col.kernel) {
      const ImplResult* res = p.find(ImplKind::framework);
      row.push_back(res && !res->kernel.empty() ? res->kernel : kDash);
    }
    row.insert(row.end(), {grade_cell(fw), err_cell(p), status_cell(*r)});
    cells.push_back(std::move(row));
  }
  write_md_table(os, header, align, cells);
}

}  // namespace

void write_details(const Report& report, std::ostream& os) {
  os << "## Detailed results\n\n"
     << "Times are medians in ms; ⚠ marks a timing whose spread failed the reliability test. "
        "Speedup = LibTorch time / framework time; % of vendor = vendor time / framework time. "
        "FLOP/B is the arithmetic intensity. **Bound** is what limits the framework's result: *compute* when its "
        "intensity reaches the ridge point (compute roof / memory roof), *memory* below it, *launch* when it ran "
        "in under "
     << fmt::format("{:.0f}", kLaunchFloorMs * 1000)
     << " µs (the fixed cost of a kernel is then most of the time). **% of roof** is the achieved rate as a share "
        "of the roof the roofline puts the problem under: GB/s over the memory roof (the measured copy for ops that "
        "write as much as they read, the measured read sweep for ops that only read, in between by the bytes "
        "written), or TFLOP/s over the compute roof (the measured GEMM for the dtype where there is one, else the "
        "datasheet peak; see System information).\n\n";
  // Categories in the order of the summary's breakdown, rows in run order within each.
  for (const CategoryStats& cs : report.summary.categories) {
    const Category& c = cs.category;
    std::vector<const ProblemRow*> rows;
    for (const ProblemRow& r : report.rows.problems)
      if (r.problem->category == c) rows.push_back(&r);
    if (rows.empty()) continue;
    os << "### " << category_name(c) << "\n\n";
    write_table(rows, os);
  }
}

}  // namespace opbench::reports
