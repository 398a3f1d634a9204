// Which GPU this process measures on: host name, CUDA ordinal, name and UUID; and its temperature, read
// through NVML when the driver's library can be loaded (dlopen: bench_ops does not link NVML, and a
// machine without it simply reports no temperature).
#pragma once
#include <optional>
#include <string>

#include "opbench/result.hpp"

namespace opbench::dist {

std::string host_name();

// The identity of CUDA device `device` (no context is created). Throws on a CUDA error.
GpuId identify_gpu(int device);

// "GPU-5c3e0a5f-1d2b-..." from the 16 bytes of a CUDA UUID, as nvidia-smi -L prints it.
std::string format_uuid(const unsigned char bytes[16]);

// Current core temperature of the GPU with this UUID, in °C; nullopt without NVML or on any NVML error.
std::optional<double> gpu_temperature_c(const std::string& uuid);

}  // namespace opbench::dist
