// LibTorch references of the norm category, over the last dim:
//   layer_norm: at::layer_norm(x, {cols}, w, b, eps)            (eps param, default 1e-5)
//   rms_norm:   y = x / sqrt(mean(x^2) + eps) * w               (eps param, default 1e-6)
// at::rms_norm exists from LibTorch 2.4 on; it is what users call, so it is the reference there. On
// older LibTorch (1.13 here and in CI) the same formula is written with at:: primitives in fp32, as
// 2.4's composite does: (x.float() * rsqrt(mean(x.float()^2, -1, keepdim) + eps)).to(dtype) * w.
// No out= variants exist for these, so both return the tensors LibTorch allocated.
#include <ATen/ATen.h>
#include <torch/version.h>

#include <vector>

#include "src/reference/torch_ops.hpp"

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define OPBENCH_HAVE_AT_RMS_NORM 1
#else
#define OPBENCH_HAVE_AT_RMS_NORM 0
#endif

namespace opbench::reference {

static void register_torch_norm(TorchRegistry& r) {
  r.add("layer_norm", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];
    const std::vector<int64_t> normalized{x.size(-1)};
    return std::vector<at::Tensor>{
        at::layer_norm(x, at::IntArrayRef(normalized), a.in[1], a.in[2], a.params.get("eps", 1e-5))};
  });
  r.add("rms_norm", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];
    const at::Tensor& w = a.in[1];
    const double eps = a.params.get("eps", 1e-6);
#if OPBENCH_HAVE_AT_RMS_NORM
    const std::vector<int64_t> normalized{x.size(-1)};
    return std::vector<at::Tensor>{at::rms_norm(x, at::IntArrayRef(normalized), w, eps)};
#else
    // fp32 statistics for fp16/bf16 (fp64 stays fp64 for the oracle).
    const at::ScalarType acc = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    const at::Tensor xf = x.to(acc);
    const std::vector<int64_t> last{-1};
    const at::Tensor inv = at::rsqrt(at::mean(xf * xf, at::IntArrayRef(last), /*keepdim=*/true) + eps);
    return std::vector<at::Tensor>{(xf * inv).to(x.scalar_type()) * w};
#endif
  });
}

OPBENCH_REGISTER_TORCH(register_torch_norm);

}  // namespace opbench::reference
