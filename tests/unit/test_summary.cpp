// The report rows (derived figures, roofs, bound), the run summary, the per-implementation verdicts and
// the recommendations, on results built by hand with known times, so that every expected number can be
// worked out on paper.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "reports/rows.hpp"
#include "reports/summary.hpp"

using namespace opbench;
using namespace opbench::reports;

namespace {

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_major = 9, d.compute_minor = 0, d.sm_count = 132, d.sm_clock_mhz = 1980, d.mem_clock_mhz = 2619;
  d.bus_width_bits = 5120, d.l2_mb = 50, d.memory_gb = 79.6;
  d.theoretical_gbps = 4000, d.measured_copy_gbps = 2000;  // round numbers: percentages are easy to check
  return d;
}

TimeStats stats(double median, bool reliable = true) {
  TimeStats t;
  t.median_ms = t.min_ms = t.max_ms = t.mean_ms = median;
  t.samples = 100, t.reliable = reliable, t.cv = reliable ? 0.01 : 0.25;
  return t;
}

ImplResult timed(ImplKind k, double ms) {
  ImplResult r;
  r.impl = k;
  r.pure = stats(ms);
  return r;
}

// An implementation that produced no timing: failed or not supported, with its message.
ImplResult untimed(ImplKind k, Status st, const std::string& message) {
  ImplResult r;
  r.impl = k, r.status = st, r.message = message;
  return r;
}

RunContext h100_context() {
  RunContext c;
  c.device = h100();
  return c;
}

// A correct problem timed by both the framework and LibTorch.
ProblemResult problem(const std::string& op, Category c, SizeClass sc, double torch_ms, double fw_ms,
                      double bytes = 1e6, Shape shape = {1024, 1024}, DType t = DType::f32) {
  ProblemResult p;
  p.op = op, p.category = c, p.size_class = sc, p.shape = shape, p.dtype = t, p.bytes = bytes;
  p.impls = {timed(ImplKind::framework, fw_ms), timed(ImplKind::torch, torch_ms)};
  p.impls[0].verify.checked = p.impls[0].verify.correct = true;
  return p;
}

RunResults run(std::vector<ProblemResult> problems) {
  RunResults r;
  r.context.device = h100();
  r.context.timestamp = "2025-01-01T00:00:00Z";
  r.problems = std::move(problems);
  return r;
}

Summary summary_of(const RunResults& r) { return build_report(r).summary; }

// The framework row (or another) of a single problem, derived in a context with the H100 above.
ImplRow row_of(const ProblemResult& p, ImplKind k = ImplKind::framework, RunContext c = {}) {
  if (c.device.name.empty()) c.device = h100();
  const ProblemRow row = build_row(c, p);
  return *row.find(k);
}

const Recommendation* find_rec(const Summary& s, const std::string& title_part) {
  for (const auto& r : s.recommendations)
    if (r.title.find(title_part) != std::string::npos) return &r;
  return nullptr;
}

}  // namespace

TEST(ResultMembers, TimeIdFind) {
  ImplResult r;
  EXPECT_EQ(r.time_ms(), 0);
  r.real = stats(0.5);
  EXPECT_EQ(r.time_ms(), 0.5);  // real only: the headline is real
  r.pure = stats(0.25);
  EXPECT_EQ(r.time_ms(), 0.25);  // pure wins when measured
  ProblemResult p = problem("add", Category{"element"}, SizeClass::large, 1, 1, 1e6, {4096, 4096}, DType::f16);
  EXPECT_EQ(p.id(), "element/add/fp16/4096x4096");
  EXPECT_EQ(p.find(ImplKind::torch), &p.impls[1]);
  EXPECT_EQ(p.find(ImplKind::cublas), nullptr);
  RunResults rr = run({p});
  EXPECT_EQ(rr.find("element/add/fp16/4096x4096"), &rr.problems[0]);
  EXPECT_EQ(rr.find("element/add/fp32/4096x4096"), nullptr);
  EXPECT_STREQ(status_name(Status::not_supported), "not_supported");
}

TEST(Rows, MemoryFigures) {
  // 1e9 bytes in 1 ms = 1000 GB/s = 25% of 4000 theoretical, 50% of 2000 measured copy.
  const ProblemResult p = problem("add", Category{"element"}, SizeClass::large, 1.5, 1.0, 1e9);
  const ImplRow m = row_of(p);
  EXPECT_DOUBLE_EQ(m.time_ms, 1.0);
  EXPECT_DOUBLE_EQ(*m.speedup, 1.5);
  EXPECT_DOUBLE_EQ(*m.gbps, 1000);
  EXPECT_DOUBLE_EQ(*m.pct_of_theoretical, 25);
  EXPECT_DOUBLE_EQ(*m.pct_of_copy, 50);
  EXPECT_DOUBLE_EQ(*m.inference_speed, 1000);
  EXPECT_FALSE(m.tflops);
  EXPECT_EQ(*m.grade, Grade::excellent);
  // No FLOPs: memory-bound, against the copy roof (bytes written unknown).
  EXPECT_EQ(*m.bound, Bound::memory);
  EXPECT_DOUBLE_EQ(*m.pct_of_roof, 50);
  const ImplRow t = row_of(p, ImplKind::torch);
  EXPECT_DOUBLE_EQ(*t.speedup, 1.0);
  EXPECT_FALSE(t.grade);  // the baseline is not graded against itself
}

