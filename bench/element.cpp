// The element category: binary, scalar, broadcast and unary math ops, all on the framework's
// vectorized element-wise engine (kernels/elementwise/).
//
// Bytes (fewest a perfect kernel moves, real dtype size s, n output elements):
//   binary a ∘ b:        3 n s        (read a, read b, write y)
//   broadcast [M,N]∘[N]: (2 n + N) s  ([M,1]: (2 n + M) s)
//   unary / scalar:      2 n s
// FLOPs: n (one operation per output element; transcendentals counted as one).
#include "bench/unary.hpp"

namespace opbench::bench {

const Category kElement{"element"};
namespace {

// Inputs that keep every op finite and away from its singularities (log, sqrt, div, pow).
const Init kSigned = Init::uniform(-1, 1);
const Init kPositive = Init::uniform(0.25, 2);

void add_binary(Registry& r, const std::string& name, fw::BinaryOp op, Init a_init, Init b_init,
                const std::string& what) {
  OpDef d = make_op(name, kElement, what);
  d.io = [=](const Shape& s, DType t) {
    return OpIO{{{s, t, a_init}, {s, t, b_init}}, {{s, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return 3.0 * numel(s) * dtype_size(t); };
  d.flops = [](const Shape& s, DType) { return double(numel(s)); };
  d.impls = {framework_impl([op](const Bindings& b, cudaStream_t st) {
    const Rows rc = as_rows(b.out[0].shape);
    fw::binary(op, b.out[0].dtype, b.in[0].data, b.in[1].data, b.out[0].data, rc.rows, rc.cols,
               fw::Broadcast::none, st);
  })};
  r.add(std::move(d));
}

// [M, N] + [N] (row) or [M, N] + [M, 1] (col), leading dims of a higher-rank shape folded into M.
void add_broadcast(Registry& r, const std::string& name, fw::Broadcast bc, const std::string& what) {
  OpDef d = make_op(name, kElement, what);
  d.tags = {"broadcast"};  // --category broadcast (the Genesis scripts' name for these)
  d.twin_of = "add";       // the same sum over full operands
  d.io = [bc](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    const Shape b_shape = bc == fw::Broadcast::row ? Shape{rc.cols} : Shape{rc.rows, 1};
    return OpIO{{{s, t, kSigned}, {b_shape, t, kSigned}}, {{s, t}}, {}, 0};
  };
  d.bytes = [bc](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    return (2.0 * numel(s) + double(bc == fw::Broadcast::row ? rc.cols : rc.rows)) * dtype_size(t);
  };
  d.flops = [](const Shape& s, DType) { return double(numel(s)); };
  d.impls = {framework_impl([bc](const Bindings& b, cudaStream_t st) {
    const Rows rc = as_rows(b.out[0].shape);
    fw::binary(fw::BinaryOp::add, b.out[0].dtype, b.in[0].data, b.in[1].data, b.out[0].data, rc.rows,
               rc.cols, bc, st);
  })};
  r.add(std::move(d));
}

}  // namespace

namespace {

void register_element(Registry& r) {
  using fw::BinaryOp;
  using fw::UnaryOp;
  add_binary(r, "add", BinaryOp::add, kSigned, kSigned, "a + b");
  add_binary(r, "sub", BinaryOp::sub, kSigned, kSigned, "a - b");
  add_binary(r, "mul", BinaryOp::mul, kSigned, kSigned, "a * b");
  add_binary(r, "div", BinaryOp::div, kSigned, kPositive, "a / b");
  add_binary(r, "maximum", BinaryOp::maximum, kSigned, kSigned, "torch.maximum(a, b)");
  add_binary(r, "pow", BinaryOp::pow, kPositive, kSigned, "a ** b");

  const Category e = kElement;
  add_unary(r, e, "add_scalar", UnaryOp::add_scalar, kSigned, 2.5, "x + 2.5");
  add_unary(r, e, "mul_scalar", UnaryOp::mul_scalar, kSigned, 1.75, "x * 1.75");
  add_unary(r, e, "pow_scalar", UnaryOp::pow_scalar, kPositive, 1.5, "x ** 1.5");

  add_broadcast(r, "add_bcast_row", fw::Broadcast::row, "[M, N] + [N]");
  add_broadcast(r, "add_bcast_col", fw::Broadcast::col, "[M, N] + [M, 1]");

  add_unary(r, e, "neg", UnaryOp::neg, kSigned, 0, "-x");
  add_unary(r, e, "abs", UnaryOp::abs, kSigned, 0, "|x|");
  add_unary(r, e, "exp", UnaryOp::exp, kSigned, 0, "exp(x)");
  add_unary(r, e, "log", UnaryOp::log, kPositive, 0, "log(x)");
  add_unary(r, e, "sqrt", UnaryOp::sqrt, kPositive, 0, "sqrt(x)");
  add_unary(r, e, "rsqrt", UnaryOp::rsqrt, kPositive, 0, "1 / sqrt(x)");
  add_unary(r, e, "sin", UnaryOp::sin, Init::uniform(-3, 3), 0, "sin(x)");
  add_unary(r, e, "cos", UnaryOp::cos, Init::uniform(-3, 3), 0, "cos(x)");
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kElement, 10, "binary, scalar, broadcast and unary math ops on the element-wise engine", {}, register_element});

}  // namespace opbench::bench
