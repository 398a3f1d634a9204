// Device helpers shared by the GEMM kernels (gemm_mma.cu, gemm_simt.cu, gemm_sm90.cu, gemv_sm90.cu): the
// cp.async copies of kernels/common/async_copy.cuh under gemm_dev::, and the epilogue's paired store.
#pragma once
#include <cstdint>

#include "kernels/common/async_copy.cuh"
#include "kernels/common/types.cuh"

namespace fw::gemm_dev {

// The shared-memory address and the cp.async copies live in kernels/common/async_copy.cuh.
using fw::cp_async;
using fw::cp_async_commit;
using fw::cp_async_wait;
using fw::smem_u32;

// Epilogue store of columns (col, col + 1) of one row: one paired store when both exist and the pair is
// aligned (pair_ok: C's address and N allow it), else element by element.
template <class T>
__device__ __forceinline__ void store_pair(T* dst, float v0, float v1, bool two, bool pair_ok) {
  if (two && pair_ok) {
    Packet<T, 2> pk;
    pk.v[0] = from_float<T>(v0);
    pk.v[1] = from_float<T>(v1);
    store_packet(dst, pk);
  } else {
    dst[0] = from_float<T>(v0);
    if (two) dst[1] = from_float<T>(v1);
  }
}

}  // namespace fw::gemm_dev
