#include "bench/unary.hpp"

namespace opbench::bench {

OpDef& add_unary(Registry& r, Category c, const std::string& name, fw::UnaryOp op, Init init, double scalar,
               const std::string& what) {
  OpDef d = make_op(name, c, what);
  d.io = [=](const Shape& s, DType t) { return OpIO{{{s, t, init}}, {{s, t}}, {{"scalar", scalar}}, 0}; };
  d.bytes = [](const Shape& s, DType t) { return 2.0 * numel(s) * dtype_size(t); };
  d.flops = [](const Shape& s, DType) { return double(numel(s)); };
  d.impls = {framework_impl([op](const Bindings& b, cudaStream_t st) {
    fw::unary(op, b.out[0].dtype, b.in[0].data, b.out[0].data, b.out[0].numel(),
              float(b.params.get("scalar")), st);
  })};
  return r.add(std::move(d));
}

}  // namespace opbench::bench
