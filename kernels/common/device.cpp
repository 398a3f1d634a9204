#include "kernels/common/device.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

#include "kernels/common/check.hpp"

namespace fw {

const DeviceProps& device_props() {
  static DeviceProps props[64];
  static std::once_flag once[64];
  int dev = 0;
  FW_CUDA_CHECK(cudaGetDevice(&dev));
  FW_REQUIRE(dev >= 0 && dev < 64, "device ordinal out of range");
  std::call_once(once[dev], [dev] {
    DeviceProps d;
    d.device = dev;
    int l2 = 0;
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    d.l2_bytes = std::size_t(l2);
    props[dev] = d;
  });
  return props[dev];
}

int sm_count() { return device_props().sms; }

}  // namespace fw
