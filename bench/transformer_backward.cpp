// The decoder's backward kernels (transformer category): rope_backward, silu_gate_backward (kernels/
// transformer/backward.cu), rms_norm_backward (kernels/norm/rms_norm_backward.cu) and
// cross_entropy_backward (kernels/loss/cross_entropy_backward.cu). Shapes and inputs follow the forwards
// (bench/transformer.cpp, bench/norm.cpp, bench/loss.cpp); each op's gradient input is uniform in [-1, 1]
// unless said otherwise. All four are memory-bound: bytes are the operands read and written once.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "bench/transformer_ops.hpp"
#include "kernels/loss/loss.hpp"
#include "kernels/norm/norm.hpp"
#include "kernels/transformer/transformer.hpp"

namespace opbench::bench {

namespace {

// rope_backward: dy [tokens, heads, head_dim] -> dx, the forward's positions and theta.
void add_rope_backward(Registry& r) {
  OpDef op = make_op("rope_backward", kTransformer,
                     "rotary embedding backward (transposed rotation), [tokens, heads, head_dim], theta 1e6");
  op.io = [](const Shape& s, DType t) { return rope_io("rope_backward", s, t); };
  op.bytes = [](const Shape& s, DType t) { return 2.0 * double(numel(s)) * dtype_size(t); };
  op.flops = [](const Shape& s, DType) { return 2.0 * double(numel(s)); };  // 2 mul + 2 fma per pair
  // As the forward's: each output is dy0 cos + dy1 sin with |dy| <= 2. LibTorch (autograd of HF's
  // x * cos + rotate_half(x) * sin) rounds dy * cos, dy * sin and their sum to the dtype with cos and sin
  // rounded to it: 4 roundings of values up to 2 (8u absolute), against one of |dx| <= 2.9 here: atol
  // 10u, rtol 2u. fp32: both use the same fp32 angle; sincos ~1 ulp.
  op.tolerance = [](const Shape&, DType t) {
    const double u = unit_roundoff(t);
    return t == DType::f32 ? Tolerance{1e-5, 1e-5} : Tolerance{10 * u, 2 * u};
  };
  op.shapes = rope_shapes;
  op.test_shapes = [] {
    return std::vector<Shape>{{1, 1, 2}, {7, 3, 64}, {129, 14, 64}, {1000, 2, 128}, {3, 5, 6}, {7, 5, 16}};
  };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Shape& s = b.in[0].shape;
    fw::rope_backward(b.in[0].dtype, b.in[0].data, b.out[0].data, s[0], s[1], s[2], int64_t(b.params.get("seq_len")),
                      0, b.params.get("theta"), stream);
  })};
  r.add(std::move(op));
}

// silu_gate_backward: shape {rows, cols}; dout [rows, cols] and the forward's gate_up [rows, 2 * cols] ->
// d_gate_up [rows, 2 * cols] (d_gate in the first half of each row, d_up in the second).
void add_silu_gate_backward(Registry& r) {
  OpDef op = make_op("silu_gate_backward", kTransformer,
                     "SwiGLU backward: dout [rows, cols], gate_up [rows, 2*cols] -> d_gate_up [rows, 2*cols]");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{Shape{rc.rows, rc.cols}, t, Init::uniform(-1.0, 1.0)},
                 {Shape{rc.rows, 2 * rc.cols}, t, Init::uniform(-4.0, 4.0)}};
    io.outputs = {{Shape{rc.rows, 2 * rc.cols}, t}};
    return io;
  };
  // Read dout, gate, up; write d_gate, d_up.
  op.bytes = [](const Shape& s, DType t) { return 5.0 * double(numel(s)) * dtype_size(t); };
  // exp, add, rcp, then g*s, dout*(g*s), 1-s, fma, up*s, *dout, * : ~10 per element.
  op.flops = [](const Shape& s, DType) { return 10.0 * double(numel(s)); };
  // LibTorch (autograd's ops: mul for d_up = dout * silu(gate), silu_backward(dout * up, gate) for
  // d_gate) rounds two intermediate products to the dtype, then the result: each output carries up to 2
  // roundings (u relative) against our one (u/2): rtol 3u, as the forward's. Both compute
  // 1 + g (1 - s) in fp32 from the same inputs, so the zero of that factor (g ~ -1.28) costs only fp32
  // noise: ~1e-7 * |dout up| <= 4e-7 absolute, below atol (4u * 1e-2 in fp16/bf16, 1e-6 in fp32).
  op.tolerance = [](const Shape&, DType t) {
    const double u = unit_roundoff(t);
    return t == DType::f32 ? Tolerance{1e-6, 1e-5} : Tolerance{4 * u * 1e-2, 3 * u};
  };
  op.shapes = silu_gate_shapes;
  op.test_shapes = [] { return std::vector<Shape>{{1, 1}, {7, 3}, {129, 4864}, {1000, 9}, {3, 1001}, {7, 64}}; };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    const int64_t half_bytes = rc.cols * int64_t(dtype_size(b.in[0].dtype));
    const char* gate = static_cast<const char*>(b.in[1].data);
    char* d_gate = static_cast<char*>(b.out[0].data);
    fw::silu_gate_backward(b.in[0].dtype, b.in[0].data, gate, gate + half_bytes, 2 * rc.cols, d_gate,
                           d_gate + half_bytes, 2 * rc.cols, rc.rows, rc.cols, stream);
  })};
  r.add(std::move(op));
}

