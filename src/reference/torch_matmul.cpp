// LibTorch references for the matmul category (shapes in bench/matmul.cpp):
//   matmul: at::matmul_out(C, A, B)            (2-D x 2-D: LibTorch's mm, cuBLAS on the GPU)
//   bmm:    at::bmm_out(C, A, B)
//   linear: at::addmm_out(y, b, x, W.t())      (what at::linear does for a 2-D input with a bias, but
//           writing into the harness's output; beta = alpha = 1)
// RunSettings::tf32 (--tf32) is applied to LibTorch's global TF32 switch for cuBLAS before every call
// (TF32 allowed, or true fp32). It only affects fp32 CUDA tensors.
#include <ATen/ATen.h>

#include "src/reference/torch_ops.hpp"

namespace opbench::reference {
namespace {

void apply_tf32(const RunSettings& s) { at::globalContext().setAllowTF32CuBLAS(s.tf32); }

}  // namespace

static void register_torch_matmul(TorchRegistry& r) {
  r.add("matmul", [](const TorchArgs& a) {
    apply_tf32(a.settings);
    at::Tensor out = a.out[0];
    at::matmul_out(out, a.in[0], a.in[1]);
    return a.out;
  });
  r.add("bmm", [](const TorchArgs& a) {
    apply_tf32(a.settings);
    at::Tensor out = a.out[0];
    at::bmm_out(out, a.in[0], a.in[1]);
    return a.out;
  });
  r.add("linear", [](const TorchArgs& a) {
    apply_tf32(a.settings);
    at::Tensor out = a.out[0];
    at::addmm_out(out, a.in[2], a.in[0], a.in[1].t());
    return a.out;
  });
}

OPBENCH_REGISTER_TORCH(register_torch_matmul);

}  // namespace opbench::reference