TEST(Rows, UntimedFiguresAreAbsent) {
  ProblemResult p = problem("add", Category{"element"}, SizeClass::large, 1.0, 1.0);
  p.impls[1].status = Status::failed;
  p.impls[1].pure.reset();
  const ImplRow m = row_of(p);
  EXPECT_FALSE(m.speedup);
  EXPECT_EQ(m.no_speedup, "LibTorch failed");
  EXPECT_FALSE(m.grade);
  EXPECT_TRUE(m.gbps);
  const ImplRow t = row_of(p, ImplKind::torch);
  EXPECT_FALSE(t.timed());
  EXPECT_FALSE(t.bound);
  EXPECT_FALSE(t.pct_of_roof);
}

TEST(Rows, NoSpeedupAgainstAnIncorrectLibTorch) {
  ProblemResult p = problem("softmax", Category{"reduction"}, SizeClass::large, 1.0, 0.5);
  p.impls[1].verify.checked = true, p.impls[1].verify.correct = false;  // status ok, oracle disagrees
  const ProblemRow row = build_row(h100_context(), p);
  EXPECT_EQ(row.torch()->verdict, Status::incorrect);
  EXPECT_EQ(row.verdict, Status::ok);  // the framework's own verdict is untouched
  EXPECT_FALSE(row.framework()->speedup);
  EXPECT_FALSE(row.framework()->grade);
  EXPECT_EQ(row.framework()->no_speedup, "LibTorch incorrect: no speedup against a wrong result");
  EXPECT_TRUE(row.framework()->gbps);  // its own figures stand
}

TEST(Rows, VendorShareAndVerdict) {
  ProblemResult p = problem("layer_norm", Category{"norm"}, SizeClass::large, 1.0, 0.8);
  p.impls.push_back(timed(ImplKind::cudnn, 0.6));
  EXPECT_DOUBLE_EQ(*build_row(h100_context(), p).pct_of_vendor, 75);
  EXPECT_DOUBLE_EQ(*row_of(p, ImplKind::cudnn).speedup, 1.0 / 0.6);
  EXPECT_FALSE(row_of(p, ImplKind::cudnn).grade);  // only the framework is graded
  p.impls[2].status = Status::not_supported;
  p.impls[2].pure.reset();
  EXPECT_FALSE(build_row(h100_context(), p).pct_of_vendor);
}

TEST(Roofline, DatasheetPeaks) {
  const DeviceInfo d = h100();
  EXPECT_DOUBLE_EQ(peak_tflops(d, DType::f16, false), 132 * 1980e6 * 4096 / 1e12);
  EXPECT_DOUBLE_EQ(peak_tflops(d, DType::bf16, false), 132 * 1980e6 * 4096 / 1e12);
  EXPECT_DOUBLE_EQ(peak_tflops(d, DType::f32, true), 132 * 1980e6 * 2048 / 1e12);
  EXPECT_DOUBLE_EQ(peak_tflops(d, DType::f32, false), 132 * 1980e6 * 256 / 1e12);
  EXPECT_EQ(peak_tflops(d, DType::f64, false), 0);
  DeviceInfo a100 = d;
  a100.compute_major = 8, a100.sm_count = 108, a100.sm_clock_mhz = 1410;
  EXPECT_NEAR(peak_tflops(a100, DType::f16, false), 312, 0.5);  // the A100 datasheet's dense figure
  DeviceInfo turing = d;
  turing.compute_major = 7, turing.compute_minor = 5;
  EXPECT_EQ(peak_tflops(turing, DType::f16, false), 0);
  EXPECT_NE(peak_basis_text(turing, DType::f16, false).find("n/a"), std::string::npos);
  EXPECT_NE(peak_basis_text(d, DType::f16, false).find("4096 FLOP/clk/SM"), std::string::npos);
}

TEST(Roofline, MemoryRoofFollowsTheBytesWritten) {
  DeviceInfo d = h100();
  d.measured_copy_gbps = 3000, d.measured_read_gbps = 3200;
  // Unknown split: the copy.
  EXPECT_DOUBLE_EQ(memory_roof(d, 1e9, 0).gbps, 3000);
  // As much written as read: the copy, exactly.
  EXPECT_NEAR(memory_roof(d, 1e9, 0.5e9).gbps, 3000, 1e-9);
  // Nearly nothing written (a reduction): the read roof.
  EXPECT_NEAR(memory_roof(d, 1e9, 1.0).gbps, 3200, 1e-3);
  // Two reads, one write (add): R/read + W/write with 1/write = 2/copy - 1/read.
  const double write_cost = 2.0 / 3000 - 1.0 / 3200;
  EXPECT_NEAR(memory_roof(d, 3e9, 1e9).gbps, 3.0 / (2.0 / 3200 + write_cost), 1e-9);
  // No read sweep: the copy; no copy either: the theoretical bandwidth, marked as the datasheet's.
  d.measured_read_gbps = 0;
  EXPECT_DOUBLE_EQ(memory_roof(d, 1e9, 1.0).gbps, 3000);
  d.measured_copy_gbps = 0;
  EXPECT_DOUBLE_EQ(memory_roof(d, 1e9, 1.0).gbps, 4000);
  EXPECT_EQ(memory_roof(d, 1e9, 1.0).basis, RoofBasis::datasheet);
  // Sweeps that contradict each other (read under half the copy): the copy alone.
  d.measured_copy_gbps = 3000, d.measured_read_gbps = 1000;
  EXPECT_DOUBLE_EQ(memory_roof(d, 1e9, 1.0).gbps, 3000);
}

