// Reading a report back (json_writer.hpp): the measured fields only; every derived figure is rebuilt
// from them by build_report, so a report read back reads exactly as it was written.
#include <map>
#include <stdexcept>

#include "reports/fleet.hpp"
#include "reports/json_writer.hpp"

namespace opbench::reports {
namespace {

using nlohmann::json;

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

DeviceInfo device_from(const json& j) {
  DeviceInfo d;
  d.name = j.at("name"), d.device = j.at("device");
  d.compute_major = j.at("compute_major"), d.compute_minor = j.at("compute_minor");
  d.sm_count = j.at("sm_count"), d.sm_clock_mhz = j.at("sm_clock_mhz"), d.mem_clock_mhz = j.at("mem_clock_mhz");
  d.bus_width_bits = j.at("bus_width_bits"), d.l2_mb = j.at("l2_mb"), d.memory_gb = j.at("memory_gb");
  d.theoretical_gbps = j.at("theoretical_gbps"), d.measured_copy_gbps = j.at("measured_copy_gbps");
  d.measured_read_gbps = j.at("measured_read_gbps");
  d.measured_write_gbps = j.value("measured_write_gbps", 0.0);  // absent in reports written before the write sweep
  d.driver_version = j.at("driver_version"), d.runtime_version = j.at("runtime_version");
  d.cublas_version = j.at("cublas_version"), d.cudnn_version = j.at("cudnn_version");
  d.torch_version = j.at("torch_version");
  for (const json& g : j.at("measured_gemm")) {
    const auto t = parse_dtype(g.at("dtype").get<std::string>());
    if (!t) throw std::runtime_error("report JSON: unknown dtype in system.measured_gemm");
    d.measured_gemm.push_back({*t, g.at("tf32").get<bool>(), g.at("tflops").get<double>(), g.at("how")});
  }
  if (j.contains("roof_curve"))  // absent in reports written before the roofs were measured by size
    for (const json& p : j.at("roof_curve"))
      d.roof_curve.push_back({p.at("bytes").get<double>(), p.at("read_gbps").get<double>(), p.at("copy_gbps").get<double>(),
                              p.value("write_gbps", 0.0)});
  return d;
}

Verification verification_from(const json& j) {
  Verification v;
  v.checked = j.at("checked"), v.correct = j.at("correct");
  v.max_abs_err = j.at("max_abs_err"), v.max_rel_err = j.at("max_rel_err");
  v.oracle_max_abs_err = j.at("oracle_max_abs_err"), v.oracle_max_rel_err = j.at("oracle_max_rel_err");
  v.oracle_rel_l2_err = j.at("oracle_rel_l2_err"), v.mismatches = j.at("mismatches");
  v.first_mismatch = j.at("first_mismatch");
  v.tolerance = {j.at("atol").get<double>(), j.at("rtol").get<double>(), j.value("rel_l2", 0.0)};
  v.rel_l2_err = j.value("rel_l2_err", 0.0);  // absent in reports written before model runs
  return v;
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
  // The device timer (absent from reports that predate it: they were timed by CUDA events).
  out.context.device_timer = c.value("device_timer", std::string("events"));
  out.context.device_timer_text = c.value("device_timer_text", std::string());
  // Runs over several GPUs and nodes (src/dist); absent from one-GPU reports.
  if (c.contains("gpus"))
    for (const json& g : c.at("gpus")) out.context.gpus.push_back(fleet_gpu_from(g));
  if (c.contains("shard"))
    out.context.shard = {c.at("shard").at("index").get<int>(), c.at("shard").at("count").get<int>(),
                         c.at("shard").value("launcher", std::string())};
  out.context.replicate = c.value("replicate", false);
  out.context.slow_gpu_margin = c.value("slow_gpu_margin", out.context.slow_gpu_margin);
  // --category model (absent from other reports and from those that predate it).
  if (c.contains("model") && !c.at("model").is_null()) {
    const json& m = c.at("model");
    ModelConfig cfg;
    cfg.name = m.at("name"), cfg.layers = m.at("layers"), cfg.hidden = m.at("hidden");
    cfg.intermediate = m.at("intermediate"), cfg.heads_q = m.at("heads_q"), cfg.heads_kv = m.at("heads_kv");
    cfg.head_dim = m.at("head_dim"), cfg.vocab = m.at("vocab");
    cfg.rms_eps = m.at("rms_eps"), cfg.rope_theta = m.at("rope_theta");
    cfg.qkv_bias = m.at("qkv_bias"), cfg.tied_embeddings = m.at("tied_embeddings");
    out.context.model = cfg;
  }

  // Records of one problem share its id; they are regrouped in the order the problems first appear.
  std::map<std::string, std::size_t> index;
  std::vector<SizeClass> size_classes = all_size_classes();
  size_classes.push_back(SizeClass::custom);
  for (const json& rec : j.at("results")) {
    ProblemResult p;
    p.op = rec.at("operation");
    p.category = Category{rec.at("category").get<std::string>()};
    p.shape = rec.at("shape").get<Shape>();
    p.size_class = enum_from(rec.at("size_class").get<std::string>(), size_class_name, size_classes, "size class");
    const auto dt = parse_dtype(rec.at("dtype").get<std::string>());
    if (!dt) throw std::runtime_error("report JSON: unknown dtype in a record of " + p.op);
    p.dtype = *dt;
    p.bytes = rec.at("bytes"), p.flops = rec.at("flops"), p.bytes_written = rec.at("bytes_written");
    p.twin_of = rec.value("twin_of", std::string());
    p.gpu = gpu_id_from(rec);
    p.wall_ms = rec.value("wall_ms", 0.0);
    p.selection_index = rec.value("selection_index", -1);
    if (rec.contains("batch_size"))
      p.sweep = SweepPoint{rec.at("batch_size").get<int64_t>(), rec.at("sequence_length").get<int64_t>(),
                           rec.at("tensor_dimension").get<int64_t>()};

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
    const auto [it, added] = index.emplace(
        p.id() + " @" + p.gpu.host + ":" + std::to_string(p.gpu.index) + ":" + p.gpu.uuid, out.problems.size());
    if (added) out.problems.push_back(p);
    ProblemResult& target = out.problems[it->second];
    target.impls.push_back(std::move(r));
  }
  return out;
}

}  // namespace opbench::reports
