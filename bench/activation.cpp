// The activation category: each op is one functor on the element-wise engine (kernels/elementwise/),
// registered exactly like the unary element ops. Bytes 2 n s, FLOPs n (see element.cpp).
#include "bench/unary.hpp"

namespace opbench::bench {

const Category kActivation{"activation"};

namespace {

void register_activation(Registry& r) {
  using fw::UnaryOp;
  const Category a = kActivation;
  const Init x = Init::uniform(-4, 4);  // both sides of every activation's knee
  add_unary(r, a, "relu", UnaryOp::relu, x, 0, "max(x, 0)");
  add_unary(r, a, "leaky_relu", UnaryOp::leaky_relu, x, 0.01, "x > 0 ? x : 0.01 x");
  add_unary(r, a, "sigmoid", UnaryOp::sigmoid, x, 0, "1 / (1 + exp(-x))");
  add_unary(r, a, "tanh", UnaryOp::tanh, x, 0, "tanh(x)");
  add_unary(r, a, "gelu", UnaryOp::gelu, x, 0, "x Φ(x) (erf)").tags.push_back(kSweepTag);
  add_unary(r, a, "gelu_tanh", UnaryOp::gelu_tanh, x, 0, "GELU, tanh approximation");
  add_unary(r, a, "silu", UnaryOp::silu, x, 0, "x sigmoid(x) (swish)").tags.push_back(kSweepTag);
  add_unary(r, a, "softplus", UnaryOp::softplus, x, 0, "log(1 + exp(x)), threshold 20");
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kActivation, 20, "activation functions on the element-wise engine", {"activations"}, register_activation});

}  // namespace opbench::bench