// With a write sweep, ops writing more than they read (expand) take the line from the copy to it, not the read
// sweep and copy's line continued (whose write rate a store-only stream beats: H200 4.17 TB/s implied, 4.3-4.6
// measured); ops writing no more than they read are as before.
TEST(Roofline, MemoryRoofOfWritesFromTheWriteSweep) {
  DeviceInfo d = h100();
  d.measured_copy_gbps = 3000, d.measured_read_gbps = 3200;
  const double before_half = memory_roof(d, 3e9, 1e9).gbps, before_all = memory_roof(d, 1e9, 1e9).gbps;
  EXPECT_NEAR(before_all, 1.0 / (2.0 / 3000 - 1.0 / 3200), 1e-6);  // no write sweep: the line continued
  d.measured_write_gbps = 3300;
  EXPECT_NEAR(memory_roof(d, 1e9, 1e9).gbps, 3300, 1e-9);           // writes only: the write sweep
  EXPECT_NEAR(memory_roof(d, 1e9, 0.75e9).gbps, 1.0 / (0.5 / 3000 + 0.5 / 3300), 1e-9);  // halfway from the copy
  EXPECT_NEAR(memory_roof(d, 1e9, 0.5e9).gbps, 3000, 1e-9);         // as much written as read: the copy
  EXPECT_DOUBLE_EQ(memory_roof(d, 3e9, 1e9).gbps, before_half);      // a third written: as before
  EXPECT_DOUBLE_EQ(memory_roof(d, 1e9, 0).gbps, 3000);               // unknown split: the copy
  // By size: the write points interpolated as the others; a curve without them falls back to the line.
  d.roof_curve = {{16e6, 1600, 1500, 1700}, {64e6, 2800, 2600, 3000}};
  EXPECT_NEAR(memory_roof_at_size(d, 32e6, 32e6).gbps, 2350, 1e-9);
  d.roof_curve = {{16e6, 1600, 1500}, {64e6, 2800, 2600}};
  EXPECT_NEAR(memory_roof_at_size(d, 64e6, 64e6).gbps, 1.0 / (2.0 / 2600 - 1.0 / 2800), 1e-6);
}

TEST(Roofline, MemoryRoofAtSizeInterpolatesTheMeasuredCurve) {
  DeviceInfo d = h100();
  d.measured_copy_gbps = 3000, d.measured_read_gbps = 3200;
  // Unmeasured: unknown, not the roof.
  EXPECT_EQ(memory_roof_at_size(d, 64e6, 1.0).gbps, 0);
  d.roof_curve = {{16e6, 1600, 1500}, {64e6, 2800, 2600}, {400e6, 3200, 3000}};
  // At a measured size: that size's sweeps, combined by the bytes written as the roof is.
  EXPECT_NEAR(memory_roof_at_size(d, 64e6, 1.0).gbps, 2800, 1e-3);       // a reduction: the read sweep
  EXPECT_NEAR(memory_roof_at_size(d, 64e6, 32e6).gbps, 2600, 1e-9);      // as much written as read: the copy
  EXPECT_NEAR(memory_roof_at_size(d, 400e6, 400e6 / 3).gbps, memory_roof(d, 400e6, 400e6 / 3).gbps, 1e-9);
  // Between two sizes, linear in log(bytes): 32 MB is halfway from 16 to 64 MB.
  EXPECT_NEAR(memory_roof_at_size(d, 32e6, 1.0).gbps, 2200, 1e-3);
  EXPECT_NEAR(memory_roof_at_size(d, 32e6, 16e6).gbps, 2050, 1e-9);
  // Below the smallest size: unknown; beyond the largest: the largest's.
  EXPECT_EQ(memory_roof_at_size(d, 8e6, 1.0).gbps, 0);
  EXPECT_NEAR(memory_roof_at_size(d, 1e9, 1.0).gbps, 3200, 1e-3);
  EXPECT_EQ(memory_roof_at_size(d, 1e9, 1.0).basis, RoofBasis::measured);
}

