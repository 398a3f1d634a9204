// The per-GPU consistency table of a run over several GPUs (SuperBench-style defective-GPU check): for
// each GPU, its times relative to the fleet median of the same problem, its measured SM clock, its
// hottest temperature and its copy bandwidth, and a flag on a GPU more than a margin slower than the
// rest. With --replicate every GPU runs every problem, so every time is compared; a sharded run has each
// problem on one GPU only, and then only the copy bandwidth measured on each GPU can be compared.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::reports {

struct FleetRow {
  FleetGpu gpu;
  int results = 0;                           // problems measured on this GPU
  int compared = 0;                          // timings of problems another GPU also timed
  std::optional<double> median_relative;     // median over those of (its time / the fleet median time)
  std::optional<double> max_relative;
  std::optional<double> sm_clock_mhz;        // median SM clock measured during its samples
  std::optional<double> copy_relative;       // its copy bandwidth / the fleet median copy bandwidth
  bool slow = false;                         // median_relative > 1 + margin, or copy_relative < 1 - margin
  std::string verdict;                       // "ok", or why it is flagged
};

struct FleetTable {
  double margin = 0.05;
  std::vector<FleetRow> rows;                // in the context's GPU order
  int flagged() const;
};

// Absent for a run on fewer than two GPUs.
std::optional<FleetTable> fleet_table(const RunResults& results);

// "node3:1" (host and index); "GPU 1" when the host is unknown.
std::string gpu_label(const GpuId& g);

void write_fleet_markdown(const FleetTable& t, std::ostream& os);
nlohmann::json fleet_json(const FleetTable& t);

// The JSON of the identity fields, shared by the report's context and its records.
nlohmann::json fleet_gpu_json(const FleetGpu& g);
FleetGpu fleet_gpu_from(const nlohmann::json& j);
void put_gpu_id(const GpuId& g, nlohmann::json& record);  // host, gpu_index, gpu_name, gpu_uuid
GpuId gpu_id_from(const nlohmann::json& record);          // absent fields: an unknown GpuId

}  // namespace opbench::reports
