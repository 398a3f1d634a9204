// The "Model benchmark" section of a report that holds --category model results (model_info.hpp): the
// model's configuration, whole-model runs per (batch, seq) with tokens/s, one decoder layer's time split
// by op family, scaling along batch and sequence length, peak memory, and the priorities those figures
// point to. Every figure is taken from the report rows and RunContext::model.
#pragma once
#include <ostream>

#include "reports/rows.hpp"

namespace opbench::reports {

// Writes nothing when no result is a model op (parse_model_op). One section per model present.
void write_model_markdown(const ReportRows& rows, std::ostream& os);

}  // namespace opbench::reports
