#include "src/dist/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "reports/fleet.hpp"
#include "reports/json_writer.hpp"
#include "reports/report_files.hpp"

namespace fs = std::filesystem;

namespace opbench::dist {
namespace {

std::string shard_text(const ShardTag& s) { return fmt::format("{}/{}", s.index, s.count); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Every input with shard tags must be one complete split: the same n, each i once.
void check_shards(const std::vector<MergeInput>& in) {
  std::map<int, std::string> seen;  // index -> path
  int count = 0;
  std::string count_from;
  for (const MergeInput& m : in) {
    const ShardTag& s = m.results.context.shard;
    if (s.count == 0) continue;
    if (count == 0) count = s.count, count_from = m.path;
    if (s.count != count)
      throw MergeError(fmt::format("{} is shard {} but {} is of {} shards: these files come from different runs; "
                                   "give each run its own --output-dir",
                                   m.path, shard_text(s), count_from, count));
    if (const auto it = seen.find(s.index); it != seen.end())
      throw MergeError(fmt::format("shard {} twice: {} and {} (two runs in one folder? give each run its own "
                                   "--output-dir)",
                                   shard_text(s), it->second, m.path));
    seen[s.index] = m.path;
  }
  std::vector<std::string> missing, files;
  for (int i = 0; i < count; ++i)
    if (!seen.count(i)) {
      missing.push_back(shard_text({i, count, ""}));
      files.push_back(shard_file_name({i, count, ""}));
    }
  if (!missing.empty())
    throw MergeError(fmt::format("missing shard{} {} of the run ({} not found): did those ranks fail or not finish? "
                                 "Their output says why; rerun them with --shard i/{} into the same folder",
                                 missing.size() > 1 ? "s" : "", join(missing), join(files), count));
}

// The settings that make two reports' figures comparable.
void check_settings(const MergeInput& base, const MergeInput& m) {
  const RunContext& a = base.results.context;
  const RunContext& b = m.results.context;
  auto differ = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y)
      throw MergeError(fmt::format("{} and {} differ in {} ({} vs {}): the merged figures would not be comparable",
                                   base.path, m.path, what, x.empty() ? "none" : x, y.empty() ? "none" : y));
  };
  differ("the build (git commit)", a.git_commit, b.git_commit);
  differ("timing mode", a.timing_mode, b.timing_mode);
  differ("device timer", a.device_timer, b.device_timer);
  differ("L2 mode", a.l2_mode, b.l2_mode);
  differ("TF32", a.tf32 ? "on" : "off", b.tf32 ? "on" : "off");
  differ("outlier filter", a.outlier_filter ? "on" : "off", b.outlier_filter ? "on" : "off");
  differ("repetitions", std::to_string(a.repetitions), std::to_string(b.repetitions));
}

std::string gpu_text(const GpuId& g) {
  return g.known() ? reports::gpu_label(g) + (g.uuid.empty() ? "" : " " + g.uuid) : "an unrecorded GPU";
}

}  // namespace

std::string shard_file_name(const ShardTag& s) { return fmt::format("shard-{}-of-{}.json", s.index, s.count); }

std::string write_shard_report(const RunResults& results, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw reports::ReportWriteError(fmt::format("cannot create report folder {}: {}", dir, ec.message()));
  const std::string path = (fs::path(dir) / shard_file_name(results.context.shard)).string();
  reports::write_file_atomic(path, reports::to_json(results).dump(2) + "\n");
  return path;
}

void order_by_selection(std::vector<ProblemResult>& problems) {
  std::stable_sort(problems.begin(), problems.end(), [](const ProblemResult& a, const ProblemResult& b) {
    return a.selection_index < b.selection_index;
  });
}

std::vector<FleetGpu> union_gpus(const std::vector<const RunContext*>& contexts) {
  std::vector<FleetGpu> out;
  for (const RunContext* c : contexts)
    for (const FleetGpu& g : c->gpus) {
      auto it = std::find_if(out.begin(), out.end(), [&](const FleetGpu& o) { return o.id.same_board(g.id); });
      if (it == out.end()) {
        out.push_back(g);
      } else if (g.max_temperature_c) {
        it->max_temperature_c = std::max(it->max_temperature_c.value_or(*g.max_temperature_c), *g.max_temperature_c);
      }
    }
  return out;
}

