#include "kernels/common/device.hpp"

#include <cuda_runtime_api.h>

#include "kernels/common/check.hpp"

namespace fw {

int current_device() {
  int dev = 0;
  FW_CUDA_CHECK(cudaGetDevice(&dev));
  FW_REQUIRE(dev >= 0 && dev < 64, "device ordinal out of range");
  return dev;
}

const DeviceProps& device_props() {
  static PerDevice<DeviceProps> props;
  return props.get([] {
    DeviceProps d;
    d.device = current_device();
    int l2 = 0;
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, d.device));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, d.device));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, d.device));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d.device));
    d.l2_bytes = std::size_t(l2);
    return d;
  });
}

int sm_count() { return device_props().sms; }

}  // namespace fw
