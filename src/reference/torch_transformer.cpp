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

const RopeTables& rope_tables(const at::Tensor& x, int64_t seq_len, double theta) {
  static RopeTables last;
  const std::vector<int64_t> key = {x.size(0), x.size(2)};
  if (last.cos.defined() && last.key_shape == key && last.dtype == x.scalar_type() && last.device == x.device() &&
      last.seq_len == seq_len && last.theta == theta)
    return last;
  const int64_t tokens = x.size(0), d = x.size(2), half = d / 2;
  const at::Tensor i = at::arange(0, half, x.options().dtype(at::kDouble));
  const at::Tensor inv_freq = at::exp2(-(2.0 / double(d)) * std::log2(theta) * i).to(at::kFloat);
  const at::Tensor pos = at::remainder(at::arange(0, tokens, x.options().dtype(at::kLong)), seq_len).to(at::kFloat);
  const at::Tensor angle = at::outer(pos, inv_freq);                // [tokens, half], fp32 as HF computes it
  at::Tensor ang = at::cat({angle, angle}, -1).unsqueeze(1);        // [tokens, 1, d]
  const at::ScalarType t = x.scalar_type();
  if (t == at::kDouble) ang = ang.to(at::kDouble);                  // the oracle: cos/sin of the same angles
  last = RopeTables{key, t, x.device(), seq_len, theta, at::cos(ang).to(t), at::sin(ang).to(t)};
  return last;
}


static void register_torch_transformer(TorchRegistry& r) {
  r.add("rope", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];  // [tokens, heads, head_dim]
    const int64_t half = x.size(2) / 2;
    const RopeTables& t = rope_tables(x, int64_t(a.params.get("seq_len", 2048)), a.params.get("theta", 1e6));
    const at::Tensor x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
    const at::Tensor rotated = at::cat({-x2, x1}, -1);
    return std::vector<at::Tensor>{x * t.cos + rotated * t.sin};
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
