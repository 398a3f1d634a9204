// Splitting a run's problems into shards, one per GPU or per launcher rank, balanced by cost and
// deterministic: every rank of a multi-node run computes the same assignment on its own from the same
// problem list, with no communication.
//
// Cost of a problem (what a shard's wall time is the sum of), in order of preference:
//  1. its measured wall time in an earlier report (--balance-from), or, for a report that predates
//     wall times, the sampling time its implementations spent (median x samples);
//  2. otherwise an estimate from the bytes and FLOPs it declares (estimate_problem_ms), scaled to the
//     earlier report's time base when one is given (median ratio measured / estimated over the problems
//     it has), so that measured and estimated costs are comparable.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/result.hpp"

namespace opbench::dist {

// "--shard i/n": shard i (0-based) of n.
struct ShardSpec {
  int index = 0;
  int count = 1;
  bool operator==(const ShardSpec& o) const { return index == o.index && count == o.count; }
};
std::optional<ShardSpec> parse_shard(const std::string& s);  // "1/4"; nullopt unless 0 <= i < n

struct CostItem {
  std::string id;   // the problem's id: the tie-break, so the order of the input does not matter
  double cost = 0;  // any unit, the same for all items
};

// Shard of each item (parallel to `items`): sorted by cost (descending, then id), each goes to the least
// loaded shard (ties: the lowest index). Every item lands in exactly one shard; no shard's load exceeds
// another's by more than the largest cost.
std::vector<int> assign_shards(const std::vector<CostItem>& items, int shards);

// Rough wall time of one problem in bench_ops, in ms, from the bytes and FLOPs it declares. Only the
// ratios between problems matter. A kernel takes a launch floor plus bytes at ~3 TB/s plus FLOPs at a
// dtype's dense peak (H100-class figures); a problem runs its implementations (~3) for up to ~100 samples
// each after the gate and a warm-up, which cost a fixed overhead however small the kernel is.
double estimate_problem_ms(double bytes, double flops, DType dtype);

// Measured cost per problem id from an earlier report (wall_ms, else the implementations' sampling time).
std::map<std::string, double> measured_costs(const RunResults& previous);

// The cost of each problem: measured where `measured` has it, else the estimate scaled to the measured
// time base (unscaled when nothing matches). `estimates` are estimate_problem_ms of the same problems.
std::vector<double> blend_costs(const std::vector<std::string>& ids, const std::vector<double>& estimates,
                                const std::map<std::string, double>& measured);

}  // namespace opbench::dist
