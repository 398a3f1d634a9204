// cross_entropy (mean over rows, no weights, no label smoothing):
//   loss = mean_r( logsumexp(x[r, :]) - x[r, target[r]] )
// One pass over the logits with an online (max, sum of exp) per thread, merged across the row's threads
// with the target logit (RowLossOps below); the thread that ends a row writes the row's loss (fp32) to the
// workspace, or, in the short-row kernel (one wave, grid-stride), adds it to its running sum, and each block
// writes the sum of its rows' losses (RowSink, row_engine.cuh); the mean of those values, in the input dtype,
// follows as a dependent launch (mean_dependent.cuh). Few long rows (at most half a wave of blocks) are split
// over one wave of blocks and combined per row in the same cooperative launch (launch_row_reduce).
// Bytes: rows*cols*s + rows*8 (targets) + s; e.g. 4096x151936 bf16: 1.24 GB -> ~415 us at ~3.0 TB/s
// (LibTorch's log_softmax + nll_loss writes and re-reads the log-probabilities: >= 3x the bytes).
// FLOPs ~4 per logit (max, sub, exp, add); ex2 throughput is ~2.5x the bf16 element rate: memory bound.
// Measured on H100 (bench_ops, L2 flushed, median; the full suite at 8134bb4, notes/performance.md):
// 8192x8192 fp32 93.3 us (93% of the read roof, 3.0x LibTorch), bf16 50.9 us (85%, 4.9x); 4096x32000 bf16 94.9 us
// (89%, 3.1x); rows of 25-34 MB in bf16 13-17 us, 63-68% of the roof (75-79% of the roof at their size).
#include "kernels/common/dependent_launch.cuh"
#include "kernels/loss/loss.hpp"
#include "kernels/reduction/mean_dependent.cuh"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace {

using namespace rowwise;

// The row's logsumexp state and its target column. Every thread of the row's job loads the target when the
// job starts (init: one address for the whole group, so one transaction), with the row's own loads and
// nothing depending on it until the row ends; the thread that ends the row then reads x[row, t],
// which the row's loads have just brought into L2. Loading x[row, t] in init as well (its address waits for
// the target) kept a medium row's loads behind two DRAM round trips in program order: H100, bf16 16384x768
// 17.6 us against 13.0 for logsumexp on the same rows (report 20261126-065426). Read at the row's end (A/B/A,
// one lease): 16.35 us against 17.54, fp32 512x512x512 198.5 against 211.2, but bf16 256x256x256 and
// 512x512x512 2-3% slower (the short-row kernel: its next rows' loads wait behind that read). Taking x[row, t]
// from the row's loaded vectors instead (the lane whose vector holds column t) cost registers and a test a
// vector: bf16 4096x151936 418.6 -> 502.4 us. Reading both target and x[row, t] at the row's end was two round
// trips after the reduction (256x256x256 fp32 57.4 us against 33.4, report 20261125-192853).
// The target is kept as loaded and tested for [0, cols) only at the row's end: testing it in init (as until
// da57bfc) made that test the first use of the load, so the warp waited a DRAM round trip for the target there,
// before it issued the row's loads (SASS: ISETP on the target right after its LDG, the row's LDG.128s after).
// H100 GPU 3e1ac9b5, bench_ops A/D/A/D, medians (us): fp32 512x512x512 194.3 -> 181.2, 64x512x512 29.1 -> 27.0;
// bf16 16384x768 15.97 -> 14.76, 16384x1024 17.9 -> 16.5, 4096x896 7.90 -> 7.18, 32x32x32 4.35 -> 3.98;
// geomean over the 128 problems 0.984; the short-row kernel's rows (256x256x256) as before.
// Reading x[row, t] before the lanes merge instead of after (so that the merge hides its latency) gained
// nothing measurable over that (geomean 0.982, same turns; and its build failed test_kernels' bf16
// cross_entropy case, not looked into) and was dropped.
struct CeState {
  float m, s;  // LseState
  int64_t t;   // the row's target, as loaded (the loss is NaN when it is outside [0, cols))
};
template <class T>
struct RowLossOps {
  using State = CeState;
  const T* x;
  const int64_t* target;
  int64_t cols;
  float* loss;  // a row's loss, or a block's sum of its rows' losses (RowSink)
  static constexpr bool kSumsRows = true;
  __device__ __forceinline__ State init(int64_t row) const {
    return {-INFINITY, 0.f, target[row]};
  }
  template <int N>
  __device__ __forceinline__ void add(State& st, const float (&v)[N], int64_t idx) const {
    LseState l{st.m, st.s};
    LseOps().add(l, v, idx);
    st.m = l.m;
    st.s = l.s;
  }
  __device__ __forceinline__ State combine(const State& a, const State& b) const {
    const LseState l = LseOps().combine(LseState{a.m, a.s}, LseState{b.m, b.s});
    return {l.m, l.s, a.t};
  }
  __device__ __forceinline__ float row_value(int64_t row, const State& st) const {
    const float xt = (st.t >= 0 && st.t < cols) ? to_float(x[row * cols + st.t]) : NAN;
    return lse_value(LseState{st.m, st.s}) - xt;
  }
  __device__ __forceinline__ void write(int64_t row, const State& st) const { loss[row] = row_value(row, st); }
  __device__ __forceinline__ void write_total(int64_t block, float s) const { loss[block] = s; }
};
// A row's lanes merge their (m, s) max-first as an LseState does (row_engine.cuh); t is the row's, the same in
// every lane.
template <class F>
__device__ __forceinline__ CeState warp_allreduce(CeState s, F) {
  const LseState l = lse_allreduce_lanes(LseState{s.m, s.s}, 32);
  return {l.m, l.s, s.t};
}
template <class F, class Width>
__device__ __forceinline__ CeState group_allreduce(CeState s, F, Width width) {
  const LseState l = lse_allreduce_lanes(LseState{s.m, s.s}, width);
  return {l.m, l.s, s.t};
}

