// One report from several: the shard reports of a run over several GPUs or nodes (`bench_ops merge
// DIR|FILES...`), and the results a --devices parent gathered from its workers.
//
// A merge refuses, with the reason (MergeError, exit code 2):
//  - a missing shard (the files say "shard i of n": every i must be there) or a shard given twice;
//  - reports of different builds or settings (commit, timing, L2, TF32, outlier filter, repetitions);
//  - the same problem twice, unless the run was replicated (--replicate), where each GPU keeps its copy
//    (the same problem twice on one GPU is still refused);
//  - GPUs of different models, unless --allow-mixed-gpus: their times are not one population.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::dist {

class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MergeInput {
  std::string path;  // for messages
  RunResults results;
};

struct MergeSettings {
  bool allow_mixed_gpus = false;
  bool replicate = false;  // also true when every input says it was replicated
};

RunResults merge_reports(std::vector<MergeInput> inputs, const MergeSettings& settings);

// The files a merge reads: a folder stands for its shard-*.json files. Throws MergeError.
std::vector<std::string> expand_merge_paths(const std::vector<std::string>& args);

// Reads a report file (from_json). Throws MergeError naming the file.
MergeInput read_report(const std::string& path);

// "shard-1-of-4.json": the name a rank's shard report has in the shared output folder.
std::string shard_file_name(const ShardTag& shard);
// Writes a shard report there, whole or not at all; returns its path. Throws reports::ReportWriteError.
std::string write_shard_report(const RunResults& results, const std::string& dir);

// Problems in their run's selection order (stable: ties keep their order, e.g. one copy per GPU).
void order_by_selection(std::vector<ProblemResult>& problems);

// The GPUs of several contexts, each board once (the hottest temperature reading kept).
std::vector<FleetGpu> union_gpus(const std::vector<const RunContext*>& contexts);

// `bench_ops merge ...`: argv[0] is "merge". Returns the exit code.
int merge_main(int argc, char** argv);

}  // namespace opbench::dist
