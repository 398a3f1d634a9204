// Shared by the cuDNN references: one handle per process, status checks, and descriptor helpers.
#pragma once
#include <cudnn.h>

#include <stdexcept>
#include <string>

#include "opbench/dtype.hpp"
#include "opbench/op.hpp"
#include "src/reference/reference.hpp"

namespace opbench::reference {

cudnnHandle_t cudnn_handle();                  // for descriptors and queries (no launch)
cudnnHandle_t cudnn_handle(cudaStream_t s);    // the handle, bound to the stream the launch runs on
cudnnDataType_t cudnn_dtype(DType t);  // throws NotSupported for a type cuDNN does not take

[[noreturn]] void throw_cudnn(cudnnStatus_t s, const char* expr);

// An owned tensor descriptor over an N-d shape (padded to 4-D, as cuDNN requires), packed strides.
class TensorDesc {
 public:
  TensorDesc(DType t, std::vector<int64_t> dims);                     // packed
  TensorDesc(DType t, std::vector<int64_t> dims, std::vector<int64_t> strides);
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

}  // namespace opbench::reference

// Not-supported statuses become NotSupported (the row says so); others are errors.
#define OPBENCH_CUDNN_CHECK(expr)                                              \
  do {                                                                         \
    cudnnStatus_t ob_st_ = (expr);                                             \
    if (ob_st_ != CUDNN_STATUS_SUCCESS) ::opbench::reference::throw_cudnn(ob_st_, #expr); \
  } while (0)
