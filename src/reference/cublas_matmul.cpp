// cuBLAS references for the matmul category (the vendor column), called directly:
//   matmul: cublasGemmEx; bmm: cublasGemmStridedBatchedEx; linear: cublasLtMatmul with the bias fused
//   through CUBLASLT_EPILOGUE_BIAS (one kernel, like the framework's).
// Row-major products through column-major cuBLAS: C^T = op(B)^T A^T, i.e. the operands swap places.
// Types: inputs and output in the problem's dtype, scale type fp32, compute CUBLAS_COMPUTE_32F
// (CUBLAS_COMPUTE_32F_FAST_TF32 for fp32 under RunSettings::tf32).
// One cuBLAS handle and one cuBLASLt handle per process, created on first use with a 32 MiB workspace
// each (set once; reported as the implementation's workspace). Prepare does all setup (descriptors, the
// Lt algorithm choice); launch only sets the stream and issues the call.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {
namespace {

[[noreturn]] void fail(const std::string& what, int status) {
  throw std::runtime_error("cuBLAS: " + what + " failed with status " + std::to_string(status));
}

#define OPB_CUBLAS(expr)                                          \
  do {                                                            \
    const cublasStatus_t st_ = (expr);                            \
    if (st_ != CUBLAS_STATUS_SUCCESS) fail(#expr, int(st_));      \
  } while (0)
#define OPB_CUDA(expr)                                                                            \
  do {                                                                                            \
    const cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(e_)); \
  } while (0)

constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

struct Handles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* blas_ws = nullptr;
  void* lt_ws = nullptr;
};

// Created once, on the device current at the first call; kept for the life of the process.
Handles& handles() {
  static Handles h;
  static std::once_flag once;
  std::call_once(once, [] {
    OPB_CUBLAS(cublasCreate(&h.blas));
    OPB_CUBLAS(cublasLtCreate(&h.lt));
    OPB_CUDA(cudaMalloc(&h.blas_ws, kWorkspaceBytes));
    OPB_CUDA(cudaMalloc(&h.lt_ws, kWorkspaceBytes));
    OPB_CUBLAS(cublasSetWorkspace(h.blas, h.blas_ws, kWorkspaceBytes));
  });
  return h;
}

cudaDataType_t data_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    default: break;
  }
  throw std::invalid_argument(std::string("cuBLAS matmul: unsupported dtype ") + dtype_name(t));
}