std::vector<std::string> expand_merge_paths(const std::vector<std::string>& args) {
  if (args.empty()) throw MergeError("nothing to merge: name a folder of shard reports or the report files");
  std::vector<std::string> files;
  for (const std::string& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(a, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("shard-", 0) == 0 && e.path().extension() == ".json") found.push_back(e.path().string());
      }
      if (ec) throw MergeError(fmt::format("cannot list {}: {}", a, ec.message()));
      if (found.empty())
        throw MergeError(fmt::format("{} holds no shard-*.json: name the report files, or the folder the ranks "
                                     "wrote to (their --output-dir)",
                                     a));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      throw MergeError(fmt::format("{}: no such file or folder", a));
    }
  }
  return files;
}

MergeInput read_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MergeError(fmt::format("cannot read {}", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return {path, reports::from_json(nlohmann::json::parse(ss.str()))};
  } catch (const std::exception& e) {
    throw MergeError(fmt::format("{} is not an opbench report this bench_ops can read: {}", path, e.what()));
  }
}

RunResults merge_reports(std::vector<MergeInput> in, const MergeSettings& settings) {
  if (in.empty()) throw MergeError("nothing to merge");
  check_shards(in);
  // Shards in index order, then as given: the merged context comes from the first that ran something.
  std::stable_sort(in.begin(), in.end(), [](const MergeInput& a, const MergeInput& b) {
    return a.results.context.shard.index < b.results.context.shard.index;
  });
  const MergeInput* base = &in.front();
  for (const MergeInput& m : in)
    if (!m.results.problems.empty()) {
      base = &m;
      break;
    }
  bool replicate = settings.replicate;
  bool all_replicated = true;
  for (const MergeInput& m : in) all_replicated = all_replicated && m.results.context.replicate;
  replicate = replicate || all_replicated;

  std::map<std::string, std::vector<std::string>> models;  // GPU name -> where
  std::vector<const RunContext*> contexts;
  for (const MergeInput& m : in) {
    if (m.results.problems.empty()) continue;
    check_settings(*base, m);
    contexts.push_back(&m.results.context);
    std::set<std::string> names;
    for (const FleetGpu& g : m.results.context.gpus) names.insert(g.id.name);
    if (names.empty()) names.insert(m.results.context.device.name);
    for (const std::string& n : names) models[n].push_back(m.path);
  }
  if (models.size() > 1 && !settings.allow_mixed_gpus) {
    std::vector<std::string> parts;
    for (const auto& [name, paths] : models) parts.push_back(fmt::format("{} ({})", name, join(paths)));
    throw MergeError(fmt::format("the reports come from different GPU models: {}. Their times are not one population "
                                 "(one model's medians would be graded against another's); pass --allow-mixed-gpus "
                                 "to merge them anyway",
                                 join(parts)));
  }

  RunResults out;
  out.context = base->results.context;
  out.context.shard = ShardTag{};
  out.context.replicate = replicate;
  out.context.gpus = union_gpus(contexts);
  for (const RunContext* c : contexts)
    if (!c->timestamp.empty() && c->timestamp < out.context.timestamp) out.context.timestamp = c->timestamp;

  std::map<std::string, std::vector<std::pair<GpuId, std::string>>> seen;  // id -> (gpu, path)
  for (const MergeInput& m : in)
    for (const ProblemResult& p : m.results.problems) {
      auto& where = seen[p.id()];
      for (const auto& [gpu, path] : where) {
        if (gpu.same_board(p.gpu))
          throw MergeError(fmt::format("{} appears twice from the same GPU ({}): in {} and {}; were the same shard's "
                                       "results given twice?",
                                       p.id(), gpu_text(gpu), path, m.path));
        if (!replicate)
          throw MergeError(fmt::format("{} appears twice: in {} ({}) and {} ({}). The shards of one run never "
                                       "overlap: are these two runs? A --replicate run keeps one copy per GPU: merge "
                                       "its reports with --replicate",
                                       p.id(), path, gpu_text(gpu), m.path, gpu_text(p.gpu)));
      }
      where.emplace_back(p.gpu, m.path);
      out.problems.push_back(p);
    }
  order_by_selection(out.problems);
  return out;
}

}  // namespace opbench::dist
