// LibTorch references of the loss category. Both return a 1-element tensor of shape {1} (LibTorch's
// mean-reduced losses are 0-dim; the reshape is a view).
//   mse_loss:      at::mse_loss(pred, target)                       (reduction = mean)
//   cross_entropy: at::cross_entropy_loss(logits[N, V], target[N])  (mean, no weight, no smoothing)
// The logits are read as [N, V] = [rows, last dim] of the harness's shape.
#include <ATen/ATen.h>

#include <vector>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference {

static void register_torch_loss(TorchRegistry& r) {
  r.add("mse_loss", [](const TorchArgs& a) {
    return std::vector<at::Tensor>{at::mse_loss(a.in[0], a.in[1]).reshape({1})};
  });
  r.add("cross_entropy", [](const TorchArgs& a) {
    const at::Tensor& x = a.in[0];
    const at::Tensor logits = x.dim() == 1 ? x.reshape({1, -1}) : x.reshape({-1, x.size(-1)});
    return std::vector<at::Tensor>{at::cross_entropy_loss(logits, a.in[1].reshape({-1})).reshape({1})};
  });
}

OPBENCH_REGISTER_TORCH(register_torch_loss);

}  // namespace opbench::reference
