#include "reports/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "reports/format.hpp"
#include "reports/fleet.hpp"

namespace opbench::reports {
namespace {

using nlohmann::json;

json opt(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

// The kept samples, in ms rounded to 0.1 ns (far below the run-to-run noise of any GPU timing). A
// long set is thinned to kMaxStoredSamples by an even stride over the order taken, which keeps its
// distribution (what a comparison's rank test reads) while a full suite's report stays a few MB.
constexpr std::size_t kMaxStoredSamples = 64;
json samples_json(const std::vector<double>& ms) {
  json a = json::array();
  const std::size_t n = ms.size();
  const std::size_t keep = std::min(n, kMaxStoredSamples);
  for (std::size_t i = 0; i < keep; ++i) a.push_back(std::round(ms[i * n / keep] * 1e7) / 1e7);
  return a;
}

json stats_json(const TimeStats& t) {
  return {{"min", t.min_ms},
          {"q1", t.q1_ms},
          {"median", t.median_ms},
          {"q3", t.q3_ms},
          {"max", t.max_ms},
          {"mean", t.mean_ms},
          {"stddev", t.stddev_ms},
          {"cv", t.cv},
          {"samples", t.samples},
          {"outliers", t.outliers},
          {"throttled_samples", t.throttled_samples},
          {"sm_clock_mhz", t.sm_clock_mhz},
          {"stop_reason", t.stop_reason},
          {"remeasured", t.remeasured},
          {"reliable", t.reliable},
          {"samples_ms", samples_json(t.samples_ms)}};
}

json gemm_json(const std::vector<GemmRoof>& roofs) {
  json a = json::array();
  for (const GemmRoof& g : roofs)
    a.push_back({{"dtype", dtype_name(g.dtype)}, {"tf32", g.tf32}, {"tflops", g.tflops}, {"how", g.how}});
  return a;
}

json roof_curve_json(const std::vector<RoofPoint>& curve) {
  json a = json::array();
  for (const RoofPoint& p : curve)
    a.push_back({{"bytes", p.bytes}, {"read_gbps", p.read_gbps}, {"copy_gbps", p.copy_gbps}, {"write_gbps", p.write_gbps}});
  return a;
}

json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"device", d.device},
          {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
          {"compute_major", d.compute_major},
          {"compute_minor", d.compute_minor},
          {"sm_count", d.sm_count},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"mem_clock_mhz", d.mem_clock_mhz},
          {"bus_width_bits", d.bus_width_bits},
          {"l2_mb", d.l2_mb},
          {"memory_gb", d.memory_gb},
          {"theoretical_gbps", d.theoretical_gbps},
          {"measured_copy_gbps", d.measured_copy_gbps},
          {"measured_read_gbps", d.measured_read_gbps},
          {"measured_write_gbps", d.measured_write_gbps},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"cublas_version", d.cublas_version},
          {"cudnn_version", d.cudnn_version},
          {"torch_version", d.torch_version},
          {"measured_gemm", gemm_json(d.measured_gemm)},
          {"roof_curve", roof_curve_json(d.roof_curve)}};
}

json verification_json(const Verification& v) {
  return {{"checked", v.checked},
          {"correct", v.correct},
          {"max_abs_err", v.max_abs_err},
          {"max_rel_err", v.max_rel_err},
          {"rel_l2_err", v.rel_l2_err},
          {"oracle_max_abs_err", v.oracle_max_abs_err},
          {"oracle_max_rel_err", v.oracle_max_rel_err},
          {"oracle_rel_l2_err", v.oracle_rel_l2_err},
          {"mismatches", v.mismatches},
          {"first_mismatch", v.first_mismatch},
          {"atol", v.tolerance.atol},
          {"rtol", v.tolerance.rtol},
          {"rel_l2", v.tolerance.rel_l2}};
}

const char* basis_name(RoofBasis b) {
  switch (b) {
    case RoofBasis::measured: return "measured";
    case RoofBasis::datasheet: return "datasheet";
    case RoofBasis::none: return "none";
  }
  return "?";
}

