// ceil_div and round_up for host and device code; host-only headers (the reduction plans) use it without CUDA.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define FW_HOST_DEVICE __host__ __device__
#else
#define FW_HOST_DEVICE
#endif

namespace fw {

FW_HOST_DEVICE constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
FW_HOST_DEVICE constexpr int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace fw
