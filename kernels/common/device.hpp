#pragma once
// What launchers need to know of the current device, queried once per device and cached.
#include <cstddef>
#include <mutex>

namespace fw {

// The current device's ordinal (cudaGetDevice), checked to be below 64, the size of the per-device tables.
int current_device();

// A value worked out once per device (the current one) and kept: the device's properties, a kernel's
// shared-memory limit set, its co-resident blocks by the occupancy API. Thread-safe; use it as a function-local
// static:
//   static PerDevice<int> resident;
//   return resident.get([&] { ...; return n; });
template <class T>
class PerDevice {
 public:
  template <class F>
  const T& get(F&& compute) {
    const int d = current_device();
    std::call_once(once_[d], [&] { value_[d] = compute(); });
    return value_[d];
  }

 private:
  std::once_flag once_[64];
  T value_[64] = {};
};

struct DeviceProps {
  int device;
  int cc_major, cc_minor;
  int sms;                // streaming multiprocessors (persistent grids are sized by it)
  std::size_t l2_bytes;   // the L2 cache
};
// The current device's properties, cached per device.
const DeviceProps& device_props();
// device_props().sms.
int sm_count();

}  // namespace fw
