// Norm ops over the last dim: layer_norm (weight, bias, eps = 1e-5) and rms_norm (weight, eps = 1e-6).
// Kernels: kernels/norm/. Standard size-class shapes plus the transformer shapes (rowwise_shapes).
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/norm/norm.hpp"

namespace opbench::bench {

const Category kNorm{"norm"};

namespace {

// fp32 statistics in both implementations; fp16/bf16 differ by the output's rounding (one ulp: 2^-10,
// 2^-7 relative) near |y| ~ 1, plus absolute slack for outputs near zero. rms_norm's LibTorch path
// rounds x * rstd to the dtype before multiplying by w (two roundings), hence its larger rtol.
Tolerance norm_tolerance(DType t, bool rms) {
  switch (t) {
    case DType::f16: return {2e-3, rms ? 3e-3 : 2e-3};
    case DType::bf16: return {1.6e-2, rms ? 2e-2 : 1.6e-2};
    default: return {1e-5, 1e-5};
  }
}

void add_norm(Registry& r, bool rms) {
  const double eps = rms ? 1e-6 : 1e-5;
  OpDef op = make_op(rms ? "rms_norm" : "layer_norm", kNorm,
                     rms ? "y = x / sqrt(mean(x^2) + eps) * w over the last dim (eps 1e-6)"
                         : "y = (x - mean) / sqrt(var + eps) * w + b over the last dim (eps 1e-5)");
  op.io = [rms, eps](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    OpIO io;
    // layer_norm: inputs with a non-zero mean, so the mean subtraction is exercised.
    io.inputs = {{s, t, rms ? Init::uniform(-2.0, 2.0) : Init::uniform(-1.0, 3.0)},
                 {Shape{rc.cols}, t, Init::uniform(0.5, 1.5)}};
    if (!rms) io.inputs.push_back({Shape{rc.cols}, t, Init::uniform(-0.5, 0.5)});
    io.outputs = {{s, t}};
    io.params.set("eps", eps);
    io.workspace_bytes = fw::norm_workspace_bytes(rc.rows, rc.cols, t);
    return io;
  };
  // Read x, write y, read w (and b) once: 2*numel*s + cols*s (+ cols*s).
  op.bytes = [rms](const Shape& s, DType t) {
    const double cols = double(as_rows(s).cols);
    return (2.0 * double(numel(s)) + (rms ? 1.0 : 2.0) * cols) * dtype_size(t);
  };
  // layer_norm: sum, (x-k)^2 fma, sub, mul, fma ~ 6 per element; rms_norm: fma, 2 mul ~ 3.
  op.flops = [rms](const Shape& s, DType) { return (rms ? 3.0 : 6.0) * double(numel(s)); };
  op.tolerance = [rms](const Shape&, DType t) { return norm_tolerance(t, rms); };
  op.shapes = [](SizeClass c) { return rowwise_shapes(c, transformer_shapes()); };
  op.test_shapes = row_apply_test_shapes;
  op.impls = {framework_impl([rms](const Bindings& b, cudaStream_t stream) {
    const Rows rc = as_rows(b.in[0].shape);
    const float e = float(b.params.get("eps"));
    if (rms)
      fw::rms_norm_forward(b.in[0].dtype, b.in[0].data, b.in[1].data, b.out[0].data, rc.rows, rc.cols, e,
                           b.workspace, b.workspace_bytes, stream);
    else
      fw::layer_norm_forward(b.in[0].dtype, b.in[0].data, b.in[1].data, b.in[2].data, b.out[0].data, rc.rows,
                             rc.cols, e, b.workspace, b.workspace_bytes, stream);
  })};
  op.tags = {kSweepTag};  // the transformer sweep runs both norms
  r.add(std::move(op));
}

}  // namespace

namespace {

void register_norm(Registry& r) {
  add_norm(r, false);
  add_norm(r, true);
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kNorm, 40, "layer_norm and rms_norm over the last dim", {"normalization"}, register_norm});

}  // namespace opbench::bench
