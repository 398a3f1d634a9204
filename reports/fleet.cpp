#include "reports/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "reports/format.hpp"
#include "src/model/stats.hpp"

namespace opbench::reports {
namespace {

using nlohmann::json;

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> opt_from(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

// "+2.3%": how far a ratio is from the fleet median.
std::string fmt_rel(const std::optional<double>& r) { return r ? fmt::format("{:+.1f}%", 100 * (*r - 1)) : kDash; }

int row_of(const std::vector<FleetRow>& rows, const GpuId& g) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].gpu.id.same_board(g)) return int(i);
  return -1;
}

}  // namespace

int FleetTable::flagged() const {
  int n = 0;
  for (const FleetRow& r : rows) n += r.slow;
  return n;
}

std::string gpu_label(const GpuId& g) {
  return g.host.empty() ? fmt::format("GPU {}", g.index) : fmt::format("{}:{}", g.host, g.index);
}

std::optional<FleetTable> fleet_table(const RunResults& results) {
  const RunContext& c = results.context;
  if (c.gpus.size() < 2) return std::nullopt;
  FleetTable t;
  t.margin = c.slow_gpu_margin;
  for (const FleetGpu& g : c.gpus) t.rows.push_back(FleetRow{g});

  // Every timed implementation of a problem is one observation of the GPU that ran it.
  std::map<std::pair<std::string, int>, std::vector<std::pair<int, double>>> times;  // (id, impl) -> (row, ms)
  std::vector<std::vector<double>> clocks(t.rows.size());
  for (const ProblemResult& p : results.problems) {
    const int row = row_of(t.rows, p.gpu);
    if (row < 0) continue;
    t.rows[std::size_t(row)].results++;
    for (const ImplResult& r : p.impls) {
      if (r.status != Status::ok || r.time_ms() <= 0) continue;
      times[{p.id(), int(r.impl)}].emplace_back(row, r.time_ms());
      if (r.pure && r.pure->sm_clock_mhz > 0) clocks[std::size_t(row)].push_back(r.pure->sm_clock_mhz);
    }
  }
  std::vector<std::vector<double>> ratios(t.rows.size());
  for (const auto& [key, obs] : times) {
    std::set<int> gpus;
    std::vector<double> ms;
    for (const auto& [row, v] : obs) gpus.insert(row), ms.push_back(v);
    if (gpus.size() < 2) continue;
    const double fleet = median_of(ms);
    for (const auto& [row, v] : obs) ratios[std::size_t(row)].push_back(v / fleet);
  }
  std::vector<double> copies;
  for (const FleetRow& r : t.rows)
    if (r.gpu.measured_copy_gbps > 0) copies.push_back(r.gpu.measured_copy_gbps);
  const double fleet_copy = copies.size() >= 2 ? median_of(copies) : 0;

  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    FleetRow& r = t.rows[i];
    r.compared = int(ratios[i].size());
    if (!ratios[i].empty()) {
      r.median_relative = median_of(ratios[i]);
      r.max_relative = *std::max_element(ratios[i].begin(), ratios[i].end());
    }
    if (!clocks[i].empty()) r.sm_clock_mhz = median_of(clocks[i]);
    if (fleet_copy > 0 && r.gpu.measured_copy_gbps > 0) r.copy_relative = r.gpu.measured_copy_gbps / fleet_copy;
    std::vector<std::string> why;
    if (r.median_relative && *r.median_relative > 1 + t.margin)
      why.push_back(fmt::format("times {:.1f}% above the fleet median", 100 * (*r.median_relative - 1)));
    if (r.copy_relative && *r.copy_relative < 1 - t.margin)
      why.push_back(fmt::format("copy bandwidth {:.1f}% below the fleet median", 100 * (1 - *r.copy_relative)));
    r.slow = !why.empty();
    r.verdict = r.slow ? "⚠ slow: " + why[0] + (why.size() > 1 ? "; " + why[1] : "") : "ok";
  }
  return t;
}

