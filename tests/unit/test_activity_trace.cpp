// The CUPTI device timer's window, without a GPU: which activity records belong to a sample's launch
// (activity_trace.hpp), on record lists shaped as the sampler queues them.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "src/timing/activity_trace.hpp"

using namespace opbench;
using Role = Activity::Role;

namespace {

Activity rec(Role r, std::uint64_t start_us, std::uint64_t end_us) { return {r, start_us * 1000, end_us * 1000, 0}; }

// One sample as Sampler::device queues it (blocking kernel, probe start, flush memset and read sweep,
// the launch's records, probe stop), from t0 on, in microseconds.
std::vector<Activity> sample(std::uint64_t t0, const std::vector<Activity>& launch, bool flushed = true) {
  std::vector<Activity> v = {rec(Role::work, t0, t0 + 1), rec(Role::probe_start, t0 + 2, t0 + 3)};
  if (flushed) {
    v.push_back(rec(Role::work, t0 + 4, t0 + 40));          // the flush's memset
    v.push_back(rec(Role::flush_sweep, t0 + 41, t0 + 80));  // its read sweep
  }
  for (const Activity& a : launch) v.push_back({a.role, a.start_ns + t0 * 1000, a.end_ns + t0 * 1000, 0});
  const std::uint64_t last = launch.empty() ? t0 + 81 : std::max_element(launch.begin(), launch.end(), [](auto& a, auto& b) {
                                                          return a.end_ns < b.end_ns;
                                                        })->end_ns / 1000 + t0 + 2;
  v.push_back(rec(Role::probe_stop, last, last + 1));
  return v;
}

}  // namespace

TEST(ActivityTrace, NamesTheHarnessKernelsByTheirMangledNames) {
  EXPECT_EQ(role_of_kernel("_ZN7opbench12_GLOBAL__N_118probe_start_kernelEPNS_9StartSlotEiy"), Role::probe_start);
  EXPECT_EQ(role_of_kernel("_ZN7opbench12_GLOBAL__N_117probe_stop_kernelEPNS_9StartSlotEPNS_10ResultSlotEiyy"),
            Role::probe_stop);
  EXPECT_EQ(role_of_kernel("_ZN7opbench12_GLOBAL__N_117read_sweep_kernelEPK5uint4mPj"), Role::flush_sweep);
  EXPECT_EQ(role_of_kernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEE"), Role::work);
  EXPECT_EQ(role_of_kernel(nullptr), Role::work);
}

TEST(ActivityTrace, OneKernelIsItsOwnDuration) {
  const auto span = sample_span_ms(sample(1000, {rec(Role::work, 100, 164)}), true);
  ASSERT_TRUE(span);
  EXPECT_DOUBLE_EQ(*span, 0.064);
}

TEST(ActivityTrace, SeveralKernelsSpanFirstStartToLastEndGapsIncluded) {
  // LibTorch's two-kernel reduction with a launch gap, then a memcpy.
  const auto span = sample_span_ms(
      sample(0, {rec(Role::work, 100, 110), rec(Role::work, 112, 130), rec(Role::work, 131, 140)}), true);
  ASSERT_TRUE(span);
  EXPECT_DOUBLE_EQ(*span, 0.040);
}

TEST(ActivityTrace, TheLastCompleteSampleCountsAndRecordOrderDoesNot) {
  // Records of earlier work (set-up, a warm-up sample) and of the sample itself, shuffled: CUPTI
  // delivers them per buffer, not in time order.
  std::vector<Activity> v = sample(0, {rec(Role::work, 100, 200)});
  const std::vector<Activity> later = sample(5000, {rec(Role::work, 100, 110)});
  v.insert(v.end(), later.begin(), later.end());
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  const auto span = sample_span_ms(v, true);
  ASSERT_TRUE(span);
  EXPECT_DOUBLE_EQ(*span, 0.010);
}

TEST(ActivityTrace, ALaunchThatIsItselfAReadSweepIsTheLaunchNotTheFlush) {
  // The read roof is timed by launching the flush's sweep kernel: the window opens after the first
  // sweep (the flush) and the second is the work.
  const auto span = sample_span_ms(sample(0, {rec(Role::flush_sweep, 100, 190)}), true);
  ASSERT_TRUE(span);
  EXPECT_DOUBLE_EQ(*span, 0.090);
}

TEST(ActivityTrace, WithoutAFlushTheWindowOpensAtTheProbeStart) {
  const auto span = sample_span_ms(sample(0, {rec(Role::work, 10, 13)}, false), false);
  ASSERT_TRUE(span);
  EXPECT_DOUBLE_EQ(*span, 0.003);
}

TEST(ActivityTrace, TheStreamSpanStartsWhereTheWorkBeforeTheLaunchEnds) {
  // cupti-stream: from the end of the flush's read sweep (80 us) to the launch's last end, so the gap
  // in which the GPU starts the launch counts; without a flush, from the end of the probe start (3 us).
  const auto flushed = sample_span_ms(sample(0, {rec(Role::work, 82, 164)}), true, SpanStart::preceding_end);
  ASSERT_TRUE(flushed);
  EXPECT_DOUBLE_EQ(*flushed, 0.084);
  const auto warm = sample_span_ms(sample(0, {rec(Role::work, 10, 13)}, false), false, SpanStart::preceding_end);
  ASSERT_TRUE(warm);
  EXPECT_DOUBLE_EQ(*warm, 0.010);
  // The same records by the kernel timer: the launch's own span.
  EXPECT_DOUBLE_EQ(*sample_span_ms(sample(0, {rec(Role::work, 82, 164)}), true, SpanStart::first_record), 0.082);
  // A sample with no work is still nothing (the preceding record alone is not a launch).
  EXPECT_FALSE(sample_span_ms(sample(0, {}), true, SpanStart::preceding_end));
}

TEST(ActivityTrace, NoCompleteSampleOrNoWorkGivesNothing) {
  EXPECT_FALSE(sample_span_ms({}, true));
  std::vector<Activity> v = sample(0, {rec(Role::work, 100, 120)});
  v.pop_back();  // no probe stop: the sample is not complete
  EXPECT_FALSE(sample_span_ms(v, true));
  EXPECT_FALSE(sample_span_ms(sample(0, {}), true));  // a launch that queued no GPU work
  // A flushed sample whose read sweep is missing cannot be told apart from its work.
  std::vector<Activity> no_sweep = sample(0, {rec(Role::work, 100, 120)});
  no_sweep.erase(no_sweep.begin() + 3);
  EXPECT_FALSE(sample_span_ms(no_sweep, true));
}

TEST(ActivityTrace, TimerNames) {
  EXPECT_STREQ(device_timer_name(DeviceTimer::cupti), "cupti");
  EXPECT_STREQ(device_timer_name(DeviceTimer::cupti_stream), "cupti-stream");
  EXPECT_STREQ(device_timer_name(DeviceTimer::events), "events");
}