TEST(Rows, PercentOfTheRoofAtTheProblemsSize) {
  // 64e6 bytes (nothing written known: the copy) in 0.032 ms = 2000 GB/s; the copy sweep reaches 2500 there.
  ProblemResult p = problem("add", Category{"element"}, SizeClass::large, 0.032, 0.032, 64e6);
  RunContext c;
  c.device = h100();
  EXPECT_FALSE(row_of(p, ImplKind::framework, c).pct_of_size_roof);  // no curve measured
  c.device.roof_curve = {{16e6, 1600, 1500}, {64e6, 2800, 2500}, {400e6, 3200, 2000}};
  const ImplRow m = row_of(p, ImplKind::framework, c);
  EXPECT_DOUBLE_EQ(*m.pct_of_roof, 100);  // h100()'s copy roof is 2000 GB/s
  EXPECT_NEAR(*m.pct_of_size_roof, 80, 1e-9);
  p.flops = 64e6 * 1000;  // compute-bound: no memory figure at its size
  EXPECT_FALSE(row_of(p, ImplKind::framework, c).pct_of_size_roof);
}

TEST(Roofline, ComputeRoofPrefersTheMeasuredGemm) {
  DeviceInfo d = h100();
  EXPECT_EQ(compute_roof(d, DType::f16, false).basis, RoofBasis::datasheet);
  d.measured_gemm = {{DType::f16, false, 700, "cuBLAS 8192^3"}, {DType::f32, true, 350, "cuBLAS TF32"}};
  EXPECT_DOUBLE_EQ(compute_roof(d, DType::f16, false).tflops, 700);
  EXPECT_EQ(compute_roof(d, DType::f16, false).basis, RoofBasis::measured);
  EXPECT_DOUBLE_EQ(compute_roof(d, DType::f16, true).tflops, 700);  // TF32 changes fp32 only
  EXPECT_DOUBLE_EQ(compute_roof(d, DType::f32, true).tflops, 350);
  // fp32 without TF32 was not measured: the SIMT datasheet peak, not the TF32 GEMM.
  EXPECT_DOUBLE_EQ(compute_roof(d, DType::f32, false).tflops, peak_tflops(d, DType::f32, false));
}

TEST(Roofline, BoundByIntensityNotByCategory) {
  RunContext c;
  c.device = h100();
  c.device.measured_copy_gbps = 4000;  // so that the ridge is peak / 4000 GB/s
  const double peak = peak_tflops(c.device, DType::f16, false);
  const double ridge = peak * 1e12 / 4000e9;  // 267.6 FLOP/B
  // A matmul below the ridge (a decode GEMM) is memory-bound...
  ProblemResult mm = problem("matmul", Category{"matmul"}, SizeClass::large, 1, 1, 1e8, {1, 4096, 4096}, DType::f16);
  mm.flops = 1e8 * 200;
  Placement pl = place(c, mm);
  EXPECT_DOUBLE_EQ(*pl.intensity, 200);
  EXPECT_NEAR(*pl.ridge, ridge, 1e-9);
  EXPECT_EQ(*pl.roof_bound, Bound::memory);
  // ... above it compute-bound, whatever the category: a FLOP-heavy norm is compute-bound too.
  mm.flops = 1e8 * 300;
  EXPECT_EQ(*place(c, mm).roof_bound, Bound::compute);
  ProblemResult heavy = mm;
  heavy.category = Category{"norm"};
  EXPECT_EQ(*place(c, heavy).roof_bound, Bound::compute);
  // fp64 has no known compute roof: the bound cannot be told.
  mm.dtype = DType::f64;
  EXPECT_FALSE(place(c, mm).roof_bound);
  // 2e11 FLOPs in 1 ms = 200 TFLOP/s, compute-bound: % of roof is % of the compute roof.
  mm.dtype = DType::f16;
  mm.flops = 2e11, mm.bytes = 1e8;
  const ImplRow m = row_of(mm, ImplKind::framework, c);
  EXPECT_DOUBLE_EQ(*m.tflops, 200);
  EXPECT_DOUBLE_EQ(*m.pct_of_peak, 100 * 200 / peak);
  EXPECT_EQ(*m.bound, Bound::compute);
  EXPECT_DOUBLE_EQ(*m.pct_of_roof, 100 * 200 / peak);
}

TEST(Roofline, LaunchBoundUnderTheFloor) {
  // 4 µs: launch-bound whatever the roofline says; % of roof still measured against the memory roof.
  ProblemResult p = problem("relu", Category{"activation"}, SizeClass::small, 0.004, 0.004, 1e6);
  const ImplRow m = row_of(p);
  EXPECT_EQ(*m.bound, Bound::launch);
  EXPECT_DOUBLE_EQ(*m.pct_of_roof, 100 * (1e6 / 4e-6 / 1e9) / 2000);
  p.impls[0].pure = stats(kLaunchFloorMs);  // at the floor: no longer launch-bound
  EXPECT_EQ(*row_of(p).bound, Bound::memory);
}

