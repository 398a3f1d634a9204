#include "src/reference/cudnn_common.hpp"

#include <climits>
#include <cstdio>

namespace opbench::reference {

void throw_cudnn(cudnnStatus_t s, const char* expr) {
  // The call's name, not its whole argument list: "cudnnReduceTensor: CUDNN_STATUS_BAD_PARAM".
  std::string call(expr);
  call = call.substr(0, call.find('('));
  const std::string msg = call + ": " + cudnnGetErrorString(s);
  // cuDNN 9 groups its statuses by thousands: 3xxx are the "not supported" family.
  if (int(s) / 1000 == int(CUDNN_STATUS_NOT_SUPPORTED) / 1000)
    throw NotSupported("cuDNN does not support this problem (" + msg + ")");
  throw std::runtime_error("cuDNN error: " + msg);
}

cudnnHandle_t cudnn_handle() {
  static cudnnHandle_t h = [] {
    cudnnHandle_t handle = nullptr;
    OPBENCH_CUDNN_CHECK(cudnnCreate(&handle));
    return handle;
  }();
  return h;
}

cudnnHandle_t cudnn_handle(cudaStream_t s) {
  const cudnnHandle_t h = cudnn_handle();
  OPBENCH_CUDNN_CHECK(cudnnSetStream(h, s));
  return h;
}

cudnnDataType_t cudnn_dtype(DType t) {
  switch (t) {
    case DType::f32: return CUDNN_DATA_FLOAT;
    case DType::f16: return CUDNN_DATA_HALF;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::f64: return CUDNN_DATA_DOUBLE;
    case DType::i64: return CUDNN_DATA_INT64;
  }
  throw NotSupported("cuDNN has no such data type");
}

std::string cudnn_version() {
  const size_t v = cudnnGetVersion();  // e.g. 91900 = 9.19.0
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

static std::vector<int> to_int_dims(const std::vector<int64_t>& v) {
  std::vector<int> out;
  for (int64_t x : v) {
    if (x > INT_MAX) throw NotSupported("cuDNN tensor dimensions are 32-bit");
    out.push_back(int(x));
  }
  return out;
}

static std::vector<int64_t> packed_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

TensorDesc::TensorDesc(DType t, std::vector<int64_t> dims) : TensorDesc(t, dims, packed_strides(dims)) {}

TensorDesc::TensorDesc(DType t, std::vector<int64_t> dims, std::vector<int64_t> strides) {
  while (dims.size() < 4) {  // cuDNN takes 4 to 8 dims: pad with leading 1s
    dims.insert(dims.begin(), 1);
    strides.insert(strides.begin(), strides.empty() ? 1 : strides.front() * dims[1]);
  }
  if (dims.size() > 8) throw NotSupported("cuDNN tensors have at most 8 dimensions");
  OPBENCH_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_));
  const std::vector<int> d = to_int_dims(dims), s = to_int_dims(strides);
  OPBENCH_CUDNN_CHECK(cudnnSetTensorNdDescriptor(d_, cudnn_dtype(t), int(d.size()), d.data(), s.data()));
}

TensorDesc::~TensorDesc() {
  if (d_) cudnnDestroyTensorDescriptor(d_);
}

}  // namespace opbench::reference
