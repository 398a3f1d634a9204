// One timing sample of one implementation, in the order nvbench's measure_cold takes it. Device time
// (pure, and graph replays):
//   hold the stream (handshake) -> clock probe -> flush L2 (write, then read) -> start event -> launch
//   -> stop event -> clock probe -> release the stream -> synchronize -> read events and clock
// The sample's time is the span of the launch's own GPU work in CUPTI's activity records when the
// session traces (activity_trace.hpp), else the events' elapsed time.
// The clock probe starts before the flush so that the flush also evicts what the probe wrote.
// Host time (real): probe -> flush -> synchronize -> host clock, launch, synchronize, host clock -> probe.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "opbench/op.hpp"

namespace opbench {

class TimingResources;

// How host time is kept out of an implementation's device time.
enum class Handshake {
  blocking,  // the wait kernel holds the stream until the host has queued the whole sample
  delay,     // the launch synchronized inside once: the wait kernel with a short timeout (a delay
             // longer than the launch takes to queue); a sample counts only if released in time
  none,      // it synchronizes on every call: nothing can hold the stream; its time includes the
             // host time after its synchronization (and the result says so)
};

// The handshake state of one implementation in one mode; it only ever degrades.
struct LaunchState {
  Handshake handshake = Handshake::blocking;
  double enqueue_ms = 0;  // host time to queue one launch on an idle stream (prime())
  double delay_ms = 0;
  int late_in_a_row = 0;
  int untraced = 0;  // samples in which CUPTI saw no work of the launch: timed by the events
  std::vector<std::string> notes;  // each change of handshake, in words
};

struct Sample {
  bool kept = true;       // false: the handshake failed, the sample says nothing
  double ms = 0;
  double clock_mhz = 0;   // 0: unknown
};

constexpr double kHandshakeTimeoutMs = 100;  // far above any launch's queueing time (< 1 ms typical)
constexpr double kMaxDelayMs = 20;
constexpr int kLateLimit = 4;  // late samples in a row before a delayed launch counts as always syncing

class Sampler {
 public:
  Sampler(TimingResources& r, bool l2_cold, cudaStream_t s);
  // A plain call on an idle stream, never behind a held stream (lazy module loading and first-call
  // allocations synchronize); returns the host time the launch took to queue.
  double prime(const Launch& launch);
  Sample device(const Launch& run, LaunchState& st);
  Sample host(const Launch& launch);

 private:
  void on_late(LaunchState& st, double enqueue_ms);
  TimingResources& r_;
  bool l2_cold_;
  cudaStream_t s_;
  int device_ = 0;
};

}  // namespace opbench