TEST(Summary, CountsAndGeomean) {
  ProblemResult incorrect = problem("gelu", Category{"activation"}, SizeClass::medium, 1, 0.1);
  incorrect.impls[0].status = Status::incorrect;
  incorrect.impls[0].verify.correct = false;
  ProblemResult failed = problem("sum", Category{"reduction"}, SizeClass::medium, 1, 1);
  failed.impls[0] = untimed(ImplKind::framework, Status::failed, "launch failed");
  ProblemResult unsupported = failed;
  unsupported.op = "mean";
  unsupported.impls[0].status = Status::not_supported;
  const Summary s = summary_of(run({problem("add", Category{"element"}, SizeClass::large, 2.0, 1.0),
                                   problem("mul", Category{"element"}, SizeClass::large, 1.0, 2.0),
                                   problem("relu", Category{"activation"}, SizeClass::small, 4.0, 1.0),
                                   incorrect, failed, unsupported}));
  EXPECT_EQ(s.problems, 6);
  EXPECT_EQ(s.correct, 3);
  EXPECT_EQ(s.incorrect, 1);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.not_supported, 1);
  EXPECT_EQ(s.compared, 3);
  EXPECT_EQ(s.faster_than_torch, 2);
  // (2 * 0.5 * 4)^(1/3): the incorrect row's 10x does not count.
  EXPECT_NEAR(*s.geomean_speedup, std::cbrt(4.0), 1e-12);
  EXPECT_EQ(s.grades[int(Grade::excellent)], 2);
  EXPECT_EQ(s.grades[int(Grade::fair)], 1);
  EXPECT_EQ(s.grades[int(Grade::critical)], 1);  // the incorrect one; failed ones have no grade
  EXPECT_EQ(s.grades[int(Grade::good)] + s.grades[int(Grade::poor)], 0);
}

TEST(Summary, VerificationFailureMakesAnOkRowIncorrect) {
  ProblemResult p = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  p.impls[0].verify.correct = false;
  const Summary s = summary_of(run({p}));
  EXPECT_EQ(s.incorrect, 1);
  EXPECT_EQ(s.compared, 0);
  EXPECT_FALSE(s.geomean_speedup);
}

TEST(Summary, CategoryAndSizeBreakdowns) {
  const Summary s = summary_of(run({
      problem("add", Category{"element"}, SizeClass::large, 2.0, 1.0, 1e9),  // 1000 GB/s: 25% / 50%
      problem("mul", Category{"element"}, SizeClass::large, 1.0, 2.0, 1e9),  //  500 GB/s: 12.5% / 25%
      problem("matmul", Category{"matmul"}, SizeClass::small, 0.9, 1.0, 1e6),
  }));
  ASSERT_EQ(s.categories.size(), 2u);
  EXPECT_EQ(s.categories[0].category, Category{"element"});  // Category order, not run order
  EXPECT_EQ(s.categories[0].problems, 2);
  EXPECT_NEAR(*s.categories[0].geomean, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(*s.categories[0].min_speedup, 0.5);
  EXPECT_DOUBLE_EQ(*s.categories[0].max_speedup, 2.0);
  EXPECT_EQ(s.categories[0].grades[int(Grade::excellent)], 1);
  EXPECT_EQ(s.categories[0].grades[int(Grade::fair)], 1);
  EXPECT_EQ(s.categories[1].category, Category{"matmul"});
  EXPECT_NEAR(*s.categories[1].geomean, 0.9, 1e-12);

  ASSERT_EQ(s.size_classes.size(), 2u);
  EXPECT_EQ(s.size_classes[0].size_class, SizeClass::small);
  const SizeClassStats& large = s.size_classes[1];
  EXPECT_EQ(large.size_class, SizeClass::large);
  EXPECT_DOUBLE_EQ(*large.avg_gpu_efficiency, 18.75);
  EXPECT_DOUBLE_EQ(*large.avg_copy_efficiency, 37.5);
  EXPECT_DOUBLE_EQ(*large.min_speedup, 0.5);
  EXPECT_DOUBLE_EQ(*large.max_speedup, 2.0);
}

TEST(Summary, TopAndBottomFive) {
  std::vector<ProblemResult> ps;
  for (int i = 1; i <= 7; ++i)  // speedups 0.5, 1.0, ..., 3.5
    ps.push_back(problem("op" + std::to_string(i), Category{"element"}, SizeClass::medium, 0.5 * i, 1.0));
  const Summary s = summary_of(run(ps));
  ASSERT_EQ(s.top.size(), 5u);
  ASSERT_EQ(s.bottom.size(), 5u);
  EXPECT_EQ(s.top[0].op, "op7");
  EXPECT_EQ(s.top[4].op, "op3");
  EXPECT_EQ(s.bottom[0].op, "op1");
  EXPECT_EQ(s.bottom[4].op, "op5");
  EXPECT_DOUBLE_EQ(s.top[0].speedup, 3.5);
  EXPECT_DOUBLE_EQ(s.top[0].torch_ms, 3.5);
}

TEST(Recommendations, NoneForAHealthyRun) {
  // Fast, correct, reliable, at 90% of copy bandwidth on a large problem: nothing to recommend.
  const Summary s = summary_of(run({problem("add", Category{"element"}, SizeClass::large, 1.0, 1.0, 1.8e9)}));
  EXPECT_TRUE(s.recommendations.empty());
}

TEST(Recommendations, LaunchBoundIsTheRowsBound) {
  // 4 µs, 1e6 bytes -> 250 GB/s = 12.5% of the 2000 GB/s copy roof: launch-bound.
  Summary s = summary_of(run({problem("relu", Category{"activation"}, SizeClass::small, 0.005, 0.004, 1e6)}));
  const Recommendation* r = find_rec(s, "Launch-bound");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_NE(r->items[0].find("relu 1024x1024 fp32"), std::string::npos);
  EXPECT_NE(r->items[0].find("250.0 GB/s = 12.5% of its roof"), std::string::npos) << r->items[0];
  EXPECT_EQ(s.bounds[int(Bound::launch)], 1);
  // At the floor (5 µs) it is no longer launch-bound.
  s = summary_of(run({problem("relu", Category{"activation"}, SizeClass::small, 0.005, kLaunchFloorMs, 1e6)}));
  EXPECT_EQ(find_rec(s, "Launch-bound"), nullptr);
  EXPECT_EQ(s.bounds[int(Bound::memory)], 1);
}

TEST(Recommendations, LaunchBoundGroupsAnOpsProblems) {
  ProblemResult a = problem("relu", Category{"activation"}, SizeClass::small, 0.005, 0.004, 1e6);
  ProblemResult b = problem("relu", Category{"activation"}, SizeClass::small, 0.005, 0.0045, 2e6);
  b.shape = {512, 512};
  const ProblemResult c = problem("sigmoid", Category{"activation"}, SizeClass::small, 0.005, 0.003, 1e6);
  const Summary s = summary_of(run({a, b, c}));
  const Recommendation* r = find_rec(s, "Launch-bound");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 2u);  // relu's two problems in one item, sigmoid's in another
  EXPECT_NE(r->items[0].find("relu fp32: 2 problems (1024x1024, 512x512)"), std::string::npos) << r->items[0];
  EXPECT_NE(r->items[0].find("0.00400–0.00450 ms"), std::string::npos) << r->items[0];
  EXPECT_NE(r->items[1].find("sigmoid 1024x1024 fp32"), std::string::npos) << r->items[1];
}

