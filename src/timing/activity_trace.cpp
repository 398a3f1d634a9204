#include "src/timing/activity_trace.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#ifdef OPBENCH_HAVE_CUPTI
#include <cupti.h>
#endif

namespace opbench {

const char* device_timer_name(DeviceTimer t) {
  switch (t) {
    case DeviceTimer::cupti: return "cupti";
    case DeviceTimer::cupti_stream: return "cupti-stream";
    case DeviceTimer::events: return "events";
  }
  return "?";
}

Activity::Role role_of_kernel(const char* name) {
  if (name == nullptr) return Activity::Role::work;
  // The harness kernels' identifiers (clock_probe.cu, l2_flush.cu), found inside their mangled names.
  if (std::strstr(name, "probe_start_kernel")) return Activity::Role::probe_start;
  if (std::strstr(name, "probe_stop_kernel")) return Activity::Role::probe_stop;
  if (std::strstr(name, "read_sweep_kernel")) return Activity::Role::flush_sweep;
  return Activity::Role::work;
}

std::optional<double> sample_span_ms(std::vector<Activity> records, bool flushed, SpanStart from) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Activity& a, const Activity& b) { return a.start_ns < b.start_ns; });
  using Role = Activity::Role;
  const auto is = [&](std::size_t i, Role r) { return records[i].role == r; };
  std::size_t stop = records.size();
  while (stop > 0 && !is(stop - 1, Role::probe_stop)) --stop;
  if (stop == 0) return std::nullopt;
  --stop;  // the last probe stop
  std::size_t start = stop;
  while (start > 0 && !is(start - 1, Role::probe_start)) --start;
  if (start == 0) return std::nullopt;
  --start;  // its probe start
  std::size_t open = start;
  if (flushed) {  // the flush's read sweep: the first one after the probe start (the launch may be a sweep too)
    open = start + 1;
    while (open < stop && !is(open, Role::flush_sweep)) ++open;
    if (open == stop) return std::nullopt;
  }
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  for (std::size_t i = open + 1; i < stop; ++i) {
    first = std::min(first, records[i].start_ns);
    last = std::max(last, records[i].end_ns);
  }
  if (last == 0 || last < first) return std::nullopt;
  if (from == SpanStart::preceding_end) first = std::min(first, records[open].end_ns);
  return double(last - first) * 1e-6;
}

#ifdef OPBENCH_HAVE_CUPTI

namespace {

// Small buffers: every sample's forced flush hands one back and the next sample asks for another, at a
// cost that grows with the size (8 MiB buffers added ~1 ms per sample on the H100); CUPTI asks for more
// when a launch queues more records than one holds (a model step's thousands of kernels).
constexpr std::size_t kBufferBytes = std::size_t(128) << 10;
// Records nobody takes (a session timed by the events while another traces) are bounded: the oldest go.
constexpr std::size_t kMaxRecords = std::size_t(1) << 20;

struct Collector {
  std::mutex m;
  std::vector<Activity> records;
  std::vector<std::uint8_t*> spare;  // buffers CUPTI handed back, for its next request
};

// Never destroyed. CUPTI hands its last buffers back when the CUDA runtime tears the context down at
// exit, which runs after the destructors of statics made later than the runtime's first call (this one
// is made at CUPTI's first buffer request): a function-local `static Collector` was already gone then,
// and on_buffer_completed pushed into its freed vectors. The GPU test processes, whose kernels CUPTI
// records but nobody takes, passed and then aborted at exit ("corrupted double-linked list", 1 test of
// 232 a suite, silu_gate_backward_bf16 each time seen).
Collector& collector() {
  static Collector* const c = new Collector();
  return *c;
}

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  Collector& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.m);
    if (!c.spare.empty()) {
      *buffer = c.spare.back();
      c.spare.pop_back();
    } else {
      *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI on_buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  Collector& c = collector();
  std::lock_guard<std::mutex> lock(c.m);
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        c.records.push_back({role_of_kernel(k->name), k->start, k->end, k->deviceId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        c.records.push_back({Activity::Role::work, m->start, m->end, m->deviceId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        c.records.push_back({Activity::Role::work, m->start, m->end, m->deviceId});
        break;
      }
      default:
        break;
    }
  }
  if (c.records.size() > kMaxRecords) c.records.erase(c.records.begin(), c.records.begin() + long(kMaxRecords / 2));
  if (buffer) c.spare.push_back(buffer);
}

std::string cupti_error(const char* what, CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr) s = "unknown CUPTI error";
  return std::string(what) + ": " + s;
}

}  // namespace

ActivityTrace* ActivityTrace::shared(std::string& why) {
  static std::string error;
  static ActivityTrace* const trace = []() -> ActivityTrace* {
    if (CUptiResult r = cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed); r != CUPTI_SUCCESS) {
      error = cupti_error("cuptiActivityRegisterCallbacks", r);
      return nullptr;
    }
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMSET};
    for (CUpti_ActivityKind k : kinds)
      if (CUptiResult r = cuptiActivityEnable(k); r != CUPTI_SUCCESS) {
        error = cupti_error("cuptiActivityEnable", r);
        for (CUpti_ActivityKind d : kinds) (void)cuptiActivityDisable(d);
        return nullptr;
      }
    return new ActivityTrace();  // lives as long as the process, like CUPTI's own state
  }();
  if (!trace) why = error;
  return trace;
}

std::vector<Activity> ActivityTrace::take(int device, bool& dropped) {
  dropped = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS;
  std::size_t lost = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &lost) == CUPTI_SUCCESS && lost > 0) dropped = true;
  Collector& c = collector();
  std::lock_guard<std::mutex> lock(c.m);
  std::vector<Activity> mine;
  auto rest = std::stable_partition(c.records.begin(), c.records.end(),
                                    [&](const Activity& a) { return int(a.device) != device; });
  mine.assign(rest, c.records.end());
  c.records.erase(rest, c.records.end());
  return mine;
}

#else  // built without CUPTI: CUDA events are the only device timer

ActivityTrace* ActivityTrace::shared(std::string& why) {
  why = "this build has no CUPTI (CMake found no CUDA::cupti in the CUDA toolkit)";
  return nullptr;
}

std::vector<Activity> ActivityTrace::take(int, bool& dropped) {
  dropped = true;
  return {};
}

#endif

std::optional<double> ActivityTrace::take_sample_span_ms(int device, bool flushed, SpanStart from) {
  bool dropped = false;
  std::vector<Activity> records = take(device, dropped);
  if (dropped) return std::nullopt;
  return sample_span_ms(std::move(records), flushed, from);
}

void ActivityTrace::discard(int device) {
  bool dropped = false;
  (void)take(device, dropped);
}

}  // namespace opbench
