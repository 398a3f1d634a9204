// The Markdown report of one run, in the sections the Genesis reports had: system information,
// performance summary, category and size-class breakdowns, detailed results, top/bottom, recommendations.
#pragma once
#include <ostream>

#include "opbench/result.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {

void write_markdown(const RunResults& results, std::ostream& os);

// The pieces the report index (README.md) shows for the latest run.
void write_summary_table(const Summary& s, std::ostream& os);  // counts, geomean, grades + legend
void write_category_table(const Summary& s, std::ostream& os);

}  // namespace opbench::reports
