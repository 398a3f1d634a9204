#include "src/compare/baseline.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "reports/json_writer.hpp"
#include "src/compare/comparison.hpp"
#include "src/model/stats.hpp"

namespace fs = std::filesystem;

namespace opbench::compare {

RunResults load_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{} is not JSON: {}", path, e.what()));
  }
  if (!j.is_object() || !j.contains("results") || !j.contains("context"))
    throw InputError(fmt::format("{} is not a bench_ops report (no context and results)", path));
  const int schema = j.value("schema_version", 0);
  if (schema != reports::kJsonSchemaVersion)
    throw InputError(fmt::format(
        "{} is a bench_ops report of schema {}, this bench_ops reads schema {}{}.\nRe-run the suite with this "
        "bench_ops to get a report it can compare.",
        path, schema, reports::kJsonSchemaVersion,
        schema < reports::kJsonSchemaVersion ? " (older reports have no quartiles or samples to judge noise by)" : ""));
  try {
    return reports::from_json(j);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  }
}

std::vector<BaselineChoice> find_baselines(const std::vector<std::string>& dirs, const RunResults& current,
                                           const std::string& current_path, bool ignore_device, int count) {
  std::set<std::string> ids;
  for (const auto& p : current.problems) ids.insert(p.id());
  const RunContext& cc = current.context;
  std::error_code ec;
  const fs::path current_abs = fs::weakly_canonical(current_path, ec);

  struct Candidate {
    BaselineChoice choice;
    std::string time;
  };
  std::vector<Candidate> found;
  std::set<fs::path> seen;
  for (const std::string& dir : dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("ops_", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path());
    }
    for (const fs::path& f : files) {
      const fs::path abs = fs::weakly_canonical(f, ec);
      if (abs == current_abs || !seen.insert(abs).second) continue;
      RunResults r;
      try {
        r = load_report(f.string());
      } catch (const InputError&) {
        continue;  // another schema or a broken file: never a baseline
      }
      const RunContext& rc = r.context;
      if (rc.timestamp == cc.timestamp && rc.command_line == cc.command_line) continue;  // the same run
      try {
        check_comparable(rc, cc, ignore_device, f.string(), current_path);
      } catch (const InputError&) {
        continue;
      }
      int shared = 0;
      for (const auto& p : r.problems) shared += int(ids.count(p.id()));
      if (shared == 0) continue;
      found.push_back({BaselineChoice{f.string(), shared}, rc.timestamp});
    }
  }
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    if (a.choice.shared != b.choice.shared) return a.choice.shared > b.choice.shared;
    if (a.time != b.time) return a.time > b.time;
    return a.choice.path < b.choice.path;
  });
  std::vector<BaselineChoice> out;
  for (const Candidate& c : found)
    if (int(out.size()) < count) out.push_back(c.choice);
  return out;
}

std::optional<BaselineChoice> find_baseline(const std::vector<std::string>& dirs, const RunResults& current,
                                            const std::string& current_path, bool ignore_device) {
  const auto best = find_baselines(dirs, current, current_path, ignore_device, 1);
  if (best.empty()) return std::nullopt;
  return best.front();
}

namespace {

// The timing of one mode (pure, real, graph) of an implementation result.
std::optional<TimeStats>* mode_of(ImplResult& r, int mode) { return mode == 0 ? &r.pure : mode == 1 ? &r.real : &r.graph; }
const std::optional<TimeStats>* mode_of(const ImplResult& r, int mode) {
  return mode == 0 ? &r.pure : mode == 1 ? &r.real : &r.graph;
}

}  // namespace

void pool_baselines(RunResults& base, const std::vector<RunResults>& more) {
  std::vector<std::map<std::string, const ProblemResult*>> index(more.size());
  for (std::size_t k = 0; k < more.size(); ++k)
    for (const ProblemResult& p : more[k].problems) index[k].emplace(p.id(), &p);
  for (ProblemResult& p : base.problems) {
    for (ImplResult& impl : p.impls) {
      if (impl.status != Status::ok) continue;
      for (int mode = 0; mode < 3; ++mode) {
        std::optional<TimeStats>& mine = *mode_of(impl, mode);
        if (!mine || mine->samples_ms.empty()) continue;
        std::vector<double> samples = mine->samples_ms;
        double clock_weight = mine->sm_clock_mhz * double(mine->samples_ms.size());
        std::size_t clocked = mine->sm_clock_mhz > 0 ? mine->samples_ms.size() : 0;
        bool reliable = mine->reliable;
        int throttled = mine->throttled_samples, parts = 1;
        for (std::size_t k = 0; k < more.size(); ++k) {
          const auto it = index[k].find(p.id());
          if (it == index[k].end()) continue;
          const ImplResult* other = it->second->find(impl.impl);
          if (!other || other->status != Status::ok) continue;
          const std::optional<TimeStats>& theirs = *mode_of(*other, mode);
          if (!theirs || theirs->samples_ms.empty()) continue;
          samples.insert(samples.end(), theirs->samples_ms.begin(), theirs->samples_ms.end());
          if (theirs->sm_clock_mhz > 0) {
            clock_weight += theirs->sm_clock_mhz * double(theirs->samples_ms.size());
            clocked += theirs->samples_ms.size();
          }
          reliable = reliable && theirs->reliable;
          throttled += theirs->throttled_samples;
          ++parts;
        }
        if (parts == 1) continue;
        TimeStats pooled = compute_stats(samples, false);
        pooled.sm_clock_mhz = clocked ? clock_weight / double(clocked) : 0;
        pooled.reliable = reliable;
        pooled.throttled_samples = throttled;
        pooled.remeasured = mine->remeasured;
        pooled.stop_reason = fmt::format("pooled: the samples of {} reports", parts);
        mine = std::move(pooled);
      }
    }
  }
}

}  // namespace opbench::compare
