// The device timer of pure and graph samples: CUPTI's activity records of the kernels, memcpys and
// memsets a sample queued, read from the GPU's own timestamps. A sample's time is the span from the
// first of them to start to the last of them to end, the figure ncu's gpu__time_duration gives for one
// kernel, without the ~2.5 µs (H100) that a pair of CUDA events adds around it (notes/methodology.md).
//
// A sample is found in the records by the harness kernels that bracket it, in stream order (sampler.hpp):
//   clock probe start -> [flush: memset, read sweep] -> the launch's work -> clock probe stop
// Everything after the flush's read sweep (after the probe start when the L2 is not flushed) and before
// the probe stop is the launch's: one stream, and nothing else runs on the GPU during a sample.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opbench {

// Which clock times a pure or graph sample (--device-timer):
//   cupti         CUPTI's activity timestamps of the launch's own work: from its first record's start to its
//                 last record's end (the kernel durations nsys shows).
//   cupti-stream  the same records, but from the end of the harness work queued right before the launch on
//                 its stream (the flush's read sweep, or the clock probe's start kernel when the L2 is warm):
//                 the GPU's start-up of the launch counts too, as in ncu's gpu__time_duration.
//   events        a pair of CUDA events around the launch; also the fallback when CUPTI cannot trace.
enum class DeviceTimer { cupti, cupti_stream, events };
const char* device_timer_name(DeviceTimer t);
// Where a CUPTI sample's span starts (the two CUPTI timers above).
enum class SpanStart { first_record, preceding_end };

// One activity record, as a sample's window needs it.
struct Activity {
  enum class Role { work, probe_start, probe_stop, flush_sweep };
  Role role = Role::work;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0;
};

// The harness kernel a (mangled) kernel name belongs to: the clock probe's start and stop kernels and
// the L2 flush's read sweep; any other kernel is work.
Activity::Role role_of_kernel(const char* name);

// The span in ms of the last complete sample in `records` (any order, one device): from the earliest
// start to the latest end of the records between its bracketing harness kernels (see the top).
// `flushed`: the sample flushed the L2, so the window opens after the first read sweep that follows the
// probe start. `from`: the span starts at the first record's start, or at the end of the harness record
// that opens the window (that sweep, or the probe start). nullopt when no complete sample is there or its
// window holds no work.
std::optional<double> sample_span_ms(std::vector<Activity> records, bool flushed,
                                     SpanStart from = SpanStart::first_record);

// Process-wide CUPTI activity tracing (CUPTI's buffers are global). Records accumulate until a sample
// takes them; every take forgets the records of the device it reads.
class ActivityTrace {
 public:
  // The trace, started on first use and shared by every caller; nullptr when CUPTI cannot trace, with
  // the reason in `why` (built without CUPTI, another tool holds it, the driver refused).
  static ActivityTrace* shared(std::string& why);

  // Flushes CUPTI's buffers (the caller synchronized the sample's stream first) and returns the span of
  // the last complete sample on `device`. nullopt, as in sample_span_ms, or when CUPTI dropped records.
  std::optional<double> take_sample_span_ms(int device, bool flushed, SpanStart from);
  // Flushes and forgets the records of `device` (a host-timed sample, set-up work).
  void discard(int device);

  ActivityTrace(const ActivityTrace&) = delete;
  ActivityTrace& operator=(const ActivityTrace&) = delete;

 private:
  ActivityTrace() = default;
  std::vector<Activity> take(int device, bool& dropped);
};

}  // namespace opbench