json positive_or_null(double v) { return v > 0 ? json(v) : json(nullptr); }

// The roofs the rows are measured against, for readers and for the charts (roofline, bandwidth).
json roofs_json(const Report& report) {
  const RunContext& c = report.context();
  const DeviceInfo& d = c.device;
  std::set<int> dtypes;
  for (const auto& p : report.rows.results->problems) dtypes.insert(int(p.dtype));
  json compute = json::array();
  for (int t : dtypes) {
    const DType dt = DType(t);
    const GemmRoof* g = measured_gemm(d, dt, c.tf32);
    compute.push_back({{"dtype", dtype_name(dt)},
                       {"tf32", dt == DType::f32 && c.tf32},
                       {"datasheet_tflops", positive_or_null(peak_tflops(d, dt, c.tf32))},
                       {"measured_tflops", g ? json(g->tflops) : json(nullptr)}});
  }
  return {{"memory",
           {{"theoretical_gbps", positive_or_null(d.theoretical_gbps)},
            {"copy_gbps", positive_or_null(d.measured_copy_gbps)},
            {"read_gbps", positive_or_null(d.measured_read_gbps)},
            {"write_gbps", positive_or_null(d.measured_write_gbps)},
            {"by_size", roof_curve_json(d.roof_curve)}}},
          {"compute", compute},
          {"launch_floor_ms", kLaunchFloorMs}};
}

// The grade thresholds (grade.hpp), so that nothing reading the report keeps its own copy.
json grades_json() {
  json a = json::array();
  for (Grade g : kAllGrades)
    a.push_back({{"grade", grade_name(g)}, {"symbol", grade_symbol(g)}, {"min_speedup", grade_floor(g)}});
  return a;
}

json record(const ProblemRow& row, const ImplRow& m) {
  const ProblemResult& p = *row.problem;
  const ImplResult& r = *m.result;
  const Placement& pl = row.placement;
  json j = {{"operation", p.op},
            {"category", category_name(p.category)},
            {"implementation", impl_name(r.impl)},
            {"shape", p.shape},
            {"shape_str", shape_str(p.shape)},
            {"size_class", size_class_name(p.size_class)},
            {"dtype", dtype_name(p.dtype)},
            {"status", status_name(m.verdict)},
            {"message", r.message},
            {"time_ms", m.timed() ? json(m.time_ms) : json(nullptr)},
            {"kernel", r.kernel},
            {"time_stats", r.pure ? stats_json(*r.pure) : json(nullptr)}};
  if (p.sweep) {
    j["batch_size"] = p.sweep->batch_size;
    j["sequence_length"] = p.sweep->sequence_length;
    j["tensor_dimension"] = p.sweep->tensor_dimension;
  }
  if (r.real) {
    j["real_time_ms"] = r.real->median_ms;
    j["real_time_stats"] = stats_json(*r.real);
  }
  if (r.graph) {
    j["graph_time_ms"] = r.graph->median_ms;
    j["graph_time_stats"] = stats_json(*r.graph);
  }
  j.update({{"memory_mb", r.memory_mb},
            {"inference_speed", opt(m.inference_speed)},
            {"gpu_efficiency", opt(m.pct_of_theoretical)},
            {"copy_efficiency", opt(m.pct_of_copy)},
            {"throughput_gbps", opt(m.gbps)},
            {"tflops", opt(m.tflops)},
            {"pct_of_peak", opt(m.pct_of_peak)},
            {"arithmetic_intensity", opt(pl.intensity)},
            {"bound", m.bound ? json(bound_name(*m.bound)) : json(nullptr)},
            {"pct_of_roof", opt(m.pct_of_roof)},
            {"memory_roof_gbps", positive_or_null(pl.memory.gbps)},
            {"memory_roof_basis", basis_name(pl.memory.basis)},
            {"pct_of_size_roof", opt(m.pct_of_size_roof)},
            {"size_roof_gbps", positive_or_null(pl.memory_at_size.gbps)},
            {"compute_roof_tflops", positive_or_null(pl.compute.tflops)},
            {"compute_roof_basis", basis_name(pl.compute.basis)},
            {"speedup", opt(m.speedup)},
            {"no_speedup", m.no_speedup.empty() ? json(nullptr) : json(m.no_speedup)},
            {"grade", m.grade ? json(grade_symbol(*m.grade)) : json(nullptr)},
            {"grade_name", m.grade ? json(grade_name(*m.grade)) : json(nullptr)}});
  // Every implementation carries its own verdict against the fp64 oracle (the framework's also against
  // LibTorch in the same dtype).
  const Verification& v = r.verify;
  const bool framework = r.impl == ImplKind::framework;
  j["correct"] = m.verdict == Status::ok;
  j["max_abs_err"] = v.checked && framework ? json(v.max_abs_err) : json(nullptr);
  j["max_rel_err"] = v.checked && framework ? json(v.max_rel_err) : json(nullptr);
  j["oracle_max_abs_err"] = v.checked ? json(v.oracle_max_abs_err) : json(nullptr);
  j["oracle_rel_l2_err"] = v.checked ? json(v.oracle_rel_l2_err) : json(nullptr);
  j["verification"] = verification_json(v);
  j["bytes"] = p.bytes;
  j["bytes_written"] = p.bytes_written;
  if (!p.twin_of.empty()) j["twin_of"] = p.twin_of;
  j["flops"] = p.flops;
  // Runs over several GPUs and nodes: where the result was measured, what the problem cost, its place.
  if (p.gpu.known()) put_gpu_id(p.gpu, j);
  if (p.wall_ms > 0) j["wall_ms"] = p.wall_ms;
  if (p.selection_index >= 0) j["selection_index"] = p.selection_index;
  return j;
}

