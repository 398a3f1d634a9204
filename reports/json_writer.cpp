#include "reports/json_writer.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "reports/fleet.hpp"
#include "reports/metrics.hpp"

namespace opbench::reports {
namespace {

using nlohmann::json;

json opt(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

// Samples are written in microseconds with 4 significant digits' worth of precision (0.1 ns): compact,
// and far below the run-to-run noise of any GPU timing.
json samples_json(const std::vector<double>& ms) {
  json a = json::array();
  for (double x : ms) a.push_back(std::round(x * 1e7) / 1e7);
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

TimeStats stats_from(const json& j) {
  TimeStats t;
  t.median_ms = j.at("median"), t.min_ms = j.at("min"), t.max_ms = j.at("max"), t.mean_ms = j.at("mean");
  t.q1_ms = j.at("q1"), t.q3_ms = j.at("q3");
  t.stddev_ms = j.at("stddev"), t.cv = j.at("cv"), t.samples = j.at("samples"), t.outliers = j.at("outliers");
  t.throttled_samples = j.at("throttled_samples"), t.sm_clock_mhz = j.at("sm_clock_mhz");
  t.stop_reason = j.at("stop_reason"), t.remeasured = j.at("remeasured");
  t.reliable = j.at("reliable");
  t.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  return t;
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
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"cublas_version", d.cublas_version},
          {"cudnn_version", d.cudnn_version},
          {"torch_version", d.torch_version}};
}

DeviceInfo device_from(const json& j) {
  DeviceInfo d;
  d.name = j.at("name"), d.device = j.at("device");
  d.compute_major = j.at("compute_major"), d.compute_minor = j.at("compute_minor");
  d.sm_count = j.at("sm_count"), d.sm_clock_mhz = j.at("sm_clock_mhz"), d.mem_clock_mhz = j.at("mem_clock_mhz");
  d.bus_width_bits = j.at("bus_width_bits"), d.l2_mb = j.at("l2_mb"), d.memory_gb = j.at("memory_gb");
  d.theoretical_gbps = j.at("theoretical_gbps"), d.measured_copy_gbps = j.at("measured_copy_gbps");
  d.measured_read_gbps = j.at("measured_read_gbps");
  d.driver_version = j.at("driver_version"), d.runtime_version = j.at("runtime_version");
  d.cublas_version = j.at("cublas_version"), d.cudnn_version = j.at("cudnn_version");
  d.torch_version = j.at("torch_version");
  return d;
}

json verification_json(const Verification& v) {
  return {{"checked", v.checked},
          {"correct", v.correct},
          {"max_abs_err", v.max_abs_err},
          {"max_rel_err", v.max_rel_err},
          {"oracle_max_abs_err", v.oracle_max_abs_err},
          {"oracle_max_rel_err", v.oracle_max_rel_err},
          {"oracle_rel_l2_err", v.oracle_rel_l2_err},
          {"mismatches", v.mismatches},
          {"first_mismatch", v.first_mismatch},
          {"atol", v.tolerance.atol},
          {"rtol", v.tolerance.rtol}};
}

Verification verification_from(const json& j) {
  Verification v;
  v.checked = j.at("checked"), v.correct = j.at("correct");
  v.max_abs_err = j.at("max_abs_err"), v.max_rel_err = j.at("max_rel_err");
  v.oracle_max_abs_err = j.at("oracle_max_abs_err"), v.oracle_max_rel_err = j.at("oracle_max_rel_err");
  v.oracle_rel_l2_err = j.at("oracle_rel_l2_err"), v.mismatches = j.at("mismatches");
  v.first_mismatch = j.at("first_mismatch");
  v.tolerance = {j.at("atol").get<double>(), j.at("rtol").get<double>()};
  return v;
}

json record(const RunContext& c, const ProblemResult& p, const ImplResult& r) {
  const Metrics m = compute_metrics(c, p, r);
  const bool framework = r.impl == ImplKind::framework;
  const Status status = framework ? problem_status(p) : r.status;
  json j = {{"operation", p.op},
            {"category", category_name(p.category)},
            {"implementation", impl_name(r.impl)},
            {"shape", p.shape},
            {"shape_str", shape_str(p.shape)},
            {"size_class", size_class_name(p.size_class)},
            {"dtype", dtype_name(p.dtype)},
            {"status", status_name(r.status)},
            {"message", r.message},
            {"time_ms", m.timed() ? json(m.time_ms) : json(nullptr)},
            {"kernel", r.kernel},
            {"time_stats", r.pure ? stats_json(*r.pure) : json(nullptr)}};
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
            {"gpu_efficiency", opt(m.gpu_efficiency)},
            {"copy_efficiency", opt(m.copy_efficiency)},
            {"throughput_gbps", opt(m.throughput_gbps)},
            {"tflops", opt(m.tflops)},
            {"pct_of_peak", opt(m.pct_of_peak)},
            {"speedup", opt(m.speedup)},
            {"grade", m.grade ? json(grade_symbol(*m.grade)) : json(nullptr)},
            {"grade_name", m.grade ? json(grade_name(*m.grade)) : json(nullptr)}});
  // Every implementation carries its own verdict against the fp64 oracle (the framework's also against
  // LibTorch in the same dtype).
  const Verification& v = r.verify;
  j["correct"] = status == Status::ok;
  j["max_abs_err"] = v.checked && framework ? json(v.max_abs_err) : json(nullptr);
  j["max_rel_err"] = v.checked && framework ? json(v.max_rel_err) : json(nullptr);
  j["oracle_max_abs_err"] = v.checked ? json(v.oracle_max_abs_err) : json(nullptr);
  j["oracle_rel_l2_err"] = v.checked ? json(v.oracle_rel_l2_err) : json(nullptr);
  j["verification"] = verification_json(v);
  j["bytes"] = p.bytes;
  j["flops"] = p.flops;
  // Runs over several GPUs and nodes: where the result was measured, what the problem cost, its place.
  if (p.gpu.known()) put_gpu_id(p.gpu, j);
  if (p.wall_ms > 0) j["wall_ms"] = p.wall_ms;
  if (p.selection_index >= 0) j["selection_index"] = p.selection_index;
  return j;
}

