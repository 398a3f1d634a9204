// What bench_ops reports about the GPU, read from the device's own attributes, and the measured copy
// and read bandwidths every efficiency figure is also compared with.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "opbench/result.hpp"

namespace opbench {

class TimingResources;

// Number of usable CUDA devices; 0 with `why` set when there is none (no driver, no GPU, ...).
int cuda_device_count(std::string* why);

// Name, SMs, clocks, L2, memory, theoretical bandwidth (2 x memory clock x bus width / 8), driver and
// runtime versions of the current device. Library versions are filled in by the caller.
DeviceInfo query_device();

// The roofs every op's GB/s is compared with, each timed like an op (timer.hpp: clean cold L2 before
// every sample, handshake, clock check, median to the default precision):
//  - copy: a cudaMemcpyAsync device-to-device copy of a buffer of 8x the L2 size (at least 256 MiB),
//    counting bytes read + written;
//  - read: a read-only sweep of such a buffer with 16-byte loads (l2_flush.hpp's sweep kernel), the
//    roof of ops that only read (reductions, losses).
// The overloads taking resources and a stream reuse a session's; the others make their own.
double measure_copy_gbps(TimingResources& res, cudaStream_t s);
double measure_read_gbps(TimingResources& res, cudaStream_t s);
double measure_copy_gbps();
double measure_read_gbps();

}  // namespace opbench
