// cuDNN's column for the layout category: cudnnTransformTensor (y = alpha x + beta y, x and y over the
// same dims with their own strides, at most 8 dims) covers the layout ops that are one strided copy:
//   copy          [n] packed → [n] packed
//   transpose     dims [batch, M, N], source strides (MN, N, 1), destination strides (MN, 1, M)
//   permute_0213  dims [B, S, H, D], source strides (SHD, HD, D, 1), destination strides (HSD, D, SD, 1)
// cat, slice, expand and gather have no single cuDNN call and get no cuDNN column. Descriptors are built
// once in prepare (sizes over 2^31-1 are NotSupported: cuDNN's dims and strides are int); the launch is
// the one call, on the shared handle's stream (the legacy default stream, as the other cuDNN columns).
// alpha = 1, beta = 0: finite values come through bit-exact (checked on H100 for fp32/fp16/bf16); NaN
// payloads are canonicalized by the scaling (the harness's inputs are finite).
#include <memory>
#include <vector>

#include "src/reference/cudnn_common.hpp"
#include "src/reference/vendor_ops.hpp"

namespace opbench::reference {
namespace {

struct TransformState {
  std::unique_ptr<TensorDesc> x, y;
};

// y (over the same dims as x) laid out with `dst_strides`.
Prepared transform(const Bindings& b, const std::vector<int64_t>& dims, const std::vector<int64_t>& src_strides,
                   const std::vector<int64_t>& dst_strides) {
  const DType t = b.in[0].dtype;
  auto st = std::make_shared<TransformState>();
  st->x = std::make_unique<TensorDesc>(t, dims, src_strides);
  st->y = std::make_unique<TensorDesc>(t, dims, dst_strides);
  const void* x = b.in[0].data;
  void* y = b.out[0].data;
  const bool dbl = t == DType::f64;  // alpha/beta are double for double data, float otherwise
  Prepared p;
  p.launch = [st, x, y, dbl](cudaStream_t s) {
    const float one_f = 1.f, zero_f = 0.f;
    const double one_d = 1.0, zero_d = 0.0;
    const void* one = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
    const void* zero = dbl ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
    OPBENCH_CUDNN_CHECK(cudnnTransformTensor(cudnn_handle(s), one, st->x->get(), x, zero, st->y->get(), y));
  };
  return p;
}

Prepared copy(const Bindings& b) {
  const int64_t n = b.in[0].numel();
  return transform(b, {n}, {1}, {1});
}

Prepared transpose(const Bindings& b) {
  const Shape& s = b.in[0].shape;  // [.., M, N], leading dims folded into one batch dim
  if (s.size() < 2) throw NotSupported("transpose needs at least 2 dims");
  const int64_t M = s[s.size() - 2], N = s[s.size() - 1];
  const int64_t batch = M * N == 0 ? 0 : b.in[0].numel() / (M * N);
  return transform(b, {batch, M, N}, {M * N, N, 1}, {M * N, 1, M});
}

Prepared permute_0213(const Bindings& b) {
  const Shape& s = b.in[0].shape;
  if (s.size() != 4) throw NotSupported("permute_0213 needs a 4-D input");
  const int64_t B = s[0], S = s[1], H = s[2], D = s[3];
  return transform(b, {B, S, H, D}, {S * H * D, H * D, D, 1}, {H * S * D, D, S * D, 1});
}

}  // namespace

static void register_cudnn_layout(VendorRegistry& r) {
  r.add("copy", copy);
  r.add("transpose", transpose);
  r.add("permute_0213", permute_0213);
}

OPBENCH_REGISTER_VENDOR(cudnn, register_cudnn_layout);

}  // namespace opbench::reference