template <class E, class Name>
E enum_from(const std::string& s, Name name, const std::vector<E>& values, const char* what) {
  for (E v : values)
    if (s == name(v)) return v;
  throw std::runtime_error("report JSON: unknown " + std::string(what) + " '" + s + "'");
}

std::optional<TimeStats> stats_or_none(const json& rec, const char* key) {
  if (!rec.contains(key) || rec.at(key).is_null()) return std::nullopt;
  return stats_from(rec.at(key));
}

}  // namespace

json summary_to_json(const Summary& s) {
  auto grades = [](const GradeCounts& g) {
    json j = json::object();
    for (int i = 0; i < 5; ++i) j[grade_name(Grade(i))] = g[i];
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
  json cats = json::array(), sizes = json::array(), recs = json::array();
  for (const auto& c : s.categories)
    cats.push_back({{"category", category_name(c.category)}, {"problems", c.problems}, {"compared", c.compared},
                    {"incorrect", c.incorrect}, {"failed", c.failed}, {"geomean_speedup", opt(c.geomean)},
                    {"min_speedup", opt(c.min_speedup)}, {"max_speedup", opt(c.max_speedup)},
                    {"grades", grades(c.grades)}});
  for (const auto& c : s.size_classes)
    sizes.push_back({{"size_class", size_class_name(c.size_class)}, {"problems", c.problems},
                     {"compared", c.compared}, {"geomean_speedup", opt(c.geomean)},
                     {"min_speedup", opt(c.min_speedup)}, {"max_speedup", opt(c.max_speedup)},
                     {"avg_gpu_efficiency", opt(c.avg_gpu_efficiency)},
                     {"avg_copy_efficiency", opt(c.avg_copy_efficiency)}});
  for (const auto& r : s.recommendations)
    recs.push_back({{"title", r.title}, {"detail", r.detail}, {"items", r.items}});
  return {{"problems", s.problems},   {"correct", s.correct},
          {"incorrect", s.incorrect}, {"failed", s.failed},
          {"not_supported", s.not_supported}, {"compared", s.compared},
          {"faster_than_torch", s.faster_than_torch}, {"geomean_speedup", opt(s.geomean_speedup)},
          {"grades", grades(s.grades)}, {"categories", cats},
          {"size_classes", sizes},    {"top", ranked(s.top)},
          {"bottom", ranked(s.bottom)}, {"recommendations", recs}};
}

json to_json(const RunResults& results) {
  const RunContext& c = results.context;
  json records = json::array();
  for (const auto& p : results.problems)
    for (const auto& r : p.impls) records.push_back(record(c, p, r));
  json out = {{"schema_version", kJsonSchemaVersion},
          {"context",
           {{"system", device_json(c.device)},
            {"command_line", c.command_line},
            {"git_commit", c.git_commit},
            {"timestamp", c.timestamp},
            {"timing_mode", c.timing_mode},
            {"l2_mode", c.l2_mode},
            {"l2_flush", c.l2_flush},
            {"stopping", c.stopping},
            {"repetitions", c.repetitions},
            {"read_roof_gbps", c.device.measured_read_gbps},
            {"tf32", c.tf32},
            {"outlier_filter", c.outlier_filter},
            {"measured_copy_gbps", c.device.measured_copy_gbps}}},
          {"summary", summary_to_json(summarize(results))},
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
  if (const auto fleet = fleet_table(results)) out["fleet"] = fleet_json(*fleet);
  return out;
}

RunResults from_json(const json& j) {
  if (!j.is_object() || j.value("schema_version", 0) != kJsonSchemaVersion)
    throw std::runtime_error("report JSON: not an opbench report of schema version " +
                             std::to_string(kJsonSchemaVersion));
  RunResults out;
  const json& c = j.at("context");
  out.context.device = device_from(c.at("system"));
  out.context.command_line = c.at("command_line"), out.context.git_commit = c.at("git_commit");
  out.context.timestamp = c.at("timestamp"), out.context.timing_mode = c.at("timing_mode");
  out.context.l2_mode = c.at("l2_mode"), out.context.tf32 = c.at("tf32");
  out.context.outlier_filter = c.at("outlier_filter");
  out.context.l2_flush = c.at("l2_flush"), out.context.stopping = c.at("stopping");
  out.context.repetitions = c.at("repetitions");
  if (c.contains("gpus"))
    for (const json& g : c.at("gpus")) out.context.gpus.push_back(fleet_gpu_from(g));
  if (c.contains("shard"))
    out.context.shard = {c.at("shard").at("index").get<int>(), c.at("shard").at("count").get<int>(),
                         c.at("shard").value("launcher", std::string())};
  out.context.replicate = c.value("replicate", false);
  out.context.slow_gpu_margin = c.value("slow_gpu_margin", out.context.slow_gpu_margin);

  // Records of one problem share its id; they are regrouped in the order the problems first appear.
  std::map<std::string, std::size_t> index;
  std::vector<SizeClass> size_classes = all_size_classes();
  size_classes.push_back(SizeClass::custom);
  for (const json& rec : j.at("results")) {
    ProblemResult p;
    p.op = rec.at("operation");
    p.category = enum_from(rec.at("category").get<std::string>(), category_name, all_categories(), "category");
    p.shape = rec.at("shape").get<Shape>();
    p.size_class = enum_from(rec.at("size_class").get<std::string>(), size_class_name, size_classes, "size class");
    const auto dt = parse_dtype(rec.at("dtype").get<std::string>());
    if (!dt) throw std::runtime_error("report JSON: unknown dtype in a record of " + p.op);
    p.dtype = *dt;
    p.bytes = rec.at("bytes"), p.flops = rec.at("flops");
    p.gpu = gpu_id_from(rec);
    p.wall_ms = rec.value("wall_ms", 0.0);
    p.selection_index = rec.value("selection_index", -1);

    ImplResult r;
    r.impl = enum_from(rec.at("implementation").get<std::string>(), impl_name,
                       std::vector<ImplKind>{ImplKind::framework, ImplKind::torch, ImplKind::cudnn, ImplKind::cublas},
                       "implementation");
    r.message = rec.at("message");
    r.pure = stats_or_none(rec, "time_stats");
    r.real = stats_or_none(rec, "real_time_stats");
    r.graph = stats_or_none(rec, "graph_time_stats");
    r.kernel = rec.at("kernel");
    r.memory_mb = rec.at("memory_mb");
    r.verify = verification_from(rec.at("verification"));
    r.status = enum_from(rec.at("status").get<std::string>(), status_name,
                         std::vector<Status>{Status::ok, Status::incorrect, Status::failed, Status::not_supported},
                         "status");

    // A replicated run has each problem once per GPU: the GPU is part of the key.
    const auto [it, added] = index.emplace(p.id() + " @" + p.gpu.host + ":" + std::to_string(p.gpu.index) + ":" + p.gpu.uuid,
                                           out.problems.size());
    if (added) out.problems.push_back(p);
    ProblemResult& target = out.problems[it->second];
    target.impls.push_back(std::move(r));
  }
  return out;
}

}  // namespace opbench::reports