TEST(Recommendations, LowBandwidthOnlyAtLargeSizesAndMemoryBound) {
  // 1e9 bytes in 1 ms = 50% of the copy roof.
  Summary s = summary_of(run({problem("add", Category{"element"}, SizeClass::very_large, 1.0, 1.0, 1e9)}));
  const Recommendation* r = find_rec(s, "Low bandwidth");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->items[0].find("add 1024x1024 fp32 (very_large): 1000.0 GB/s = 50.0% of its roof (2000.0 GB/s)"),
            std::string::npos)
      << r->items[0];
  EXPECT_NE(r->items[0].find("LibTorch 1000.0 GB/s"), std::string::npos);
  EXPECT_EQ(r->items[0].find("at its size"), std::string::npos);  // no curve measured
  RunResults curved = run({problem("add", Category{"element"}, SizeClass::very_large, 1.0, 1.0, 1e9)});
  curved.context.device.roof_curve = {{16e6, 1600, 1500}, {400e6, 2500, 2000}};
  s = summary_of(curved);
  r = find_rec(s, "Low bandwidth");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->items[0].find("= 50.0% of its roof (2000.0 GB/s), 50.0% at its size"), std::string::npos) << r->items[0];
  s = summary_of(run({problem("add", Category{"element"}, SizeClass::medium, 1.0, 1.0, 1e9)}));
  EXPECT_EQ(find_rec(s, "Low bandwidth"), nullptr);
  ProblemResult mm = problem("matmul", Category{"matmul"}, SizeClass::large, 1.0, 1.0, 1e9, {4096, 4096}, DType::f16);
  mm.flops = 1e9 * 1000;  // far above the ridge: judged by TFLOP/s, not bandwidth
  s = summary_of(run({mm}));
  EXPECT_EQ(find_rec(s, "Low bandwidth"), nullptr);
}

TEST(Recommendations, BandwidthAboveTheTheoreticalPeakIsExplainedPerOp) {
  const double theoretical = h100().theoretical_gbps;
  ASSERT_GT(theoretical, 0);
  // 67 MB moved (half of it written) in 16 us: above the (test's 4000 GB/s) peak, as a clean cold L2 lets it be.
  ProblemResult copy = problem("copy", Category{"layout"}, SizeClass::large, 0.0165, 0.0160, 67.1e6, {4096, 4096},
                               DType::bf16);
  copy.bytes_written = 33.55e6;
  ProblemResult big = copy;  // the same op at 8192^2: below the peak, not listed
  big.shape = {8192, 8192}, big.bytes = 268.4e6, big.bytes_written = 134.2e6;
  big.impls = {timed(ImplKind::framework, 0.0900), timed(ImplKind::torch, 0.0910)};
  big.impls[0].verify.checked = big.impls[0].verify.correct = true;
  const Summary s = summary_of(run({copy, big}));
  const Recommendation* r = find_rec(s, "Bandwidth above the theoretical peak");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 2u);  // the framework's and LibTorch's rows of the 4096^2 problem
  EXPECT_NE(r->items[0].find("copy bf16 [framework]: 1 problem, 4193.8–4193.8 GB/s, outputs 33.5–33.5 MB"),
            std::string::npos)
      << r->items[0];
  EXPECT_NE(r->items[1].find("copy bf16 [LibTorch]"), std::string::npos) << r->items[1];
  EXPECT_NE(r->detail.find("fit in the"), std::string::npos);
  EXPECT_EQ(find_rec(summary_of(run({big})), "Bandwidth above"), nullptr);
}

