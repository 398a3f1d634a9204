// LibTorch references of the transformer category, as a PyTorch user writes them (the HF Llama/Qwen2
// code):
//   rope:      inv_freq = theta^(-2i/d) (computed in fp64, rounded once to fp32), angles = fp32 positions x
//              inv_freq in fp32, cos/sin of those angles cast to x's dtype (tables made once per shape,
//              outside the timed call, as a model makes them once per forward), then
//              x * cos + rotate_half(x) * sin with rotate_half(x) = cat(-x2, x1).
//   silu_gate: at::silu(gate) * up on the two halves of gate_up, into the harness's output (mul_out).
// Both also run on CPU tensors and in fp64 (the oracle: cos/sin of the same fp32 angles, in fp64).
#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "src/reference/torch_ops.hpp"
#include "src/reference/torch_rope.hpp"

namespace opbench::reference {

CosSin rope_cos_sin(const at::Tensor& positions, int64_t head_dim, double theta, at::ScalarType t) {
  const at::Tensor i = at::arange(0, head_dim / 2, positions.options().dtype(at::kDouble));
  const at::Tensor inv_freq = at::exp2(-(2.0 / double(head_dim)) * std::log2(theta) * i).to(at::kFloat);
  const at::Tensor angle = at::outer(positions, inv_freq);  // [n, d/2], fp32 as HF computes it
  at::Tensor ang = at::cat({angle, angle}, -1);
  if (t == at::kDouble) ang = ang.to(at::kDouble);            // the oracle: cos/sin of the same angles
  return {at::cos(ang).to(t), at::sin(ang).to(t)};
}

at::Tensor rotate_half(const at::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

const RopeTables& rope_tables(const at::Tensor& x, int64_t seq_len, double theta) {
  static RopeTables last;
  const std::vector<int64_t> key = {x.size(0), x.size(2)};
  if (last.cos.defined() && last.key_shape == key && last.dtype == x.scalar_type() && last.device == x.device() &&
      last.seq_len == seq_len && last.theta == theta)
    return last;
  const at::Tensor pos = at::remainder(at::arange(0, x.size(0), x.options().dtype(at::kLong)), seq_len).to(at::kFloat);
  const CosSin cs = rope_cos_sin(pos, x.size(2), theta, x.scalar_type());
  last = RopeTables{key, x.scalar_type(), x.device(), seq_len, theta, cs.cos.unsqueeze(1), cs.sin.unsqueeze(1)};
  return last;
}

static void register_torch_transformer(TorchRegistry& r) {
  r.add("rope", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];  // [tokens, heads, head_dim]
    const RopeTables& t = rope_tables(x, int64_t(a.params.get("seq_len", 2048)), a.params.get("theta", 1e6));
    return std::vector<at::Tensor>{x * t.cos + rotate_half(x) * t.sin};
  });
  r.add("silu_gate", [](const TorchArgs& a) {
    const at::Tensor& gate_up = a.in[0];  // [rows, 2 * cols]
    const int64_t cols = gate_up.size(-1) / 2;
    const at::Tensor gate = gate_up.narrow(-1, 0, cols), up = gate_up.narrow(-1, cols, cols);
    return std::vector<at::Tensor>{at::mul_out(a.out[0], at::silu(gate), up)};
  });
}

OPBENCH_REGISTER_TORCH(register_torch_transformer);

}  // namespace opbench::reference
