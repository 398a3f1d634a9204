#include "src/dist/launcher_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace opbench::dist {
namespace {

struct Names {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* marker;  // must also be set (nullptr: none)
};

constexpr Names kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", nullptr},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", nullptr},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_NUM_TASKS"},
};

int read_int(const EnvLookup& env, const char* name, const Names& n) {
  const char* v = env(name);
  if (!v)
    throw LauncherEnvError(fmt::format("{} is set but {} is not ({} sets both). Set it, or choose the shard and GPU "
                                       "by hand with --shard i/n --device N",
                                       n.rank, name, n.launcher));
  const std::string s = v;
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw LauncherEnvError(fmt::format("{}='{}' is not a non-negative integer ({}'s variable)", name, s, n.launcher));
  return std::atoi(s.c_str());
}

}  // namespace

EnvLookup process_env() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::optional<LaunchRank> detect_launcher(const EnvLookup& env) {
  for (const Names& n : kLaunchers) {
    // The rank variable decides whether this launcher started us (the marker too, for Slurm).
    if (!env(n.rank) || (n.marker && !env(n.marker))) continue;
    LaunchRank r;
    r.launcher = n.launcher;
    r.rank = read_int(env, n.rank, n);
    r.world_size = read_int(env, n.size, n);
    r.local_rank = read_int(env, n.local_rank, n);
    if (r.world_size < 1 || r.rank >= r.world_size)
      throw LauncherEnvError(fmt::format("{}={} with {}={}: the rank must be below the number of processes", n.rank,
                                         r.rank, n.size, r.world_size));
    r.variables = fmt::format("{}={} {}={} {}={}", n.rank, r.rank, n.size, r.world_size, n.local_rank, r.local_rank);
    return r;
  }
  return std::nullopt;
}

int device_for_local_rank(int local_rank, int visible) {
  if (local_rank < visible) return local_rank;
  if (visible == 1) return 0;
  throw LauncherEnvError(fmt::format(
      "local rank {} has no GPU of its own: {} are visible. Start at most {} processes per node "
      "(torchrun --nproc-per-node {}, srun --ntasks-per-node {}), or give each process one GPU",
      local_rank, visible, visible, visible, visible));
}

}  // namespace opbench::dist
