#include "src/timing/clock_probe.hpp"

#include <algorithm>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/timing/device_clocks.cuh"

namespace opbench {

namespace {

using timing_detail::global_ns;
using timing_detail::read_clocks_at_tick;
using timing_detail::sm_id;

struct StartSlot {
  unsigned long long claim_start, claim_stop;  // the last sample id whose probe this SM answered
  unsigned long long ns, cycles;
};

struct ResultSlot {
  unsigned long long seq, ns, cycles;
};

// One block per SM is the intent, but the block scheduler may place two on one SM: the first to claim
// the slot for this sample writes it.
__global__ void probe_start_kernel(StartSlot* slots, int n, unsigned long long seq) {
  const unsigned sm = sm_id();
  if (sm >= unsigned(n) || atomicMax(&slots[sm].claim_start, seq) >= seq) return;
  unsigned long long ns = 0, cycles = 0;
  if (!read_clocks_at_tick(ns, cycles)) ns = 0;
  slots[sm].ns = ns;
  slots[sm].cycles = cycles;
}

__global__ void probe_stop_kernel(StartSlot* slots, ResultSlot* out, int n, unsigned long long seq,
                                  unsigned long long min_window_ns) {
  const unsigned sm = sm_id();
  if (sm >= unsigned(n)) return;
  StartSlot& s = slots[sm];
  if (s.claim_start != seq || s.ns == 0 || atomicMax(&s.claim_stop, seq) >= seq) return;
  unsigned long long ns = 0, cycles = 0;
  do {
    if (!read_clocks_at_tick(ns, cycles)) return;
  } while (ns - s.ns < min_window_ns);
  out[sm].ns = ns - s.ns;
  out[sm].cycles = cycles - s.cycles;
  out[sm].seq = seq;
}

__global__ void nsmid_kernel(unsigned* out) { *out = timing_detail::sm_id_limit(); }

// The step of %globaltimer: the median of 32 consecutive increments (0 if it never moves).
constexpr int kSteps = 33;
__global__ void timer_step_kernel(unsigned long long* steps) {
  unsigned long long prev = 0, cycles = 0;
  if (!read_clocks_at_tick(prev, cycles)) return;
  for (int i = 0; i < kSteps; ++i) {
    unsigned long long t = 0;
    if (!read_clocks_at_tick(t, cycles)) return;
    steps[i] = t - prev;
    prev = t;
  }
}

}  // namespace

ClockProbe::ClockProbe(int sm_count) : sm_count_(sm_count) {
  DeviceBuffer scratch(kSteps * sizeof(unsigned long long));
  OPBENCH_CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  nsmid_kernel<<<1, 1>>>(static_cast<unsigned*>(scratch.get()));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  unsigned nsmid = 0;
  OPBENCH_CUDA_CHECK(cudaMemcpy(&nsmid, scratch.get(), sizeof nsmid, cudaMemcpyDeviceToHost));
  slots_ = int(std::max<unsigned>(nsmid, unsigned(sm_count)));

  OPBENCH_CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  timer_step_kernel<<<1, 1>>>(static_cast<unsigned long long*>(scratch.get()));
  OPBENCH_CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned long long> steps(kSteps);
  OPBENCH_CUDA_CHECK(cudaMemcpy(steps.data(), scratch.get(), scratch.bytes(), cudaMemcpyDeviceToHost));
  std::nth_element(steps.begin(), steps.begin() + kSteps / 2, steps.end());
  step_ns_ = double(steps[kSteps / 2]);
  min_window_ns_ = static_cast<unsigned long long>(kMinWindowSteps * step_ns_);

  start_ = DeviceBuffer(std::size_t(slots_) * sizeof(StartSlot));
  OPBENCH_CUDA_CHECK(cudaMemset(start_.get(), 0, start_.bytes()));
  result_ = HostMappedBuffer(std::size_t(slots_) * sizeof(ResultSlot));
}

void ClockProbe::start(cudaStream_t s) {
  ++seq_;
  if (step_ns_ <= 0) return;
  probe_start_kernel<<<sm_count_, 1, 0, s>>>(static_cast<StartSlot*>(start_.get()), slots_, seq_);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

void ClockProbe::stop(cudaStream_t s) {
  if (step_ns_ <= 0) return;
  probe_stop_kernel<<<sm_count_, 1, 0, s>>>(static_cast<StartSlot*>(start_.get()), result_.device<ResultSlot>(),
                                            slots_, seq_, min_window_ns_);
  OPBENCH_CUDA_CHECK(cudaGetLastError());
}

double ClockProbe::mhz() const {
  std::vector<double> v;
  const volatile ResultSlot* r = result_.host<volatile ResultSlot>();
  for (int i = 0; i < slots_; ++i)
    if (r[i].seq == seq_ && r[i].ns > 0) v.push_back(double(r[i].cycles) / double(r[i].ns) * 1e3);
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace opbench