TEST(Recommendations, ComputeAboveTheDtypePeakNamesTheKernel) {
  // fp32 matmul 2048^3 (17.2 GFLOP): the framework's 3xTF32 in 0.246 ms = 69.8 TFLOP/s, above the H100's fp32 FMA
  // peak (132 SMs x 256 FLOP/clk x 1.98 GHz = 66.9); LibTorch's SIMT 0.338 ms = 50.8, below it: not listed.
  ProblemResult mm = problem("matmul", Category{"matmul"}, SizeClass::medium, 0.338, 0.246, 50.3e6,
                             {2048, 2048, 2048}, DType::f32);
  mm.flops = 2.0 * 2048 * 2048 * 2048;
  mm.impls[0].kernel = "transpose_b + tf32x3 split + sm90_tma_wgmma_tf32 128x128";
  const Summary s = summary_of(run({mm}));
  const Recommendation* r = find_rec(s, "Compute above the dtype's peak");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_NE(r->items[0].find("matmul fp32 [framework]: 1 problem, 69.8–69.8 TFLOP/s against a 66.9 TFLOP/s peak; "
                             "kernel: transpose_b + tf32x3"),
            std::string::npos)
      << r->items[0];
  mm.impls[0].pure = stats(0.300);  // 57.3 TFLOP/s: below the peak
  EXPECT_EQ(find_rec(summary_of(run({mm})), "Compute above"), nullptr);
}

TEST(Recommendations, SlowerThanTorchGroupedByCategory) {
  const Summary s = summary_of(run({problem("add", Category{"element"}, SizeClass::large, 0.8, 1.0, 1.8e9),
                                   problem("mul", Category{"element"}, SizeClass::large, 0.5, 1.0, 1.8e9),
                                   problem("sum", Category{"reduction"}, SizeClass::large, 0.85, 1.0, 1.8e9),
                                   problem("relu", Category{"activation"}, SizeClass::large, 0.95, 1.0, 1.8e9)}));
  const Recommendation* r = find_rec(s, "Slower than");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 2u);  // element and reduction; relu at 0.95x is above the floor
  EXPECT_EQ(r->items[0].rfind("element:", 0), 0u);
  EXPECT_LT(r->items[0].find("mul"), r->items[0].find("add"));  // slowest first
  EXPECT_NE(r->items[0].find("0.50x"), std::string::npos);
  EXPECT_EQ(r->items[1].rfind("reduction:", 0), 0u);
  EXPECT_EQ(r->items[0].find("relu"), std::string::npos);
}

TEST(Recommendations, BroadcastSlowerThanItsTwin) {
  ProblemResult add = problem("add", Category{"element"}, SizeClass::large, 1.0, 1.0, 1.8e9);
  ProblemResult row = problem("add_bcast_row", Category{"element"}, SizeClass::large, 1.0, 1.2, 1.2e9);
  ProblemResult col = problem("add_bcast_col", Category{"element"}, SizeClass::large, 1.0, 0.9, 1.2e9);
  row.twin_of = col.twin_of = "add";  // as bench/element.cpp declares them (OpDef::twin_of), not by name
  Summary s = summary_of(run({add, row, col}));
  const Recommendation* r = find_rec(s, "Broadcast");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_NE(r->items[0].find("add_bcast_row 1024x1024 fp32: 1.200 ms vs add 1.000 ms (1.20x"), std::string::npos);
  // Another shape's add is not the twin.
  add.shape = {2048, 2048};
  s = summary_of(run({add, row}));
  EXPECT_EQ(find_rec(s, "Broadcast"), nullptr);
}

TEST(Recommendations, IncorrectFailedUnreliable) {
  ProblemResult bad = problem("gelu", Category{"activation"}, SizeClass::medium, 1.0, 1.0, 1.8e9);
  bad.impls[0].status = Status::incorrect;
  bad.impls[0].verify.correct = false;
  bad.impls[0].verify.max_abs_err = 0.03125;
  bad.impls[0].verify.first_mismatch = "index 17: got 1.5, expected 1.25";
  ProblemResult failed = problem("sum", Category{"reduction"}, SizeClass::medium, 1.0, 1.0, 1.8e9);
  failed.impls[0] = untimed(ImplKind::framework, Status::failed, "too many resources requested");
  ProblemResult noisy = problem("relu", Category{"activation"}, SizeClass::large, 1.0, 1.0, 1.8e9);
  noisy.impls[1].pure = stats(1.0, false);
  const Summary s = summary_of(run({bad, failed, noisy}));
  ASSERT_GE(s.recommendations.size(), 3u);
  EXPECT_EQ(s.recommendations[0].title, "Fix incorrect results first");  // most urgent first
  EXPECT_NE(s.recommendations[0].items[0].find("max abs err 3.12e-02"), std::string::npos);
  EXPECT_NE(s.recommendations[0].items[0].find("index 17"), std::string::npos);
  const Recommendation* f = find_rec(s, "no result");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->items[0], "sum 1024x1024 fp32 [framework]: failed: too many resources requested");
  const Recommendation* u = find_rec(s, "Unreliable");
  ASSERT_NE(u, nullptr);
  ASSERT_EQ(u->items.size(), 1u);
  EXPECT_NE(u->items[0].find("relu 1024x1024 fp32 [LibTorch, pure]: median 1.000 ms, cv 25.0%"), std::string::npos);
}

