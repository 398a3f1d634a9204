#include "src/core/device_info.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/core/device_buffer.hpp"
#include "src/model/stats.hpp"
#include "src/timing/l2_flush.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

static std::string version_str(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int cuda_device_count(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    (void)cudaGetLastError();
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA runtime found no device";
  return n;
}

DeviceInfo query_device() {
  DeviceInfo d;
  OPBENCH_CUDA_CHECK(cudaGetDevice(&d.device));
  cudaDeviceProp p{};
  OPBENCH_CUDA_CHECK(cudaGetDeviceProperties(&p, d.device));
  d.name = p.name;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.bus_width_bits = p.memoryBusWidth;
  d.l2_mb = double(p.l2CacheSize) / (1 << 20);
  d.memory_gb = double(p.totalGlobalMem) / (1ull << 30);
  int clock_khz = 0, mem_khz = 0;
  OPBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d.device));
  OPBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, d.device));
  d.sm_clock_mhz = clock_khz / 1000.0;
  d.mem_clock_mhz = mem_khz / 1000.0;
  // Double data rate: two transfers per memory clock over the whole bus.
  d.theoretical_gbps = 2.0 * mem_khz * 1e3 * (d.bus_width_bits / 8.0) / 1e9;
  int drv = 0, rt = 0;
  OPBENCH_CUDA_CHECK(cudaDriverGetVersion(&drv));
  OPBENCH_CUDA_CHECK(cudaRuntimeGetVersion(&rt));
  d.driver_version = version_str(drv);
  d.runtime_version = version_str(rt);
  return d;
}

// Buffers of 8x L2: a sample is then mostly DRAM traffic, whatever L2 holds when it starts.
std::size_t roof_sweep_bytes(const TimingResources& res) {
  return std::max<std::size_t>(res.l2_bytes() * 8, std::size_t(256) << 20) / 16 * 16;
}

namespace {

// How every roof is timed: like an op (pure, clean cold L2) at the default precision.
TimingConfig roof_timing() {
  TimingConfig c;
  c.pure = true;
  c.l2_cold = true;
  return c;
}

// The median time of `launch`, timed as the roofs are.
double roof_median_ms(const Launch& launch, TimingResources& res, cudaStream_t s) {
  const std::vector<Measurement> m = measure({launch}, roof_timing(), res, s);
  if (!m[0].pure || m[0].pure->median_ms <= 0)
    throw std::runtime_error("the bandwidth roof could not be timed: no sample was kept");
  return m[0].pure->median_ms;
}

// A stream of its own for the overloads without a session.
struct OwnStream {
  cudaStream_t s = nullptr;
  OwnStream() { OPBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~OwnStream() { OPBENCH_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); }
};

}  // namespace

double measure_copy_gbps(TimingResources& res, cudaStream_t s) {
  const std::size_t bytes = roof_sweep_bytes(res);
  DeviceBuffer src(bytes), dst(bytes);
  OPBENCH_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, s));
  const double ms = roof_median_ms(
      [&](cudaStream_t st) {
        OPBENCH_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, st));
      },
      res, s);
  return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;  // read + written
}

// The read roof is the read sweep's point at the roofs' own size: one timing of the sweep for both.
double measure_read_gbps(TimingResources& res, cudaStream_t s) {
  return measure_roofs_at({double(roof_sweep_bytes(res))}, res, s).at(0).read_gbps;
}

std::vector<RoofPoint> measure_roofs_at(const std::vector<double>& sizes, TimingResources& res, cudaStream_t s) {
  std::vector<RoofPoint> out;
  DeviceBuffer sink(read_sweep_sink_bytes());
  const TimingConfig c = roof_timing();
  for (double size : sizes) {
    // 32-byte multiples: 16-byte loads for the sweep, two 16-byte-aligned halves for the copy.
    const std::size_t bytes = std::max<std::size_t>(std::size_t(size) / 32 * 32, 32);
    DeviceBuffer src(bytes), dst(bytes);  // the copy writes the first half of dst, the write sweep all of it
    OPBENCH_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, s));
    const std::vector<Measurement> m = measure(
        {[&](cudaStream_t st) { launch_read_sweep(src.get(), bytes, sink.get(), st); },
         [&](cudaStream_t st) { launch_copy_sweep(src.get(), dst.get(), bytes / 2, st); },
         [&](cudaStream_t st) { launch_write_sweep(dst.get(), bytes, st); }},
        c, res, s, {"read sweep", "copy sweep", "write sweep"});
    auto gbps = [&](const Measurement& mm) {
      if (!mm.pure || mm.pure->median_ms <= 0)
        throw std::runtime_error("the bandwidth roofs could not be timed at " + std::to_string(bytes) + " bytes");
      return double(bytes) / (mm.pure->median_ms * 1e-3) / 1e9;
    };
    out.push_back({double(bytes), gbps(m[0]), gbps(m[1]), gbps(m[2])});
  }
  return out;
}

std::vector<double> roof_curve_sizes(const TimingResources& res) {
  std::vector<double> sizes;
  const double top = double(roof_sweep_bytes(res));
  for (double mb = 1; mb * 1e6 < top; mb *= 2) {
    sizes.push_back(mb * 1e6);
    if (1.5 * mb * 1e6 < top) sizes.push_back(1.5 * mb * 1e6);
  }
  sizes.push_back(top);  // the roofs' own size, with the curve's kernels (the copy roof is cudaMemcpyAsync's)
  return sizes;
}

double measure_copy_gbps() {
  TimingResources res;
  OwnStream s;
  return measure_copy_gbps(res, s.s);
}

double measure_read_gbps() {
  TimingResources res;
  OwnStream s;
  return measure_read_gbps(res, s.s);
}

}  // namespace opbench