json bounds_json(const BoundCounts& b) {
  return {{"memory", b[int(Bound::memory)]}, {"compute", b[int(Bound::compute)]}, {"launch", b[int(Bound::launch)]}};
}

}  // namespace

json summary_to_json(const Summary& s) {
  auto grades = [](const GradeCounts& g) {
    json j = json::object();
    for (Grade x : kAllGrades) j[grade_name(x)] = g[int(x)];
    return j;
  };
  auto ranked = [](const std::vector<RankedRow>& rows) {
    json a = json::array();
    for (const auto& r : rows)
      a.push_back({{"operation", r.op}, {"shape", r.shape}, {"dtype", r.dtype},
                   {"category", category_name(r.category)}, {"size_class", size_class_name(r.size_class)},
                   {"speedup", r.speedup}, {"framework_ms", r.framework_ms}, {"torch_ms", r.torch_ms},
                   {"grade", grade_symbol(r.grade)}});
    return a;
  };
  json cats = json::array(), sizes = json::array(), recs = json::array(), refs = json::array();
  for (const auto& c : s.categories)
    cats.push_back({{"category", category_name(c.category)}, {"problems", c.problems}, {"compared", c.compared},
                    {"incorrect", c.incorrect}, {"failed", c.failed}, {"geomean_speedup", opt(c.geomean)},
                    {"min_speedup", opt(c.min_speedup)}, {"max_speedup", opt(c.max_speedup)},
                    {"median_pct_of_roof", opt(c.median_pct_of_roof)}, {"bounds", bounds_json(c.bounds)},
                    {"grades", grades(c.grades)}});
  for (const auto& c : s.size_classes)
    sizes.push_back({{"size_class", size_class_name(c.size_class)}, {"problems", c.problems},
                     {"compared", c.compared}, {"geomean_speedup", opt(c.geomean)},
                     {"min_speedup", opt(c.min_speedup)}, {"max_speedup", opt(c.max_speedup)},
                     {"avg_gpu_efficiency", opt(c.avg_gpu_efficiency)},
                     {"avg_copy_efficiency", opt(c.avg_copy_efficiency)}});
  for (const auto& r : s.recommendations)
    recs.push_back({{"title", r.title}, {"detail", r.detail}, {"items", r.items}});
  for (const auto& f : s.reference_failures)
    refs.push_back({{"problem", f.problem}, {"implementation", impl_name(f.impl)}, {"status", status_name(f.status)},
                    {"detail", f.detail}});
  return {{"problems", s.problems},
          {"correct", s.correct},
          {"incorrect", s.incorrect},
          {"failed", s.failed},
          {"not_supported", s.not_supported},
          {"reference_incorrect", s.reference_incorrect},
          {"reference_failed", s.reference_failed},
          {"reference_not_supported", s.reference_not_supported},
          {"reference_failures", refs},
          {"has_failures", has_failures(s)},
          {"compared", s.compared},
          {"faster_than_torch", s.faster_than_torch},
          {"geomean_speedup", opt(s.geomean_speedup)},
          {"grades", grades(s.grades)},
          {"bounds", bounds_json(s.bounds)},
          {"categories", cats},
          {"size_classes", sizes},
          {"top", ranked(s.top)},
          {"bottom", ranked(s.bottom)},
          {"recommendations", recs}};
}

