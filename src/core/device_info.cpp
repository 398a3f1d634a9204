#include "src/core/device_info.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/core/device_buffer.hpp"
#include "src/model/stats.hpp"

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

double measure_copy_gbps() {
  int dev = 0, l2 = 0;
  OPBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  OPBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const std::size_t bytes = std::max<std::size_t>(std::size_t(l2) * 8, std::size_t(256) << 20);
  DeviceBuffer src(bytes), dst(bytes);
  OPBENCH_CUDA_CHECK(cudaMemset(src.get(), 1, bytes));
  cudaEvent_t a, b;
  OPBENCH_CUDA_CHECK(cudaEventCreate(&a));
  OPBENCH_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int i = 0; i < 12; ++i) {
    OPBENCH_CUDA_CHECK(cudaEventRecord(a, nullptr));
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    OPBENCH_CUDA_CHECK(cudaEventRecord(b, nullptr));
    OPBENCH_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    OPBENCH_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    if (i >= 2) ms.push_back(t);  // the first copies warm the clocks
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 2.0 * double(bytes) / (median_of(ms) * 1e-3) / 1e9;
}

}  // namespace opbench

namespace opbench {
double measure_read_gbps() { return 0; }
}  // namespace opbench
