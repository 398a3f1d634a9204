#include "src/dist/gpu_identity.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <mutex>

#include "src/core/cuda_check.hpp"

namespace opbench::dist {
namespace {

// The few NVML entry points used, declared here so that no NVML header or library is needed to build.
using nvmlReturn = int;  // NVML_SUCCESS == 0
using nvmlDevice = void*;
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

struct Nvml {
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*by_uuid)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*temperature)(nvmlDevice, int, unsigned*) = nullptr;
  bool ok = false;
};

// Loaded once and kept for the life of the process (nvmlShutdown is not needed at exit).
const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    n.init = reinterpret_cast<nvmlReturn (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.by_uuid = reinterpret_cast<nvmlReturn (*)(const char*, nvmlDevice*)>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    n.temperature =
        reinterpret_cast<nvmlReturn (*)(nvmlDevice, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetTemperature"));
    n.ok = n.init && n.by_uuid && n.temperature && n.init() == 0;
  });
  return n;
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string format_uuid(const unsigned char b[16]) {
  std::string hex;
  for (int i = 0; i < 16; ++i) hex += fmt::format("{:02x}", b[i]);
  return fmt::format("GPU-{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4), hex.substr(16, 4),
                     hex.substr(20));
}

GpuId identify_gpu(int device) {
  cudaDeviceProp p{};
  OPBENCH_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  GpuId g;
  g.host = host_name();
  g.index = device;
  g.name = p.name;
  g.uuid = format_uuid(reinterpret_cast<const unsigned char*>(p.uuid.bytes));
  return g;
}

std::optional<double> gpu_temperature_c(const std::string& uuid) {
  const Nvml& n = nvml();
  if (!n.ok || uuid.empty()) return std::nullopt;
  nvmlDevice dev = nullptr;
  unsigned t = 0;
  if (n.by_uuid(uuid.c_str(), &dev) != 0 || n.temperature(dev, kNvmlTemperatureGpu, &t) != 0) return std::nullopt;
  return double(t);
}

}  // namespace opbench::dist
