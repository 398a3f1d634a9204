// cuDNN's column for the reduction category:
//   cudnnReduceTensor    sum (ADD), mean (AVG), max (MAX), min (MIN) over the last dim ([rows, cols] ->
//                        [rows, 1]), the first dim ([first, rest] -> [1, rest]) and all elements
//                        ([n] -> [1]); fp32 compute type, NaN propagated, no indices (argmax has no
//                        cuDNN column: cuDNN's indices are 32-bit, the op's output int64).
//   cudnnSoftmaxForward  softmax (CUDNN_SOFTMAX_ACCURATE) and log_softmax (CUDNN_SOFTMAX_LOG), mode
//                        INSTANCE over the tensor read as N x C x 1 x 1 = [rows, cols, 1, 1].
// Descriptors, the reduction workspace and indices are set up once in prepare, which also makes one
// call so that a configuration cuDNN refuses (a dtype, a size) is reported as not supported there;
// the launch is the one cuDNN call, on the shared handle's stream (the legacy default stream).
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "src/reference/cudnn_common.hpp"
#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {
namespace {

enum class Where { last, first, all };

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct ReduceState {
  std::unique_ptr<TensorDesc> a, c;
  cudnnReduceTensorDescriptor_t reduce = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* indices = nullptr;
  std::size_t indices_bytes = 0;
  ~ReduceState() {
    if (reduce) cudnnDestroyReduceTensorDescriptor(reduce);
    if (workspace) cudaFree(workspace);
    if (indices) cudaFree(indices);
  }
};

// A and C dims (C has 1 where A is reduced); TensorDesc pads them to 4-D with leading 1s.
void reduce_dims(const Shape& s, Where w, std::vector<int64_t>& a, std::vector<int64_t>& c) {
  const int64_t n = numel(s);
  switch (w) {
    case Where::last: {
      const Rows rc = as_rows(s);
      a = {rc.rows, rc.cols};
      c = {rc.rows, 1};
      return;
    }
    case Where::first: {
      const int64_t first = s.empty() ? 1 : s[0];
      a = {first, n / first};
      c = {1, n / first};
      return;
    }
    case Where::all:
      a = {n};
      c = {1};
      return;
  }
}

Prepare reduce(cudnnReduceTensorOp_t op, Where w) {
  return [op, w](const Bindings& b) {
    const DType t = b.in[0].dtype;
    std::vector<int64_t> a_dims, c_dims;
    reduce_dims(b.in[0].shape, w, a_dims, c_dims);
    // cuDNN answers CUDNN_STATUS_BAD_PARAM when input and output descriptors are the same (every reduced
    // extent is 1: a single element, or a [1, N] / [N, 1] reduced over its unit dimension).
    if (a_dims == c_dims)
      throw NotSupported("cuDNN's cudnnReduceTensor rejects a reduction over extents of 1 (nothing to reduce)");
    auto st = std::make_shared<ReduceState>();
    st->a = std::make_unique<TensorDesc>(t, a_dims);
    st->c = std::make_unique<TensorDesc>(t, c_dims);
    OPBENCH_CUDNN_CHECK(cudnnCreateReduceTensorDescriptor(&st->reduce));
    OPBENCH_CUDNN_CHECK(cudnnSetReduceTensorDescriptor(st->reduce, op, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
    const cudnnHandle_t h = cudnn_handle();
    OPBENCH_CUDNN_CHECK(
        cudnnGetReductionWorkspaceSize(h, st->reduce, st->a->get(), st->c->get(), &st->workspace_bytes));
    OPBENCH_CUDNN_CHECK(cudnnGetReductionIndicesSize(h, st->reduce, st->a->get(), st->c->get(), &st->indices_bytes));
    if (st->workspace_bytes) check_cuda(cudaMalloc(&st->workspace, st->workspace_bytes), "cudaMalloc (cuDNN workspace)");
    if (st->indices_bytes) check_cuda(cudaMalloc(&st->indices, st->indices_bytes), "cudaMalloc (cuDNN indices)");
    const void* x = b.in[0].data;
    void* y = b.out[0].data;
    Prepared p;
    p.workspace_bytes = st->workspace_bytes + st->indices_bytes;
    p.launch = [st, x, y](cudaStream_t s) {
      const float one = 1.f, zero = 0.f;
      OPBENCH_CUDNN_CHECK(cudnnReduceTensor(cudnn_handle(s), st->reduce, st->indices, st->indices_bytes, st->workspace,
                                            st->workspace_bytes, &one, st->a->get(), x, &zero, st->c->get(), y));
    };
    p.launch(nullptr);  // cuDNN refuses unsupported configurations here, not in the timed loop
    return p;
  };
}

struct SoftmaxState {
  std::unique_ptr<TensorDesc> x;
};

Prepare softmax(cudnnSoftmaxAlgorithm_t algo) {
  return [algo](const Bindings& b) {
    const Rows rc = as_rows(b.in[0].shape);
    auto st = std::make_shared<SoftmaxState>();
    st->x = std::make_unique<TensorDesc>(b.in[0].dtype, std::vector<int64_t>{rc.rows, rc.cols, 1, 1});
    const void* x = b.in[0].data;
    void* y = b.out[0].data;
    Prepared p;
    p.launch = [st, algo, x, y](cudaStream_t s) {
      const float one = 1.f, zero = 0.f;
      OPBENCH_CUDNN_CHECK(cudnnSoftmaxForward(cudnn_handle(s), algo, CUDNN_SOFTMAX_MODE_INSTANCE, &one, st->x->get(), x,
                                              &zero, st->x->get(), y));
    };
    p.launch(nullptr);
    return p;
  };
}

}  // namespace

static void register_cudnn_reduction(VendorRegistry& r) {
  const std::pair<const char*, cudnnReduceTensorOp_t> kinds[] = {{"sum", CUDNN_REDUCE_TENSOR_ADD},
                                                                  {"mean", CUDNN_REDUCE_TENSOR_AVG},
                                                                  {"max", CUDNN_REDUCE_TENSOR_MAX},
                                                                  {"min", CUDNN_REDUCE_TENSOR_MIN}};
  for (const auto& k : kinds) {
    r.add(std::string(k.first) + "_last", reduce(k.second, Where::last));
    r.add(std::string(k.first) + "_first", reduce(k.second, Where::first));
    r.add(std::string(k.first) + "_all", reduce(k.second, Where::all));
  }
  r.add("softmax", softmax(CUDNN_SOFTMAX_ACCURATE));
  r.add("log_softmax", softmax(CUDNN_SOFTMAX_LOG));
}

OPBENCH_REGISTER_VENDOR(cudnn, register_cudnn_reduction);

}  // namespace opbench::reference
