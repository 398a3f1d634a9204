// CUDA error handling for the harness: a throwing check with file and line, a no-throw twin for
// destructors, and the out-of-memory error users hit at very large sizes.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace opbench {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line);

}  // namespace opbench

#define OPBENCH_CUDA_CHECK(expr)                                                            \
  do {                                                                                      \
    cudaError_t ob_err_ = (expr);                                                           \
    if (ob_err_ != cudaSuccess) ::opbench::throw_cuda_error(ob_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// For destructors: report, never throw.
#define OPBENCH_CUDA_CHECK_NOTHROW(expr)                                                             \
  do {                                                                                               \
    cudaError_t ob_err_ = (expr);                                                                    \
    if (ob_err_ != cudaSuccess)                                                                      \
      std::fprintf(stderr, "opbench: %s failed: %s (%s:%d)\n", #expr, cudaGetErrorString(ob_err_), \
                   __FILE__, __LINE__);                                                              \
  } while (0)
