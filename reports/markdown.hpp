// The Markdown report of one run, in the sections the Genesis reports had: system information,
// performance summary, category and size-class breakdowns, charts, detailed results, top/bottom,
// recommendations. Every figure comes from the Report (rows and summary, built once).
#pragma once
#include <ostream>

#include "reports/charts.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {

// `charts` is what was drawn for this report (or why nothing was); its folder is relative to the report.
void write_markdown(const Report& report, const ChartSet& charts, std::ostream& os);

// The pieces the report index (README.md) shows for the latest run.
void write_summary_table(const Summary& s, std::ostream& os);  // counts, geomean, grades + legend
void write_category_table(const Summary& s, std::ostream& os);
// The "## Charts" section: each chart embedded with a relative link, or the reason they were skipped.
void write_charts(const ChartSet& charts, std::ostream& os);

// The detailed results, one table per category (markdown_details.cpp).
void write_details(const Report& report, std::ostream& os);

}  // namespace opbench::reports