constexpr std::size_t kAlign = 256;
std::size_t row_loss_bytes(int64_t rows) { return std::size_t(round_up(rows * 4, int64_t(kAlign))); }

}  // namespace

std::size_t cross_entropy_workspace_bytes(int64_t rows, int64_t cols, opbench::DType) {
  return row_loss_bytes(rows) + mean_scratch_bytes(rows) + row_reduce_workspace_bytes(rows, cols);
}

void cross_entropy(opbench::DType dt, const void* logits, const int64_t* targets, void* out, int64_t rows,
                   int64_t cols, void* ws, std::size_t ws_bytes, cudaStream_t stream) {
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  FW_REQUIRE(cols <= INT_MAX, "cross_entropy: more than 2^31 - 1 classes");
  FW_REQUIRE(logits != nullptr && targets != nullptr && out != nullptr, "null pointer");
  const std::size_t need = cross_entropy_workspace_bytes(rows, cols, dt);
  FW_REQUIRE(ws != nullptr && ws_bytes >= need, "workspace too small for cross_entropy");
  FW_REQUIRE((reinterpret_cast<uintptr_t>(ws) & 15) == 0, "workspace must be 16-byte aligned");
  float* loss = static_cast<float*>(ws);
  float* mean_scratch = reinterpret_cast<float*>(static_cast<char*>(ws) + row_loss_bytes(rows));
  const std::size_t head = row_loss_bytes(rows) + mean_scratch_bytes(rows);
  char* rest = static_cast<char*>(ws) + head;
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const RowLossOps<T> ops{static_cast<const T*>(logits), targets, cols, loss};
    const int64_t n = launch_row_reduce(ops.x, rows, cols, ops, rest, ws_bytes - head, stream);
    mean_dependent(static_cast<const float*>(loss), n, float(1.0 / double(rows)), static_cast<T*>(out),
                   mean_scratch, stream);
  });
}

}  // namespace fw
