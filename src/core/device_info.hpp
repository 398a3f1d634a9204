// What bench_ops reports about the GPU, read from the device's own attributes, and the measured copy
// and read bandwidths every efficiency figure is also compared with.
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

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
//    roof of ops that only read (reductions, losses): measure_roofs_at's read point at that size;
//  - write: a store-only sweep of such a buffer (launch_write_sweep), the roof of ops that only write
//    (expand): measure_roofs_at's write point at that size. A stream of stores alone runs faster than the
//    copy's writes: H200 GPU 81f2ba77 (report ops_20261128-190459, committed in f0a9723), the sweep 4.68 TB/s
//    at 503 MB, where the copy and read roofs (4.30, 4.64) imply 4.01.
//    The three sweeps take one pass of the buffer, a grid as wide as it (l2_flush.cu has the figures against the
//    grid-stride loops they replaced).
// The overloads taking resources and a stream reuse a session's; the others make their own.
std::size_t roof_sweep_bytes(const TimingResources& res);  // the size the roofs are measured at
double measure_copy_gbps(TimingResources& res, cudaStream_t s);
double measure_read_gbps(TimingResources& res, cudaStream_t s);
double measure_copy_gbps();
double measure_read_gbps();

// The read sweep, a copy kernel (launch_copy_sweep: cudaMemcpyAsync, the copy roof's call, changes its method with
// the size) and the write sweep at each size in `bytes` (bytes moved, ascending or not), timed in turns as the roofs
// are: what a streaming kernel reaches at a problem's own size. roof_curve_sizes: the sizes a run measures, two a
// factor of two from 1 MB up to the roofs' own size, which closes the list (1, 1.5, 2, 3, 4, 6 ... MB).
std::vector<RoofPoint> measure_roofs_at(const std::vector<double>& bytes, TimingResources& res, cudaStream_t s);
std::vector<double> roof_curve_sizes(const TimingResources& res);

}  // namespace opbench
