// LibTorch references of the layout category: what a user writes.
//   copy          x.clone()
//   transpose     x.transpose(-1, -2).contiguous()
//   permute_0213  x.permute({0, 2, 1, 3}).contiguous()
//   cat_dim0/last at::cat_out(out, {a, b}, dim)                (out= variant)
//   slice         x.narrow(-1, start, length).contiguous()
//   gather        at::index_select_out(out, table, 0, idx)     (out= variant)
//   expand        x.expand({.., N}).contiguous()
// The materialized views return new tensors (the harness copies them into its outputs after the timed
// region), built with view.clone(at::MemoryFormat::Contiguous): that is exactly what .contiguous() runs
// for a non-contiguous view (empty_like + copy_ into fresh memory), and unlike .contiguous() it also
// materializes the degenerate views that happen to be contiguous already (a transpose of [1, N], a
// narrow of a 1-column tensor), for which .contiguous() would return the input itself and time nothing.
#include "src/reference/torch_ops.hpp"

namespace opbench::reference {
namespace {

at::Tensor materialize(const at::Tensor& view) { return view.clone(at::MemoryFormat::Contiguous); }

std::vector<at::Tensor> one(at::Tensor t) { return std::vector<at::Tensor>{std::move(t)}; }

std::vector<at::Tensor> cat(const TorchArgs& a, int64_t dim) {
  const std::vector<at::Tensor> parts = {a.in[0], a.in[1]};
  return one(at::cat_out(a.out[0], parts, dim));
}

}  // namespace

static void register_torch_layout(TorchRegistry& r) {
  r.add("copy", [](const TorchArgs& a) { return one(a.in[0].clone()); });
  r.add("transpose", [](const TorchArgs& a) { return one(materialize(a.in[0].transpose(-1, -2))); });
  r.add("permute_0213", [](const TorchArgs& a) { return one(materialize(a.in[0].permute({0, 2, 1, 3}))); });
  r.add("cat_dim0", [](const TorchArgs& a) { return cat(a, 0); });
  r.add("cat_last", [](const TorchArgs& a) { return cat(a, -1); });
  r.add("slice", [](const TorchArgs& a) {
    const auto start = int64_t(a.params.get("start")), length = int64_t(a.params.get("length"));
    return one(materialize(a.in[0].narrow(-1, start, length)));
  });
  // table [V, D], idx [N] int64 → [N, D]
  r.add("gather", [](const TorchArgs& a) { return one(at::index_select_out(a.out[0], a.in[0], 0, a.in[1])); });
  // x [1, N] → the output's shape ([.., N]); without outputs (never in the harness), [1, N].
  r.add("expand", [](const TorchArgs& a) {
    const std::vector<int64_t> size = a.out.empty() ? a.in[0].sizes().vec() : a.out[0].sizes().vec();
    return one(materialize(a.in[0].expand(size)));
  });
}

OPBENCH_REGISTER_TORCH(register_torch_layout);

}  // namespace opbench::reference
