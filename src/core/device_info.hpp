// What bench_ops reports about the GPU, read from the device's own attributes, and the measured
// device-to-device copy bandwidth every efficiency figure is also compared with.
#pragma once
#include <string>

#include "opbench/result.hpp"

namespace opbench {

// Number of usable CUDA devices; 0 with `why` set when there is none (no driver, no GPU, ...).
int cuda_device_count(std::string* why);

// Name, SMs, clocks, L2, memory, theoretical bandwidth (2 x memory clock x bus width / 8), driver and
// runtime versions of the current device. Library versions are filled in by the caller.
DeviceInfo query_device();

// GB/s of a large cudaMemcpyAsync device-to-device copy, counting bytes read + written (median of
// several copies of a buffer 8x the L2 size, at least 256 MiB).
double measure_copy_gbps();
double measure_read_gbps();

}  // namespace opbench