json to_json(const Report& report) {
  const RunContext& c = report.context();
  json records = json::array();
  for (const ProblemRow& row : report.rows.problems)
    for (const ImplRow& m : row.impls) records.push_back(record(row, m));
  json out = {{"schema_version", kJsonSchemaVersion},
          {"context",
           {{"system", device_json(c.device)},
            {"command_line", c.command_line},
            {"git_commit", c.git_commit},
            {"timestamp", c.timestamp},
            {"timing_mode", c.timing_mode},
            {"device_timer", c.device_timer},
            {"device_timer_text", c.device_timer_text},
            {"l2_mode", c.l2_mode},
            {"l2_flush", c.l2_flush},
            {"stopping", c.stopping},
            {"repetitions", c.repetitions},
            {"read_roof_gbps", c.device.measured_read_gbps},
            {"tf32", c.tf32},
            {"outlier_filter", c.outlier_filter},
            {"measured_copy_gbps", c.device.measured_copy_gbps},
            {"roofs", roofs_json(report)},
            {"grades", grades_json()}}},
          {"summary", summary_to_json(report.summary)},
          {"results", records}};
  // Runs over several GPUs and nodes (absent from one-GPU reports that predate them).
  json& ctx = out["context"];
  if (!c.gpus.empty()) {
    ctx["gpus"] = json::array();
    for (const FleetGpu& g : c.gpus) ctx["gpus"].push_back(fleet_gpu_json(g));
  }
  if (c.shard.count > 0)
    ctx["shard"] = {{"index", c.shard.index}, {"count", c.shard.count}, {"launcher", c.shard.launcher}};
  if (c.gpus.size() > 1 || c.replicate) ctx.update({{"replicate", c.replicate}, {"slow_gpu_margin", c.slow_gpu_margin}});
  if (const auto fleet = fleet_table(*report.rows.results)) out["fleet"] = fleet_json(*fleet);
  // --category model: the model its runs are of (absent from other reports). "parameters" is derived,
  // written for readers of the file; from_json rebuilds it from the fields.
  if (c.model) {
    const ModelConfig& m = *c.model;
    ctx["model"] = {{"name", m.name},
                    {"layers", m.layers},
                    {"hidden", m.hidden},
                    {"intermediate", m.intermediate},
                    {"heads_q", m.heads_q},
                    {"heads_kv", m.heads_kv},
                    {"head_dim", m.head_dim},
                    {"vocab", m.vocab},
                    {"rms_eps", m.rms_eps},
                    {"rope_theta", m.rope_theta},
                    {"qkv_bias", m.qkv_bias},
                    {"tied_embeddings", m.tied_embeddings},
                    {"parameters", m.parameters()}};
  }
  return out;
}

json to_json(const RunResults& results) { return to_json(build_report(results)); }

}  // namespace opbench::reports
