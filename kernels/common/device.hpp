#pragma once
// What launchers need to know of the current device, queried once per device and cached.
#include <cstddef>

namespace fw {

struct DeviceProps {
  int device;
  int cc_major, cc_minor;
  int sms;                // streaming multiprocessors (persistent grids are sized by it)
  std::size_t l2_bytes;   // the L2 cache
};
// The current device's properties (cudaGetDevice), cached per device ordinal (< 64).
const DeviceProps& device_props();
// device_props().sms.
int sm_count();

}  // namespace fw
