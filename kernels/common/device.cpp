#include <cuda_runtime_api.h>

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

}  // namespace fw
