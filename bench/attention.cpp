// Causal grouped-query flash attention (kernels/attention/), forward and backward, in the transformer
// category. Shape {batch, seq, heads_q, heads_kv, head_dim}: q [batch, seq, heads_q, head_dim], k and v
// [batch, seq, heads_kv, head_dim] (token-major, as the projections write them), seq_q = seq_kv = seq,
// causal, scale 1/sqrt(head_dim). Shapes: Qwen2-0.5B (14 query heads, 2 kv heads of 64) at batch 1 and 4,
// seq 512 and 2048, and a Llama-like layer (32 / 8 heads of 128).
//
// Inputs: q and k uniform in [-2, 2), v (and d_o) in [-1, 1). The scaled scores q.k / sqrt(d) then have a
// standard deviation of 2^2 / 3 = 1.33 whatever the head_dim: softmax neither uniform (an error in a
// masked key would hide in a 1/seq average) nor one-hot.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "bench/transformer_ops.hpp"
#include "kernels/attention/attention.hpp"

namespace opbench::bench {

namespace {


fw::AttentionShape attention_shape(const Shape& s) {
  if (s.size() != 5 || s[0] < 1 || s[1] < 1 || s[2] < 1 || s[3] < 1 || s[2] % s[3] != 0 ||
      (s[4] != 64 && s[4] != 128))
    throw std::invalid_argument(
        "attention takes {batch, seq, heads_q, heads_kv, head_dim}: heads_q a multiple of heads_kv, head_dim 64 or "
        "128");
  fw::AttentionShape a;
  a.batch = s[0];
  a.seq_q = a.seq_kv = s[1];
  a.heads_q = s[2];
  a.heads_kv = s[3];
  a.head_dim = s[4];
  a.scale = float(1.0 / std::sqrt(double(s[4])));
  a.causal = true;
  return a;
}

Shape q_shape(const Shape& s) { return {s[0], s[1], s[2], s[4]}; }
Shape kv_shape(const Shape& s) { return {s[0], s[1], s[3], s[4]}; }

std::size_t round_up(std::size_t n) { return (n + 255) / 256 * 256; }
std::size_t lse_bytes(const Shape& s) { return round_up(std::size_t(s[0] * s[2] * s[1]) * sizeof(float)); }

// Matmul FLOPs of one causal forward: QK^T and PV, 2 * 2 * b * hq * S * S * d, halved for the causal
// triangle (what the mask leaves; the diagonal tiles' masked half is computed and not counted).
double forward_flops(const Shape& s) {
  return 4.0 * double(s[0]) * double(s[2]) * double(s[1]) * double(s[1]) * double(s[4]) / 2.0;
}

std::vector<Shape> attention_shapes(SizeClass c) {
  switch (c) {
    case SizeClass::small: return {{1, 512, 14, 2, 64}, {1, 512, 32, 8, 128}};
    case SizeClass::medium: return {{4, 512, 14, 2, 64}, {1, 2048, 14, 2, 64}};
    case SizeClass::large: return {{4, 2048, 14, 2, 64}, {1, 2048, 32, 8, 128}};
    case SizeClass::very_large: return {{8, 2048, 14, 2, 64}, {4, 2048, 32, 8, 128}};
    default: return {};
  }
}

// Odd sequences (1, 7, 129: tails of a 64-row tile; 1000; 1100: the backward's 128-key blocks at d128, with
// tails), odd head counts (3 / 1, 6 / 2), both head dims, batch 1 to 3.
std::vector<Shape> attention_test_shapes() {
  return {{1, 1, 1, 1, 64},    {2, 7, 3, 1, 64},   {1, 129, 6, 2, 128}, {3, 65, 2, 2, 64},
          {1, 1000, 14, 2, 64}, {2, 200, 4, 1, 128}, {1, 1, 6, 2, 128}, {1, 1100, 4, 2, 128}};
}

// The path the launchers take: tiles of 64 queries x `keys` keys; 16-byte cp.async tiles, or element loads
// for views off 16-byte alignment.
std::string kernel_name(const char* what, int keys, const Bindings& b) {
  bool aligned = true;
  for (const TensorView& v : b.in) aligned = aligned && reinterpret_cast<uintptr_t>(v.data) % 16 == 0;
  for (const TensorView& v : b.out) aligned = aligned && reinterpret_cast<uintptr_t>(v.data) % 16 == 0;
  return std::string("flash-attention ") + what + " (mma.sync m16n8k16, 64x" + std::to_string(keys) + " tiles, d" +
         std::to_string(b.in[0].shape[3]) + (aligned ? ", cp.async)" : ", element loads)");
}

void add_attention(Registry& r) {
  OpDef op = make_op("attention", kTransformer,
                     "causal GQA flash attention, q [b, S, hq, d], k/v [b, S, hkv, d], scale 1/sqrt(d)");
  op.dtypes = {DType::f16, DType::bf16};
  op.io = [](const Shape& s, DType t) {
    attention_shape(s);
    OpIO io;
    io.inputs = {{q_shape(s), t, Init::uniform(-2.0, 2.0)},
                 {kv_shape(s), t, Init::uniform(-2.0, 2.0)},
                 {kv_shape(s), t, Init::uniform(-1.0, 1.0)}};
    io.outputs = {{q_shape(s), t}};
    io.workspace_bytes = lse_bytes(s);  // the lse the kernel writes (the op checks o only)
    return io;
  };
  // Read q, k, v once, write o (lse, 4 bytes a row, is not counted).
  op.bytes = [](const Shape& s, DType t) {
    return double(dtype_size(t)) * double(2 * numel(q_shape(s)) + 2 * numel(kv_shape(s)));
  };
  op.flops = [](const Shape& s, DType) { return forward_flops(s); };
  // Against the fp64 oracle (fed the same rounded inputs) the kernel's errors are: P rounded to the dtype
  // as the operand of P.V (relative u on each weight), which moves o by at most u * sum_j p_j |v_j| <= u
  // (|v| <= 1, the p_j sum to 1 whatever seq is); o rounded once (u |o|); fp32 accumulation and exp2f
  // (~sqrt(seq) * 2^-24, negligible). LibTorch's flash kernel has the same two, so framework vs LibTorch
  // differ by up to twice that: atol 2u, rtol 2u.
  op.tolerance = [](const Shape&, DType t) {
    const double u = unit_roundoff(t);
    return Tolerance{2 * u, 2 * u};
  };
  op.shapes = attention_shapes;
  op.test_shapes = attention_test_shapes;
  op.impls = {framework_impl(
      [](const Bindings& b, cudaStream_t stream) {
        const fw::AttentionShape a = attention_shape(Shape{b.in[0].shape[0], b.in[0].shape[1], b.in[0].shape[2],
                                                           b.in[1].shape[2], b.in[0].shape[3]});
        fw::attention_forward(b.in[0].dtype, a, b.in[0].data, b.in[1].data, b.in[2].data, b.out[0].data,
                              static_cast<float*>(b.workspace), stream);
      },
      [](const Bindings& b) { return kernel_name("forward", fw::attention_forward_block_keys(), b); })};
  r.add(std::move(op));
}

fw::AttentionShape shape_of(const Bindings& b) {
  return attention_shape(
      Shape{b.in[0].shape[0], b.in[0].shape[1], b.in[0].shape[2], b.in[1].shape[2], b.in[0].shape[3]});
}

void sync_device(const char* what) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The backward's launcher: prepare runs the forward once (untimed) into the workspace, o then lse, as a
// training step's forward leaves them; the timed launch runs only fw::attention_backward.
Impl backward_impl() {
  Impl impl;
  impl.kind = ImplKind::framework;
  impl.prepare = [](const Bindings& b) {
    const fw::AttentionShape a = shape_of(b);
    const Shape s{a.batch, a.seq_q, a.heads_q, a.heads_kv, a.head_dim};
    const DType t = b.in[0].dtype;
    char* ws = static_cast<char*>(b.workspace);
    void* o = ws;
    float* lse = reinterpret_cast<float*>(ws + round_up(std::size_t(numel(q_shape(s))) * dtype_size(t)));
    char* scratch = reinterpret_cast<char*>(lse) + lse_bytes(s);
    const std::size_t scratch_bytes = b.workspace_bytes - std::size_t(scratch - ws);
    sync_device("attention_backward prepare");  // the inputs are filled on the harness's stream
    fw::attention_forward(t, a, b.in[0].data, b.in[1].data, b.in[2].data, o, lse, nullptr);
    sync_device("attention_backward prepare: the forward");
    Prepared p;
    p.launch = [b, a, o, lse, scratch, scratch_bytes](cudaStream_t stream) {
      fw::attention_backward(b.in[0].dtype, a, b.in[0].data, b.in[1].data, b.in[2].data, o, b.in[3].data, lse,
                             b.out[0].data, b.out[1].data, b.out[2].data, scratch, scratch_bytes, stream);
    };
    p.kernel = kernel_name("backward", fw::attention_backward_block_keys(a), b);
    return p;
  };
  return impl;
}

void add_attention_backward(Registry& r) {
  OpDef op = make_op("attention_backward", kTransformer,
                     "causal GQA flash attention backward: dq, dk, dv from q, k, v, d_o (forward's o, lse kept)");
  op.dtypes = {DType::f16, DType::bf16};
  op.io = [](const Shape& s, DType t) {
    const fw::AttentionShape a = attention_shape(s);
    OpIO io;
    io.inputs = {{q_shape(s), t, Init::uniform(-2.0, 2.0)},
                 {kv_shape(s), t, Init::uniform(-2.0, 2.0)},
                 {kv_shape(s), t, Init::uniform(-1.0, 1.0)},
                 {q_shape(s), t, Init::uniform(-1.0, 1.0)}};
    io.outputs = {{q_shape(s), t}, {kv_shape(s), t}, {kv_shape(s), t}};
    io.workspace_bytes = round_up(std::size_t(numel(q_shape(s))) * dtype_size(t)) + lse_bytes(s) +
                         fw::attention_backward_workspace_bytes(a);
    return io;
  };
  // Read q, k, v, o, d_o and lse (what the forward saved), write dq, dk, dv. The fp32 dQ accumulator's
  // traffic is the algorithm's, not the problem's, and is not counted.
  op.bytes = [](const Shape& s, DType t) {
    const double q = double(numel(q_shape(s))), kv = double(numel(kv_shape(s)));
    return double(dtype_size(t)) * (4 * q + 4 * kv) + 4.0 * double(s[0] * s[2] * s[1]);
  };
  // Five S x S x d matmuls (S = QK^T recomputed, dV = P^T dO, dP = dO V^T, dK = dS^T Q, dQ = dS K), causal
  // halves: 2.5 x the forward's two.
  op.flops = [](const Shape& s, DType) { return 2.5 * forward_flops(s); };
  // By norm (each of dq, dk, dv): every term of the three gradient products has one operand rounded to
  // the dtype (P for dV, dS for dK and dQ: relative u each), and D = rowsum(dO * O) uses o rounded to
  // the dtype (relative u on each product). Those errors have random signs: summed over the up to seq
  // terms of an output they grow like sqrt(seq), as the output itself does, so the relative L2 error stays
  // near u / sqrt(3) (a uniform rounding error's rms) whatever seq is. 4u bounds it against the oracle
  // (the harness doubles it against LibTorch, whose flash backward makes the same roundings).
  op.tolerance = [](const Shape&, DType t) { return Tolerance{0, 0, 4 * unit_roundoff(t)}; };
  op.shapes = attention_shapes;
  // Not seq 1: there o = v whatever q and k, so dq and dk are identically zero and a relative norm against
  // LibTorch's rounding noise means nothing; seq 2 is the shortest sequence with a softmax to differentiate.
  op.test_shapes = [] {
    return std::vector<Shape>{{1, 2, 1, 1, 64},   {2, 7, 3, 1, 64},   {1, 129, 6, 2, 128}, {3, 65, 2, 2, 64},
                              {1, 1000, 14, 2, 64}, {2, 200, 4, 1, 128}, {1, 2, 6, 2, 128}};
  };
  op.impls = {backward_impl()};
  r.add(std::move(op));
}

}  // namespace

void add_attention_ops(Registry& r) {
  add_attention(r);
  add_attention_backward(r);
}

}  // namespace opbench::bench
