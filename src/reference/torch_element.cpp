// LibTorch references of the element and activation categories: the at:: calls a user writes, with
// out= variants where LibTorch has them.
#include "src/reference/torch_ops.hpp"

namespace opbench::reference {


static void register_torch_element(TorchRegistry& r) {
  r.add("add", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::add_out(a.out[0], a.in[0], a.in[1])}; });
  r.add("sub", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::sub_out(a.out[0], a.in[0], a.in[1])}; });
  r.add("mul", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::mul_out(a.out[0], a.in[0], a.in[1])}; });
  r.add("div", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::div_out(a.out[0], a.in[0], a.in[1])}; });
  r.add("maximum",
        [](const TorchArgs& a) { return std::vector<at::Tensor>{at::maximum_out(a.out[0], a.in[0], a.in[1])}; });
  r.add("pow", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::pow_out(a.out[0], a.in[0], a.in[1])}; });

  // x + c and x * c as a user writes them (a Python scalar operand); pow has a Tensor_Scalar out variant.
  r.add("add_scalar", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::add(a.in[0], at::Scalar(a.params.get("scalar")))};
  });
  r.add("mul_scalar", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::mul(a.in[0], at::Scalar(a.params.get("scalar")))};
  });
  r.add("pow_scalar", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::pow_out(a.out[0], a.in[0], at::Scalar(a.params.get("scalar")))};
  });

  // b is [N] (row) or [M, 1] (col); the output is [M, N] in the harness's shape (leading dims folded).
  const auto bcast = [](const TorchArgs& a) {
    const int64_t cols = a.out[0].size(-1);
    at::Tensor x = a.in[0].reshape({-1, cols});
    at::Tensor y = a.out[0].view({-1, cols});
    at::add_out(y, x, a.in[1]);
    return std::vector<at::Tensor>{a.out[0]};
  };
  r.add("add_bcast_row", bcast);
  r.add("add_bcast_col", bcast);

  r.add("neg", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::neg_out(a.out[0], a.in[0])}; });
  r.add("abs", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::abs_out(a.out[0], a.in[0])}; });
  r.add("exp", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::exp_out(a.out[0], a.in[0])}; });
  r.add("log", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::log_out(a.out[0], a.in[0])}; });
  r.add("sqrt", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::sqrt_out(a.out[0], a.in[0])}; });
  r.add("rsqrt", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::rsqrt_out(a.out[0], a.in[0])}; });
  r.add("sin", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::sin_out(a.out[0], a.in[0])}; });
  r.add("cos", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::cos_out(a.out[0], a.in[0])}; });
}

static void register_torch_activation(TorchRegistry& r) {
  r.add("relu", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::relu(a.in[0])}; });
  r.add("leaky_relu", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::leaky_relu_out(a.out[0], a.in[0], at::Scalar(a.params.get("scalar")))};
  });
  r.add("sigmoid", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::sigmoid_out(a.out[0], a.in[0])}; });
  r.add("tanh", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::tanh_out(a.out[0], a.in[0])}; });
  r.add("gelu", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::gelu_out(a.out[0], a.in[0], "none")}; });
  r.add("gelu_tanh",
        [](const TorchArgs& a) { return std::vector<at::Tensor>{at::gelu_out(a.out[0], a.in[0], "tanh")}; });
  r.add("silu", [](const TorchArgs& a) { return std::vector<at::Tensor>{at::silu_out(a.out[0], a.in[0])}; });
  r.add("softplus", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::softplus_out(a.out[0], a.in[0], at::Scalar(1.0), at::Scalar(20.0))};
  });
}

OPBENCH_REGISTER_TORCH(register_torch_element);
OPBENCH_REGISTER_TORCH(register_torch_activation);

}  // namespace opbench::reference
