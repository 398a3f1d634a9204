// The "Transformer sweep" section of a report that holds --sweep results: per op and dtype, the
// framework against LibTorch along each axis of the grid (batch size, sequence length, tensor
// dimension), every figure taken from the report rows.
#pragma once
#include <ostream>

#include "reports/rows.hpp"

namespace opbench::reports {

// Writes nothing when no result carries a sweep point.
void write_sweep_markdown(const ReportRows& rows, std::ostream& os);

}  // namespace opbench::reports