cublasComputeType_t compute_type(DType t, const RunSettings& s) {
  return (t == DType::f32 && s.tf32) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

int to_int(int64_t v, const char* what) {
  if (v < 0 || v > INT32_MAX) throw std::invalid_argument(std::string("cuBLAS: ") + what + " out of int range");
  return int(v);
}

// C[b] = A[b] @ B[b], all row-major: cuBLAS (column-major) computes C^T = B^T A^T, so B comes first.
// One problem goes through cublasGemmEx, a batch through cublasGemmStridedBatchedEx.
Prepared prepare_nn(const Bindings& b, int batch, int M, int N, int K) {
  const cudaDataType_t dt = data_type(b.in[0].dtype);
  const cublasComputeType_t ct = compute_type(b.in[0].dtype, b.settings);
  Handles& h = handles();
  const void* A = b.in[0].data;
  const void* B = b.in[1].data;
  void* C = b.out[0].data;
  Prepared p;
  p.workspace_bytes = kWorkspaceBytes;
  p.launch = [&h, A, B, C, batch, M, N, K, dt, ct](cudaStream_t s) {
    const float one = 1.f, zero = 0.f;
    OPB_CUBLAS(cublasSetStream(h.blas, s));
    if (batch == 1)
      OPB_CUBLAS(cublasGemmEx(h.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, dt, N, A, dt, K, &zero, C, dt, N,
                              ct, CUBLAS_GEMM_DEFAULT));
    else
      OPB_CUBLAS(cublasGemmStridedBatchedEx(h.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, dt, N,
                                            int64_t(K) * N, A, dt, K, int64_t(M) * K, &zero, C, dt, N,
                                            int64_t(M) * N, batch, ct, CUBLAS_GEMM_DEFAULT));
  };
  return p;
}

Prepared prepare_matmul(const Bindings& b) {
  const Shape& as = b.in[0].shape;  // [M, K]
  const Shape& bs = b.in[1].shape;  // [K, N]
  return prepare_nn(b, 1, to_int(as[0], "M"), to_int(bs[1], "N"), to_int(as[1], "K"));
}

Prepared prepare_bmm(const Bindings& b) {
  const Shape& as = b.in[0].shape;  // [B, M, K]
  const Shape& bs = b.in[1].shape;  // [B, K, N]
  return prepare_nn(b, to_int(as[0], "batch"), to_int(as[1], "M"), to_int(bs[2], "N"), to_int(as[2], "K"));
}

// cublasLt descriptors for one linear problem; released with the Prepared.
struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  ~LtPlan() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

Prepared prepare_linear(const Bindings& bd) {
  const Shape& xs = bd.in[0].shape;  // [M, K]
  const Shape& ws = bd.in[1].shape;  // [N, K]
  const int M = to_int(xs[0], "M"), K = to_int(xs[1], "K"), N = to_int(ws[0], "N");
  const cudaDataType_t dt = data_type(bd.in[0].dtype);
  const cublasComputeType_t ct = compute_type(bd.in[0].dtype, bd.settings);
  Handles& h = handles();
  auto plan = std::make_shared<LtPlan>();
  // Column-major view: D[N, M] = op(W)[N, K] * x^T[K, M] + bias[N]; W is stored as a K x N column-major
  // matrix (ld K) and transposed, x as K x M (ld K), D as N x M (ld N).
  OPB_CUBLAS(cublasLtMatmulDescCreate(&plan->op, ct, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  OPB_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  OPB_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
  OPB_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  const void* bias = bd.in[2].data;
  OPB_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  const cudaDataType_t bias_t = dt;
  OPB_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_t, sizeof bias_t));
  OPB_CUBLAS(cublasLtMatrixLayoutCreate(&plan->a, dt, K, N, K));
  OPB_CUBLAS(cublasLtMatrixLayoutCreate(&plan->b, dt, K, M, K));
  OPB_CUBLAS(cublasLtMatrixLayoutCreate(&plan->c, dt, N, M, N));
  cublasLtMatmulPreference_t pref = nullptr;
  OPB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  std::size_t ws_bytes = kWorkspaceBytes;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &ws_bytes, sizeof ws_bytes);
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(h.lt, plan->op, plan->a, plan->b, plan->c, plan->c, pref, 1, &plan->algo,
                                        &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS) fail("cublasLtMatmulAlgoGetHeuristic", int(st));
  if (found == 0) throw std::runtime_error("cuBLASLt: no algorithm for this linear problem");

  const void* x = bd.in[0].data;
  const void* w = bd.in[1].data;
  void* y = bd.out[0].data;
  Prepared p;
  p.workspace_bytes = kWorkspaceBytes;
  p.launch = [&h, plan, x, w, y](cudaStream_t s) {
    const float one = 1.f, zero = 0.f;
    OPB_CUBLAS(cublasLtMatmul(h.lt, plan->op, &one, w, plan->a, x, plan->b, &zero, y, plan->c, y, plan->c,
                              &plan->algo.algo, h.lt_ws, kWorkspaceBytes, s));
  };
  return p;
}

}  // namespace

static void register_cublas_matmul(VendorRegistry& r) {
  r.add("matmul", prepare_matmul);
  r.add("bmm", prepare_bmm);
  r.add("linear", prepare_linear);
}

OPBENCH_REGISTER_VENDOR(cublas, register_cublas_matmul);

}  // namespace opbench::reference
