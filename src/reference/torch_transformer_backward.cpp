// LibTorch references of the decoder's backward kernels: the analytic backward written with the at::
// ops autograd itself runs for the forward a PyTorch user writes (HF Llama/Qwen2). The harness hands a
// backward only the forward's inputs, so a tensor autograd would have saved from the forward is
// recomputed where noted (that cost is LibTorch's here; it is small next to the pass itself except where
// said). All run on CPU tensors and in fp64 (the oracle) as well.
//   rope_backward:      forward y = x * cos + rotate_half(x) * sin. Autograd: dy * cos (mul), and dy * sin
//                       sent back through rotate_half = cat(-x2, x1): cat(g2, -g1) for g = dy * sin; the
//                       cos/sin tables in dy's dtype as the forward's (made once per shape, outside the
//                       timed call, as a model makes them once: the same construction as
//                       torch_transformer.cpp's).
//   silu_gate_backward: forward silu(gate) * up on the halves of gate_up. Autograd: d_up = dout *
//                       silu(gate) (silu(gate) is recomputed: the forward's saved output), d_gate =
//                       silu_backward(dout * up, gate); both written into the halves of the harness's
//                       d_gate_up (autograd's cat of the halves' gradients, without its copy).
//   rms_norm_backward:  forward: LibTorch's composite rms_norm, (x.float() * rsqrt(mean(x.float()^2) + eps)
//                       * w).to(dtype). Autograd of it in fp32 (fp64 for the oracle): g = dy.float(),
//                       gw = g * w, dx = gw * r + x * (sum(gw * x) * (-0.5 r^3) * 2 / cols), dw = sum over
//                       rows of g * x * r, both cast back to the dtype; r is recomputed (saved by the
//                       forward: one more read of x).
//   cross_entropy_backward: the gradient of the mean cross_entropy_loss, softmax(logits) - onehot(target)
//                       scaled by grad_scale / rows: _softmax into the harness's output, scatter_add_ of -1
//                       at the targets, mul_ by the scale. That is autograd's result and moves the bytes
//                       its backward moves from the saved log-probabilities (nll_loss_backward's zeros and
//                       scatter, then _log_softmax_backward_data's read of two tensors and write of one),
//                       without recomputing them.
#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference {

namespace {

// rope's cos/sin tables, [tokens, 1, head_dim] in dy's dtype, kept while shape, dtype, device and
// parameters stay the same (one problem's verification and timing).
struct RopeBackwardTables {
  std::vector<int64_t> key_shape;
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
  int64_t seq_len = 0;
  double theta = 0;
  at::Tensor cos, sin;
};

const RopeBackwardTables& rope_backward_tables(const at::Tensor& dy, int64_t seq_len, double theta) {
  static RopeBackwardTables last;
  const std::vector<int64_t> key = {dy.size(0), dy.size(2)};
  if (last.cos.defined() && last.key_shape == key && last.dtype == dy.scalar_type() && last.device == dy.device() &&
      last.seq_len == seq_len && last.theta == theta)
    return last;
  const int64_t tokens = dy.size(0), d = dy.size(2), half = d / 2;
  const at::Tensor i = at::arange(0, half, dy.options().dtype(at::kDouble));
  const at::Tensor inv_freq = at::exp2(-(2.0 / double(d)) * std::log2(theta) * i).to(at::kFloat);
  const at::Tensor pos = at::remainder(at::arange(0, tokens, dy.options().dtype(at::kLong)), seq_len).to(at::kFloat);
  const at::Tensor angle = at::outer(pos, inv_freq);          // [tokens, half], fp32 as HF computes it
  at::Tensor ang = at::cat({angle, angle}, -1).unsqueeze(1);  // [tokens, 1, d]
  const at::ScalarType t = dy.scalar_type();
  if (t == at::kDouble) ang = ang.to(at::kDouble);            // the oracle: cos/sin of the same angles
  last = RopeBackwardTables{key, t, dy.device(), seq_len, theta, at::cos(ang).to(t), at::sin(ang).to(t)};
  return last;
}

}  // namespace

static void register_torch_transformer_backward(TorchRegistry& r) {
  r.add("rope_backward", [](const TorchArgs& a) {
    const at::Tensor& dy = a.in[0];  // [tokens, heads, head_dim]
    const int64_t half = dy.size(2) / 2;
    const RopeBackwardTables& t =
        rope_backward_tables(dy, int64_t(a.params.get("seq_len", 2048)), a.params.get("theta", 1e6));
    const at::Tensor g = dy * t.sin;
    const at::Tensor back = at::cat({g.narrow(-1, half, half), -g.narrow(-1, 0, half)}, -1);
    return std::vector<at::Tensor>{dy * t.cos + back};
  });
  r.add("silu_gate_backward", [](const TorchArgs& a) {
    const at::Tensor& dout = a.in[0];     // [rows, cols]
    const at::Tensor& gate_up = a.in[1];  // [rows, 2 * cols]
    const int64_t cols = gate_up.size(-1) / 2;
    const at::Tensor gate = gate_up.narrow(-1, 0, cols), up = gate_up.narrow(-1, cols, cols);
    at::Tensor d_gate = a.out[0].narrow(-1, 0, cols), d_up = a.out[0].narrow(-1, cols, cols);
    at::silu_backward_out(d_gate, dout * up, gate);
    at::mul_out(d_up, dout, at::silu(gate));
    return std::vector<at::Tensor>{a.out[0]};
  });
  r.add("rms_norm_backward", [](const TorchArgs& a) {
    const at::Tensor& x_in = a.in[0];
    const at::Tensor& w = a.in[1];
    const int64_t cols = x_in.size(-1);
    const double eps = a.params.get("eps", 1e-6);
    // The composite's opmath: fp32 for fp16/bf16 and fp32, fp64 stays fp64 for the oracle.
    const at::ScalarType acc = x_in.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    const at::Tensor x = x_in.reshape({-1, cols}).to(acc);
    const at::Tensor g = a.in[2].reshape({-1, cols}).to(acc);
    const std::vector<int64_t> last{-1}, first{0};
    const at::Tensor rstd = at::rsqrt(at::mean(x * x, at::IntArrayRef(last), /*keepdim=*/true) + eps);
    const at::Tensor gw = g * w;  // promotes w to the opmath type, as the forward's mul did
    const at::Tensor d_mean = at::sum(gw * x, at::IntArrayRef(last), /*keepdim=*/true) * (-0.5) * rstd.pow(3);
    const at::Tensor dx = gw * rstd + x * (d_mean * (2.0 / double(cols)));
    const at::Tensor dw = at::sum(g * (x * rstd), at::IntArrayRef(first));
    return std::vector<at::Tensor>{dx.to(x_in.scalar_type()).reshape(x_in.sizes()), dw.to(w.scalar_type())};
  });
  r.add("cross_entropy_backward", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];
    const int64_t cols = x.size(-1);
    const at::Tensor logits = x.reshape({-1, cols});
    const int64_t rows = logits.size(0);
    const at::Tensor target = a.in[1].reshape({-1, 1});
    at::Tensor out = a.out[0].view({rows, cols});
    at::_softmax_out(out, logits, 1, /*half_to_float=*/false);
    out.scatter_add_(1, target, at::full({rows, 1}, -1.0, out.options()));
    out.mul_(a.params.get("grad_scale", 1.0) / double(rows));
    return std::vector<at::Tensor>{a.out[0]};
  });
}

OPBENCH_REGISTER_TORCH(register_torch_transformer_backward);

}  // namespace opbench::reference
