// Programmatic dependent launch (sm_90): a second kernel of a two-kernel op is queued as a dependent of the
// kernel before it on the stream, so its launch overlaps that kernel instead of following its end. The
// first kernel calls allow_dependents() (at its start: the dependent's blocks are scheduled as SMs free up);
// the dependent calls wait_for_prerequisite() before it reads anything the first kernel wrote (it returns
// when that grid has completed and its writes are visible). Below sm_90 both are no-ops and the launch is
// an ordinary stream-ordered one.
#pragma once
#include <cuda_runtime_api.h>

#include <utility>

#include "kernels/common/check.hpp"

namespace fw {

// No memory clobber: it only lets the dependent be scheduled, and orders nothing (the dependent's wait does),
// so the compiler may keep values in registers across it.
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__device__ __forceinline__ void wait_for_prerequisite() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The launch attribute that makes a cudaLaunchKernelEx launch a programmatic dependent of the kernel before it.
inline cudaLaunchAttribute programmatic_serialization_attr() {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return attr;
}

// A programmatic dependent launch of kernel with `smem` bytes of dynamic shared memory.
template <class... Params, class... Args>
void launch_dependent_smem(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                           Args&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1] = {programmatic_serialization_attr()};
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  FW_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  FW_CHECK_LAUNCH();
}

template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
  launch_dependent_smem(kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

}  // namespace fw
