// cuDNN's columns for the element and activation categories: cudnnOpTensor (add, mul, max, and add
// with a broadcast operand) and cudnnActivationForward (relu, sigmoid, tanh, swish).
// Descriptors are built once in prepare; the launch is the one cuDNN call a user makes per step.
#include <memory>

#include "src/reference/cudnn_common.hpp"
#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {
namespace {

struct OpTensorState {
  std::unique_ptr<TensorDesc> a, b, c;
  cudnnOpTensorDescriptor_t op = nullptr;
  ~OpTensorState() {
    if (op) cudnnDestroyOpTensorDescriptor(op);
  }
};

// C = op(A, B) with B either the same shape as A or broadcast along rows ([N]) or columns ([M, 1]).
Prepare op_tensor(cudnnOpTensorOp_t kind) {
  return [kind](const Bindings& bind) {
    const Rows rc = as_rows(bind.out[0].shape);
    const DType t = bind.out[0].dtype;
    auto st = std::make_shared<OpTensorState>();
    st->a = std::make_unique<TensorDesc>(t, std::vector<int64_t>{rc.rows, rc.cols});
    st->c = std::make_unique<TensorDesc>(t, std::vector<int64_t>{rc.rows, rc.cols});
    const int64_t nb = bind.in[1].numel();
    std::vector<int64_t> b_dims = {rc.rows, rc.cols};
    if (nb != rc.rows * rc.cols) b_dims = (nb == rc.cols && bind.in[1].shape.size() == 1)
                                             ? std::vector<int64_t>{1, rc.cols}
                                             : std::vector<int64_t>{rc.rows, 1};
    st->b = std::make_unique<TensorDesc>(t, b_dims);
    OPBENCH_CUDNN_CHECK(cudnnCreateOpTensorDescriptor(&st->op));
    OPBENCH_CUDNN_CHECK(cudnnSetOpTensorDescriptor(st->op, kind, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
    Prepared p;
    const void* a = bind.in[0].data;
    const void* b = bind.in[1].data;
    void* c = bind.out[0].data;
    p.launch = [st, a, b, c](cudaStream_t s) {
      const float one = 1.f, zero = 0.f;
      OPBENCH_CUDNN_CHECK(cudnnOpTensor(cudnn_handle(s), st->op, &one, st->a->get(), a, &one, st->b->get(), b, &zero,
                                        st->c->get(), c));
    };
    return p;
  };
}

struct ActivationState {
  std::unique_ptr<TensorDesc> x;
  cudnnActivationDescriptor_t act = nullptr;
  ~ActivationState() {
    if (act) cudnnDestroyActivationDescriptor(act);
  }
};

Prepare activation(cudnnActivationMode_t mode) {
  return [mode](const Bindings& bind) {
    auto st = std::make_shared<ActivationState>();
    st->x = std::make_unique<TensorDesc>(bind.in[0].dtype, std::vector<int64_t>{bind.in[0].numel()});
    OPBENCH_CUDNN_CHECK(cudnnCreateActivationDescriptor(&st->act));
    OPBENCH_CUDNN_CHECK(cudnnSetActivationDescriptor(st->act, mode, CUDNN_PROPAGATE_NAN, 0.0));
    if (mode == CUDNN_ACTIVATION_SWISH) OPBENCH_CUDNN_CHECK(cudnnSetActivationDescriptorSwishBeta(st->act, 1.0));
    Prepared p;
    const void* x = bind.in[0].data;
    void* y = bind.out[0].data;
    p.launch = [st, x, y](cudaStream_t s) {
      const float one = 1.f, zero = 0.f;
      OPBENCH_CUDNN_CHECK(cudnnActivationForward(cudnn_handle(s), st->act, &one, st->x->get(), x, &zero, st->x->get(), y));
    };
    return p;
  };
}

}  // namespace

static void register_cudnn_element(VendorRegistry& r) {
  r.add("add", op_tensor(CUDNN_OP_TENSOR_ADD));
  r.add("mul", op_tensor(CUDNN_OP_TENSOR_MUL));
  r.add("maximum", op_tensor(CUDNN_OP_TENSOR_MAX));
  r.add("add_bcast_row", op_tensor(CUDNN_OP_TENSOR_ADD));
  r.add("add_bcast_col", op_tensor(CUDNN_OP_TENSOR_ADD));
}

static void register_cudnn_activation(VendorRegistry& r) {
  r.add("relu", activation(CUDNN_ACTIVATION_RELU));
  r.add("sigmoid", activation(CUDNN_ACTIVATION_SIGMOID));
  r.add("tanh", activation(CUDNN_ACTIVATION_TANH));
  r.add("silu", activation(CUDNN_ACTIVATION_SWISH));
}

OPBENCH_REGISTER_VENDOR(cudnn, register_cudnn_element);
OPBENCH_REGISTER_VENDOR(cudnn, register_cudnn_activation);

}  // namespace opbench::reference
