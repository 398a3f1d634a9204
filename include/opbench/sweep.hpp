// The transformer sweep (bench_ops --sweep): the row-wise ops of a transformer block (norms,
// activations, losses) on [batch * seq, dim] rows over a grid of batch sizes, sequence lengths and
// hidden dimensions, the way the scripts it replaces swept them. A generator of ordinary problems: the
// same verification, timing and reports, with each result carrying its grid point.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opbench {

// Where a sweep problem sits on the grid. tensor_dimension is the rows' length: the hidden size, or the
// vocabulary for ops over logits (OpDef::rows_over_vocab).
struct SweepPoint {
  int64_t batch_size = 0, sequence_length = 0, tensor_dimension = 0;
  bool operator==(const SweepPoint& o) const {
    return batch_size == o.batch_size && sequence_length == o.sequence_length && tensor_dimension == o.tensor_dimension;
  }
};

struct SweepGrid {
  std::vector<int64_t> batch = {16, 32, 64, 128};
  std::vector<int64_t> seq = {256, 512, 1024, 2048};
  std::vector<int64_t> dim = {768, 1024, 2048, 4096};
  int64_t vocab = 32000;  // the rows' length of ops over logits (cross_entropy), instead of dim
};

// What a sweep problem adds to its id ("/b16s512"): points of different batch and sequence length can
// share a [batch * seq, dim] shape, and ids are unique in a run. Empty for other problems.
inline std::string sweep_id_suffix(const std::optional<SweepPoint>& p) {
  return p ? "/b" + std::to_string(p->batch_size) + "s" + std::to_string(p->sequence_length) : std::string();
}

// The ops --sweep runs when no --op names others: those registered with this tag.
inline constexpr const char* kSweepTag = "sweep";

}  // namespace opbench
