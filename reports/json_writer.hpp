// The machine-readable report: a context block with a schema version, the summary, and one flat record
// per (problem, implementation) in the field names users of the Genesis scripts know (time_ms, memory_mb,
// inference_speed, gpu_efficiency, throughput_gbps, ...). from_json reads one back, so that the report
// index and later tooling work from the files alone.
#pragma once
#include <nlohmann/json.hpp>

#include "opbench/result.hpp"
#include "reports/summary.hpp"

namespace opbench::reports {

// 2: per-implementation verification, time_stats quartiles, samples, clocks.
// 3: roofs (context.roofs, system.measured_gemm), per record bound / arithmetic_intensity / pct_of_roof /
//    bytes_written / no_speedup, "status" is the verdict, grades only on framework records, the grade
//    thresholds (context.grades), reference failures and has_failures in the summary.
inline constexpr int kJsonSchemaVersion = 3;

nlohmann::json to_json(const Report& report);
// For callers that hold only the results (the report is built for this call).
nlohmann::json to_json(const RunResults& results);
nlohmann::json summary_to_json(const Summary& s);

// Rebuilds the measured fields (context and results; the derived figures are recomputed, not read).
// Throws std::runtime_error (nlohmann::json::exception or a message naming the bad field) on a file
// that is not an opbench report of this schema.
RunResults from_json(const nlohmann::json& j);

}  // namespace opbench::reports
