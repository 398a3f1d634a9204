#include "src/compare/baseline.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "reports/json_writer.hpp"
#include "src/compare/comparison.hpp"

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

std::optional<BaselineChoice> find_baseline(const std::vector<std::string>& dirs, const RunResults& current,
                                            const std::string& current_path, bool ignore_device) {
  std::set<std::string> ids;
  for (const auto& p : current.problems) ids.insert(p.id());
  const RunContext& cc = current.context;
  std::error_code ec;
  const fs::path current_abs = fs::weakly_canonical(current_path, ec);

  std::optional<BaselineChoice> best;
  std::string best_time;
  for (const std::string& dir : dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("ops_", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path());
    }
    for (const fs::path& f : files) {
      if (fs::weakly_canonical(f, ec) == current_abs) continue;
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
      if (!best || shared > best->shared || (shared == best->shared && rc.timestamp > best_time)) {
        best = BaselineChoice{f.string(), shared};
        best_time = rc.timestamp;
      }
    }
  }
  return best;
}

}  // namespace opbench::compare
