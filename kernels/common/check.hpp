// Error checks for the framework's launchers. A failed CUDA call or launch throws fw::CudaError with
// the file and line, so the harness can report the op as failed and go on.
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace fw {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  throw CudaError(e, std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ") in " + expr +
                         " at " + file + ":" + std::to_string(line));
}

}  // namespace fw

#define FW_CUDA_CHECK(expr)                                                  \
  do {                                                                       \
    cudaError_t fw_err_ = (expr);                                            \
    if (fw_err_ != cudaSuccess) ::fw::throw_cuda(fw_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch.
#define FW_CHECK_LAUNCH() FW_CUDA_CHECK(cudaGetLastError())

// Argument checks in launchers: throws std::invalid_argument with the message.
#define FW_REQUIRE(cond, msg)                                                       \
  do {                                                                              \
    if (!(cond)) throw std::invalid_argument(std::string(__func__) + ": " + (msg)); \
  } while (0)