// rms_norm_backward: shape {rows, cols} as rms_norm's; inputs x (U(-2, 2)), w (U(0.5, 1.5)), dy; outputs
// dx [rows, cols] and dw [cols]; eps 1e-6.
void add_rms_norm_backward(Registry& r) {
  OpDef op = make_op("rms_norm_backward", kTransformer,
                     "rms_norm backward: x, w, dy -> dx, dw (dw summed over rows, deterministic), eps 1e-6");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-2.0, 2.0)}, {Shape{rc.cols}, t, Init::uniform(0.5, 1.5)},
                 {s, t, Init::uniform(-1.0, 1.0)}};
    io.outputs = {{s, t}, {Shape{rc.cols}, t}};
    io.params.set("eps", 1e-6);
    io.workspace_bytes = fw::rms_norm_backward_workspace_bytes(rc.rows, rc.cols);
    return io;
  };
  // Read x and dy, write dx; read w, write dw.
  op.bytes = [](const Shape& s, DType t) {
    return (3.0 * double(numel(s)) + 2.0 * double(as_rows(s).cols)) * dtype_size(t);
  };
  // dy*w, two fma sums, dx (mul, fma), dw (mul, fma), the r*dy product: ~8 per element.
  op.flops = [](const Shape& s, DType) { return 8.0 * double(numel(s)); };
  // dx (output 0): both implementations compute in fp32 from the same inputs and round each output once:
  //  u/2 relative each (rtol u); near the zeros of dy*w - x*r^2*c the fp32 cancellation leaves a few fp32
  //  ulps of terms <= ~4 (r <= ~1.2 for x ~ U(-2, 2)): ~1e-6 absolute -> atol 1e-5.
  op.tolerance = [](const Shape&, DType t) {
    return t == DType::f32 ? Tolerance{1e-5, 1e-5} : Tolerance{1e-5, unit_roundoff(t)};
  };
  // dw (output 1): a sum over the R rows of terms dy x r (dy ~ U(-1, 1), x r of rms 1: terms of rms 0.58),
  //  accumulated in fp32 in different orders (per-block partials here, LibTorch's reduction tree there).
  //  Each addition rounds at the scale of its partial sum (~0.5 sqrt(k) after k random-signed terms) and the
  //  R rounding errors add in quadrature: ~2^-24 * 0.5 * R; atol 2^-24 * R (twice that). In fp16/bf16 an
  //  implementation may also round each term's x r to the dtype first (the normalized input a composite's
  //  forward saves) and the product dy x r too: up to two relative errors of u/2 per term, uniform (standard
  //  deviation u/2/sqrt(3) each), random across terms, so the sum's error has standard deviation up to
  //  sqrt(2 R) 0.58 u / (2 sqrt(3)) = 0.24 u sqrt(R). Over hundreds of columns a 4-sigma bound is crossed by
  //  chance: the bound is five of those, 1.2 u sqrt(R). (H100, commit e95a8bd: LibTorch 2.11's bf16 dw at
  //  512x512x512 was off by 2.68 at one column of 512 (-282 against -284.68; its output rounding alone is
  //  up to 1.1 there), beyond the 4-sigma one-rounding bound of 2.46 this replaces.)
  op.output_tolerance = [](const Shape& s, DType t, std::size_t output) {
    if (output == 0) return t == DType::f32 ? Tolerance{1e-5, 1e-5} : Tolerance{1e-5, unit_roundoff(t)};
    const double rows = double(as_rows(s).rows);
    const double atol = 1e-5 + 0x1p-24 * rows + (t == DType::f32 ? 0.0 : 1.2 * unit_roundoff(t) * std::sqrt(rows));
    return t == DType::f32 ? Tolerance{atol, 1e-5} : Tolerance{atol, unit_roundoff(t)};
  };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
  // 1, 7, 129, 1000 rows; odd cols (scalar path), 896 (Qwen2), 4096 and 8192 (two vectors per thread in
  // fp32/bf16), and rows too long for registers (the looped path).
  op.test_shapes = [] {
    return std::vector<Shape>{{1, 1},    {7, 3},      {129, 896}, {1000, 1001}, {1000, 64},
                              {7, 8192}, {129, 4096}, {3, 20000}, {1, 65537},   {16, 5003}};
  };
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    fw::rms_norm_backward(b.in[0].dtype, b.in[0].data, b.in[1].data, b.in[2].data, b.out[0].data, b.out[1].data,
                          rc.rows, rc.cols, float(b.params.get("eps")), b.workspace, b.workspace_bytes, stream);
  })};
  r.add(std::move(op));
}

