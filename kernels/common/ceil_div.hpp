// ceil_div for host and device code; host-only headers (the reduction plans) use it without CUDA.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define FW_HOST_DEVICE __host__ __device__
#else
#define FW_HOST_DEVICE
#endif

namespace fw {

FW_HOST_DEVICE constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace fw