void write_fleet_markdown(const FleetTable& t, std::ostream& os) {
  std::set<std::string> hosts;
  bool compared = false;
  for (const FleetRow& r : t.rows) hosts.insert(r.gpu.id.host), compared = compared || r.compared > 0;
  os << "## Per-GPU consistency\n\n"
     << fmt::format("{} GPUs on {} host{}. ", t.rows.size(), hosts.size(), hosts.size() == 1 ? "" : "s");
  if (compared)
    os << "Each time is divided by the median time of the same problem and implementation over the GPUs that ran "
          "it; a GPU's figure is the median of those ratios (worst: the largest). ";
  else
    os << "Each problem ran on one GPU (a sharded run), so only the copy bandwidth is compared; `--replicate` runs "
          "every problem on every GPU. ";
  os << fmt::format("A GPU more than {:.0f}% slower than the fleet median (time, or copy bandwidth) is flagged: "
                    "{} of {}.\n\n",
                    100 * t.margin, t.flagged(), t.rows.size());
  std::vector<std::vector<std::string>> rows;
  for (const FleetRow& r : t.rows) {
    const GpuId& g = r.gpu.id;
    rows.push_back({gpu_label(g), g.name.empty() ? kDash : g.name, g.uuid.empty() ? kDash : g.uuid,
                    std::to_string(r.results), std::to_string(r.compared), fmt_rel(r.median_relative),
                    fmt_rel(r.max_relative), r.sm_clock_mhz ? fmt::format("{:.0f} MHz", *r.sm_clock_mhz) : kDash,
                    r.gpu.max_temperature_c ? fmt::format("{:.0f} °C", *r.gpu.max_temperature_c) : kDash,
                    r.gpu.measured_copy_gbps > 0 ? fmt_gbps(r.gpu.measured_copy_gbps) : kDash, fmt_rel(r.copy_relative),
                    r.verdict});
  }
  write_md_table(os,
                 {"GPU", "Name", "UUID", "Results", "Compared", "Time vs fleet", "Worst", "SM clock", "Max temp",
                  "Copy GB/s", "Copy vs fleet", "Verdict"},
                 "lllrrrrrrrrl", rows);
}

json fleet_json(const FleetTable& t) {
  json gpus = json::array();
  for (const FleetRow& r : t.rows) {
    json g = fleet_gpu_json(r.gpu);
    g.update({{"results", r.results},
              {"compared", r.compared},
              {"median_relative_time", opt_json(r.median_relative)},
              {"max_relative_time", opt_json(r.max_relative)},
              {"sm_clock_mhz", opt_json(r.sm_clock_mhz)},
              {"copy_relative", opt_json(r.copy_relative)},
              {"slow", r.slow},
              {"verdict", r.verdict}});
    gpus.push_back(std::move(g));
  }
  return {{"margin", t.margin}, {"flagged", t.flagged()}, {"gpus", gpus}};
}

void put_gpu_id(const GpuId& g, json& j) {
  j["host"] = g.host;
  j["gpu_index"] = g.index;
  j["gpu_name"] = g.name;
  j["gpu_uuid"] = g.uuid;
}

GpuId gpu_id_from(const json& j) {
  GpuId g;
  g.host = j.value("host", std::string());
  g.index = j.value("gpu_index", -1);
  g.name = j.value("gpu_name", std::string());
  g.uuid = j.value("gpu_uuid", std::string());
  return g;
}

json fleet_gpu_json(const FleetGpu& g) {
  json j;
  put_gpu_id(g.id, j);
  j["measured_copy_gbps"] = g.measured_copy_gbps;
  j["max_temperature_c"] = opt_json(g.max_temperature_c);
  return j;
}

FleetGpu fleet_gpu_from(const json& j) {
  FleetGpu g;
  g.id = gpu_id_from(j);
  g.measured_copy_gbps = j.value("measured_copy_gbps", 0.0);
  g.max_temperature_c = opt_from(j, "max_temperature_c");
  return g;
}

}  // namespace opbench::reports
