// LibTorch references of the decoder's backward kernels, as a PyTorch user's loss.backward() runs them:
// autograd through the forward a user writes (HF Llama/Qwen2), built once per prepared problem on leaves
// that require grad and kept (TorchArgs::state, retain_graph), then torch::autograd::grad per call, so the
// timed call runs exactly the backward kernels autograd launches, from the tensors the forward saved:
//   rope_backward:          y = x * cos + rotate_half(x) * sin (tables in x's dtype, as HF's rotary_emb).
//   silu_gate_backward:     silu(gate) * up on the halves of gate_up; the gradient of gate_up.
//   rms_norm_backward:      at::rms_norm (LibTorch >= 2.4: its fused CUDA kernels forward and backward), or
//                           the composite (x.float() * rsqrt(mean(x.float()^2) + eps)).to(dtype) * w before.
//   cross_entropy_backward: at::cross_entropy_loss (mean), backward with grad_scale as the loss's gradient.
// The oracle (fp64) runs the same autograd on fp64 tensors; the CPU tests on CPU tensors.
#include <ATen/ATen.h>

#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "src/reference/torch_rope.hpp"

namespace opbench::reference {

namespace {

// The forward's leaves (the tensors whose gradients the backward returns) and output, kept across calls.
struct Graph {
  std::vector<at::Tensor> leaves;
  at::Tensor out;
};

// The gradients of the leaves for the output gradient `grad_out`, through the graph `forward` builds on
// the first call (leaves: detached copies of the inputs that require grad).
std::vector<at::Tensor> autograd_backward(const TorchArgs& a, const std::function<Graph()>& forward,
                                          const at::Tensor& grad_out) {
  if (!a.state) a.state = std::make_shared<Graph>(forward());
  const Graph& g = *std::static_pointer_cast<Graph>(a.state);
  const std::vector<at::Tensor> leaves(g.leaves.begin(), g.leaves.end());
  return torch::autograd::grad({g.out}, leaves, {grad_out}, /*retain_graph=*/true);
}

at::Tensor leaf(const at::Tensor& t) { return t.detach().requires_grad_(true); }

}  // namespace

static void register_torch_transformer_backward(TorchRegistry& r) {
  r.add("rope_backward", [](const TorchArgs& a) {
    const at::Tensor& dy = a.in[0];  // [tokens, heads, head_dim]
    return autograd_backward(a, [&] {
      // The forward's input is not the harness's (only dy is): any x of the same shape and dtype gives the
      // same graph, as the backward of a rotation does not depend on x.
      const at::Tensor x = leaf(at::zeros_like(dy));
      const RopeTables& t =
          rope_tables(dy, int64_t(a.params.get("seq_len", 2048)), a.params.get("theta", 1e6));
      return Graph{{x}, x * t.cos + rotate_half(x) * t.sin};
    }, dy);
  });
  r.add("silu_gate_backward", [](const TorchArgs& a) {
    return autograd_backward(a, [&] {
      const at::Tensor gate_up = leaf(a.in[1]);  // [rows, 2 * cols]
      const int64_t cols = gate_up.size(-1) / 2;
      return Graph{{gate_up}, at::silu(gate_up.narrow(-1, 0, cols)) * gate_up.narrow(-1, cols, cols)};
    }, a.in[0]);
  });
  r.add("rms_norm_backward", [](const TorchArgs& a) {
    const double eps = a.params.get("eps", 1e-6);
    return autograd_backward(a, [&] {
      const at::Tensor x = leaf(a.in[0]), w = leaf(a.in[1]);
      const std::vector<int64_t> normalized{x.size(-1)};
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
      return Graph{{x, w}, at::rms_norm(x, at::IntArrayRef(normalized), w, eps)};
#else
      const at::ScalarType acc = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
      const at::Tensor xf = x.to(acc);
      const std::vector<int64_t> last{-1};
      return Graph{{x, w}, (xf * at::rsqrt(at::mean(xf * xf, at::IntArrayRef(last), true) + eps)).to(x.scalar_type()) * w};
#endif
    }, a.in[2]);
  });
  r.add("cross_entropy_backward", [](const TorchArgs& a) {
    const at::Tensor& logits_in = a.in[0];
    return autograd_backward(a, [&] {
      const at::Tensor logits = leaf(logits_in.reshape({-1, logits_in.size(-1)}));
      return Graph{{logits}, at::cross_entropy_loss(logits, a.in[1].reshape({-1}))};
    }, at::full({}, a.params.get("grad_scale", 1.0), logits_in.options()));
  });
}

OPBENCH_REGISTER_TORCH(register_torch_transformer_backward);

}  // namespace opbench::reference