TEST(Verdicts, ReferenceFailuresAreCountedListedAndNotTheFrameworks) {
  // The H100 case of issue 8: cuDNN fails on 1x1 while the framework is correct.
  ProblemResult sum = problem("sum_last", Category{"reduction"}, SizeClass::custom, 1.0, 1.0, 1.8e9, {1, 1});
  sum.impls.push_back(untimed(ImplKind::cudnn, Status::failed, "CUDNN_STATUS_EXECUTION_FAILED"));
  ProblemResult ln = problem("layer_norm", Category{"norm"}, SizeClass::large, 1.0, 1.0, 1.8e9);
  ln.impls.push_back(untimed(ImplKind::cudnn, Status::not_supported, "cuDNN takes no bf16 here"));
  ProblemResult sm = problem("softmax", Category{"reduction"}, SizeClass::large, 1.0, 1.0, 1.8e9);
  sm.impls[1].verify.checked = true, sm.impls[1].verify.correct = false, sm.impls[1].verify.mismatches = 3;
  sm.impls[1].verify.first_mismatch = "element 5: LibTorch 0.5, fp64 oracle 0.25";
  const Summary s = summary_of(run({sum, ln, sm}));
  EXPECT_EQ(s.correct, 3);  // every framework result is correct
  EXPECT_EQ(s.incorrect + s.failed, 0);
  EXPECT_EQ(s.grades[int(Grade::critical)], 0);  // a failed reference is not the framework's ❌
  EXPECT_EQ(s.reference_failed, 1);
  EXPECT_EQ(s.reference_incorrect, 1);
  EXPECT_EQ(s.reference_not_supported, 1);  // shown, not counted as a failure
  ASSERT_EQ(s.reference_failures.size(), 2u);
  EXPECT_EQ(s.reference_failures[0].problem, "sum_last 1x1 fp32");
  EXPECT_EQ(s.reference_failures[0].impl, ImplKind::cudnn);
  EXPECT_EQ(s.reference_failures[0].detail, "CUDNN_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(s.reference_failures[1].status, Status::incorrect);
  EXPECT_NE(s.reference_failures[1].detail.find("3 elements beyond tolerance of the fp64 oracle"), std::string::npos);
  EXPECT_NE(s.reference_failures[1].detail.find("LibTorch 0.5, fp64 oracle 0.25"), std::string::npos);
  EXPECT_EQ(s.compared, 2);  // softmax has no speedup: its LibTorch is wrong
  EXPECT_TRUE(has_failures(s));
  EXPECT_NE(find_rec(s, "Reference results beyond tolerance"), nullptr);
  const Recommendation* f = find_rec(s, "no result");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->items.size(), 1u);  // the failed cuDNN; the not_supported one is no fault
  EXPECT_EQ(f->items[0], "sum_last 1x1 fp32 [cuDNN]: failed: CUDNN_STATUS_EXECUTION_FAILED");
}

TEST(Verdicts, HasFailuresAgreesWithTheCounts) {
  EXPECT_FALSE(has_failures(summary_of(run({problem("add", Category{"element"}, SizeClass::large, 1, 1)}))));
  ProblemResult unsupported = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  unsupported.impls.push_back(untimed(ImplKind::cudnn, Status::not_supported, ""));
  EXPECT_FALSE(has_failures(summary_of(run({unsupported}))));  // a library refusing a shape is no failure
  ProblemResult fw_unsupported = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  fw_unsupported.impls[0] = untimed(ImplKind::framework, Status::not_supported, "");
  EXPECT_FALSE(has_failures(summary_of(run({fw_unsupported}))));
  ProblemResult wrong = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  wrong.impls[0].verify.correct = false;
  EXPECT_TRUE(has_failures(summary_of(run({wrong}))));
  ProblemResult failed = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  failed.impls[0] = untimed(ImplKind::framework, Status::failed, "oom");
  EXPECT_TRUE(has_failures(summary_of(run({failed}))));
  ProblemResult torch_failed = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  torch_failed.impls[1] = untimed(ImplKind::torch, Status::failed, "oom");
  EXPECT_TRUE(has_failures(summary_of(run({torch_failed}))));
  ProblemResult no_framework = problem("add", Category{"element"}, SizeClass::large, 1, 1);
  no_framework.impls.erase(no_framework.impls.begin());
  EXPECT_TRUE(has_failures(summary_of(run({no_framework}))));
}