// cross_entropy_backward: shape {rows, vocab}; logits U(-4, 4) and int64 targets as cross_entropy's ->
// dlogits [rows, vocab]; grad_scale 1 (the mean loss's own gradient).
void add_cross_entropy_backward(Registry& r) {
  OpDef op = make_op("cross_entropy_backward", kTransformer,
                     "cross_entropy backward of the mean loss: logits [N, V], int64 targets -> dlogits [N, V]");
  op.io = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    io.inputs = {{s, t, Init::uniform(-4.0, 4.0)}, {Shape{rc.rows}, DType::i64, Init::integers(0, rc.cols)}};
    io.outputs = {{s, t}};
    io.params.set("grad_scale", 1.0);
    return io;
  };
  // Read the logits and the targets, write dlogits (the second pass's re-read is the kernel's cost).
  op.bytes = [](const Shape& s, DType t) {
    return 2.0 * double(numel(s)) * dtype_size(t) + 8.0 * double(as_rows(s).rows);
  };
  op.flops = [](const Shape& s, DType) { return 7.0 * double(numel(s)); };  // max, fma, ex2, add; fma, ex2, mul
  // Elements are g = scale * (p - [c == t]), scale = 1/rows. LibTorch rounds p (softmax) to the dtype,
  // then p - 1 at the target, then the product with the scale: 3 roundings (rtol 2u); ours one, from fp32
  // (ex2.approx: ~2^-22, plus the exponent's rounding, 2^-24 |m log2 e| with |m| <= 4: ~2^-21 in all).
  // At the target p - 1 cancels: p's rounding (u/2 p, LibTorch's) stays absolute, up to u/2 * p_max *
  // scale, where p_max = 1 / (1 + (V - 1) e^-8) bounds p for logits in [-4, 4]. fp16 adds its subnormal
  // spacing (2^-24): scale * p of a large vocabulary is below fp16's normal range.
  op.tolerance = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    const double scale = 1.0 / double(rc.rows);
    const double p_max = 1.0 / (1.0 + double(rc.cols - 1) * std::exp(-8.0));
    const double u = t == DType::f32 ? 0x1p-21 : unit_roundoff(t);
    const double atol = u * p_max * scale + (t == DType::f16 ? 0x1p-24 : 0.0);
    return Tolerance{atol, t == DType::f32 ? 1e-5 : 2 * u};
  };
  op.shapes = [](SizeClass c) {
    static const std::vector<Shape> extra = [] {
      std::vector<Shape> v = {{4096, 32000}, {16384, 32000}, {512, 151936}, {1024, 151936}, {2048, 151936},
                              {4096, 151936}};
      for (const Shape& t : transformer_shapes()) v.push_back(t);
      return v;
    }();
    return rowwise_shapes(c, extra);
  };
  op.test_shapes = [] {
    return std::vector<Shape>{{1, 1}, {7, 3}, {129, 1000}, {1000, 129}, {16, 5003}, {3, 151936}, {1, 65537}};
  };
  op.rows_over_vocab = true;
  op.impls = {framework_impl([](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    fw::cross_entropy_backward(b.in[0].dtype, b.in[0].data, b.in[1].as<const int64_t>(), b.out[0].data, rc.rows,
                               rc.cols, float(b.params.get("grad_scale")), stream);
  })};
  r.add(std::move(op));
}

}  // namespace

void add_decoder_backward_ops(Registry& r) {
  add_rope_backward(r);
  add_silu_gate_backward(r);
  add_rms_norm_backward(r);
  add_cross_entropy_backward(r);
}

}  // namespace opbench::bench
