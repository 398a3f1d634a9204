// fw::gemm: argument checks and the choice of path (matmul.hpp lists the paths and their rules).
//   fp32, M <= 16, batch 1                -> skinny streaming kernel (gemm_skinny.cu)
//   fp32                                  -> SIMT kernel (gemm_simt.cu)
//   fp16/bf16, cc 9.0, tensor-map rules   -> TMA + wgmma kernel (gemm_sm90.cu), tile config by size
//   fp16/bf16 otherwise                   -> mma.sync kernel (gemm_mma.cu)
//   K == 0                                -> C = bias (or 0)
// Host cost per call: a cached device query, and for the wgmma path two tensor maps (~1 us).
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/common/check.hpp"
#include "kernels/common/types.cuh"
#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/matmul/matmul.hpp"

namespace fw {
namespace detail {

const DeviceInfo& current_device_info() {
  static DeviceInfo infos[64];
  static std::once_flag once[64];
  int dev = 0;
  FW_CUDA_CHECK(cudaGetDevice(&dev));
  FW_REQUIRE(dev >= 0 && dev < 64, "device ordinal out of range");
  std::call_once(once[dev], [dev] {
    DeviceInfo d;
    d.device = dev;
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
    FW_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    infos[dev] = d;
  });
  return infos[dev];
}

}  // namespace detail

namespace {

detail::GemmArgs make_args(DType dt, GemmLayout bl, const void* A, const void* B, const void* bias, void* C,
                           int64_t batch, int64_t M, int64_t N, int64_t K) {
  FW_REQUIRE(dt == DType::f32 || dt == DType::f16 || dt == DType::bf16,
             std::string("unsupported dtype ") + opbench::dtype_name(dt));
  FW_REQUIRE(batch >= 0 && M >= 0 && N >= 0 && K >= 0, "negative size");
  FW_REQUIRE(batch < (int64_t(1) << 31) && M < (int64_t(1) << 31) && N < (int64_t(1) << 31) &&
                 K < (int64_t(1) << 31),
             "sizes must be below 2^31");
  const bool empty = batch == 0 || M == 0 || N == 0;
  FW_REQUIRE(empty || C != nullptr, "null output");
  FW_REQUIRE(empty || K == 0 || (A != nullptr && B != nullptr), "null input");
  return detail::GemmArgs{dt, bl, A, B, bias, C, batch, M, N, K};
}

}  // namespace

void gemm(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* bias, void* C, int64_t batch,
          int64_t M, int64_t N, int64_t K, bool allow_tf32, cudaStream_t stream) {
  (void)allow_tf32;  // fp32 stays true fp32 (see matmul.hpp)
  const detail::GemmArgs a = make_args(dt, b_layout, A, B, bias, C, batch, M, N, K);
  if (batch == 0 || M == 0 || N == 0) return;
  if (K == 0) return detail::gemm_fill_bias(a, stream);
  if (detail::skinny_supported(a)) return detail::gemm_skinny(a, stream);
  if (dt == DType::f32) return detail::gemm_simt(a, stream);
  if (detail::sm90_supported(a)) return detail::gemm_sm90(a, detail::sm90_pick(a), stream);
  detail::gemm_mma(a, stream);
}

std::string gemm_path(DType dt, GemmLayout b_layout, const void* A, const void* B, const void* C, int64_t batch,
                      int64_t M, int64_t N, int64_t K) {
  const detail::GemmArgs a = make_args(dt, b_layout, A, B, nullptr, const_cast<void*>(C), batch, M, N, K);
  if (batch == 0 || M == 0 || N == 0) return "empty";
  if (K == 0) return "fill_bias";
  if (detail::skinny_supported(a)) return "skinny_f32";
  if (dt == DType::f32) return detail::simt_vector_ok(a) ? "simt_f32_vec4" : "simt_f32_scalar";
  if (detail::sm90_supported(a)) return std::string("sm90_tma_wgmma ") + detail::sm90_config_name(detail::sm90_pick(a));
  return detail::mma_vector_ok(a) ? "mma_sync_cp_async" : "mma_sync_scalar";
}

}  // namespace fw
