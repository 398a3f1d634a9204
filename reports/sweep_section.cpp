#include "reports/sweep_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reports/format.hpp"
#include "src/model/stats.hpp"

namespace opbench::reports {
namespace {

struct Axis {
  const char* title;
  const char* what;
  int64_t SweepPoint::*field;
};

const Axis kAxes[] = {
    {"By batch size", "batch size", &SweepPoint::batch_size},
    {"By sequence length", "sequence length", &SweepPoint::sequence_length},
    {"By tensor dimension", "tensor dimension (cross_entropy: the vocabulary)", &SweepPoint::tensor_dimension},
};

// The framework rows of one op and dtype at one value of an axis.
struct Cell {
  std::vector<double> speedups, roof_pcts;
};

std::string cell_text(const Cell& c) {
  if (c.speedups.empty()) return kDash;
  std::string s = fmt::format("{:.2f}×", geomean(c.speedups));
  if (!c.roof_pcts.empty()) s += fmt::format(" ({:.0f}%)", median_of(c.roof_pcts));
  return s;
}

}  // namespace

void write_sweep_markdown(const ReportRows& rows, std::ostream& os) {
  // op/dtype in report order, then each axis value.
  std::vector<std::string> keys;
  std::map<std::string, const ProblemRow*> first;
  for (const ProblemRow& r : rows.problems) {
    if (!r.problem->sweep) continue;
    const std::string key = r.problem->op + " " + dtype_name(r.problem->dtype);
    if (!first.count(key)) keys.push_back(key), first[key] = &r;
  }
  if (keys.empty()) return;
  int points = 0;
  for (const ProblemRow& r : rows.problems) points += r.problem->sweep.has_value();
  os << "## Transformer sweep\n\n"
     << fmt::format("{} grid points: the ops on [batch × seq, dim] rows (cross_entropy: [batch × seq, vocabulary]). "
                    "Each cell is the geomean speedup of the framework over LibTorch at that value, over the "
                    "points that have it, with the median % of roof of the framework in parentheses "
                    "(— : no point compared).\n\n",
                    points);
  for (const Axis& a : kAxes) {
    std::set<int64_t> values;
    for (const ProblemRow& r : rows.problems)
      if (r.problem->sweep) values.insert((*r.problem->sweep).*(a.field));
    std::map<std::pair<std::string, int64_t>, Cell> cells;
    for (const ProblemRow& r : rows.problems) {
      if (!r.problem->sweep) continue;
      const ImplRow* fw = r.framework();
      if (!fw || !fw->speedup) continue;
      Cell& c = cells[{r.problem->op + " " + dtype_name(r.problem->dtype), (*r.problem->sweep).*(a.field)}];
      c.speedups.push_back(*fw->speedup);
      if (fw->pct_of_roof) c.roof_pcts.push_back(*fw->pct_of_roof);
    }
    std::vector<std::string> header = {"op / dtype"};
    for (int64_t v : values) header.push_back(std::to_string(v));
    std::vector<std::vector<std::string>> table;
    for (const std::string& k : keys) {
      std::vector<std::string> line = {k};
      for (int64_t v : values) {
        const auto it = cells.find({k, v});
        line.push_back(it == cells.end() ? kDash : cell_text(it->second));
      }
      table.push_back(std::move(line));
    }
    os << "### " << a.title << "\n\n";
    os << fmt::format("Columns: {}.\n\n", a.what);
    write_md_table(os, header, "l" + std::string(values.size(), 'r'), table);
  }
}

}  // namespace opbench::reports
