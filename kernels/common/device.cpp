#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/common/check.hpp"

namespace fw {

int sm_count() {
  static const int count = [] {
    int dev = 0, n = 0;
    FW_CUDA_CHECK(cudaGetDevice(&dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return count;
}

std::size_t l2_bytes() {
  static const std::size_t bytes = [] {
    int dev = 0, n = 0;
    FW_CUDA_CHECK(cudaGetDevice(&dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrL2CacheSize, dev));
    return std::size_t(n);
  }();
  return bytes;
}

}  // namespace fw
