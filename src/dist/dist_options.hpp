// The command-line settings of runs over several GPUs and nodes (parsed in src/cli/cli.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "src/dist/shard.hpp"

namespace opbench::dist {

// --devices all|0,1,...: one worker process per listed GPU (a GPU listed twice gets two workers).
struct DeviceList {
  bool all = false;
  std::vector<int> ids;
  bool empty() const { return !all && ids.empty(); }
};
std::optional<DeviceList> parse_device_list(const std::string& s);  // "all" or "0,1,3"

struct DistOptions {
  DeviceList devices;                // --devices: shard over these GPUs, one worker each
  std::optional<int> device;         // --device N: this process's GPU (a launcher's LOCAL_RANK otherwise)
  std::optional<ShardSpec> shard;    // --shard i/n: this process's shard (a launcher's RANK/WORLD_SIZE otherwise)
  bool isolate = false;              // --isolate: every problem in a fresh worker process
  bool replicate = false;            // --replicate: every GPU runs every problem (the per-GPU table)
  std::string balance_from;          // --balance-from REPORT.json: measured costs for the shard balance
  double slow_gpu_margin = 0.05;     // --slow-gpu-margin PCT (stored as a fraction)

  // Set by the parent for a worker it starts (hidden options): the problems to run (a file, one id a
  // line) and the journal to append each result to.
  std::string worker_problems;
  std::string worker_journal;
  bool is_worker() const { return !worker_journal.empty(); }
};

}  // namespace opbench::dist
