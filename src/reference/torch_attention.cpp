// LibTorch references of causal grouped-query attention (bench/attention.cpp), as a PyTorch user writes
// them. q [b, S, hq, d], k and v [b, S, hkv, d]; scale 1/sqrt(d).
//   attention:          at::scaled_dot_product_attention on the [b, heads, S, d] views (transpose(1, 2), no
//                       copy), is_causal, enable_gqa (LibTorch >= 2.5; on CUDA in fp16/bf16 with head_dim 64
//                       or 128 and no mask it dispatches to its flash-attention kernel), transposed back
//                       and copied into the harness's output.
//   attention_backward: the same forward on leaves that require grad, then torch::autograd::grad of o
//                       with d_o as the output gradient, as loss.backward() after the forward. The forward
//                       graph is built at the first call and kept (TorchArgs::state, retain_graph): the
//                       later, timed calls run only the backward, as the framework's launch does.
// The fp64 oracle (and LibTorch before 2.5, e.g. the CPU LibTorch the unit tests use) takes the math
// written out: k and v heads repeated (repeat_interleave, query head h reads kv head h / group), scores
// with at::matmul, the bottom-right causal mask (query i sees keys j <= i + S_kv - S_q), softmax,
// at::matmul with v. Written independently of SDPA, the oracle also checks LibTorch's flash kernel.
#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "src/reference/torch_ops.hpp"

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#define OPBENCH_TORCH_SDPA_GQA 1
#else
#define OPBENCH_TORCH_SDPA_GQA 0
#endif

namespace opbench::reference {

namespace {

// Softmax attention written with matmuls, on [b, S, heads, d] tensors; returns o [b, S_q, hq, d].
at::Tensor attention_math(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double scale) {
  const int64_t group = q.size(2) / k.size(2), sq = q.size(1), skv = k.size(1);
  const at::Tensor qt = q.transpose(1, 2);                                // [b, hq, S_q, d]
  const at::Tensor kt = k.transpose(1, 2).repeat_interleave(group, 1);    // [b, hq, S_kv, d]
  const at::Tensor vt = v.transpose(1, 2).repeat_interleave(group, 1);
  at::Tensor s = at::matmul(qt, kt.transpose(-2, -1)) * scale;           // [b, hq, S_q, S_kv]
  const at::Tensor hidden = at::ones({sq, skv}, q.options().dtype(at::kBool)).triu(skv - sq + 1);
  s = s.masked_fill(hidden, -std::numeric_limits<double>::infinity());
  return at::matmul(at::softmax(s, -1), vt).transpose(1, 2);
}

// A user's q, k, v come from the caching allocator, 16-byte aligned; the GPU tests also hand views shifted
// by one element, which LibTorch's fused attention kernels (cuDNN's among them) read with 16-byte loads
// without checking: such a view is copied first (never the case when timed).
at::Tensor aligned(const at::Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 ? t : t.clone();
}

at::Tensor attention(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in) {
  const at::Tensor q = aligned(q_in), k = aligned(k_in), v = aligned(v_in);
  const double scale = 1.0 / std::sqrt(double(q.size(3)));
#if OPBENCH_TORCH_SDPA_GQA
  if (q.scalar_type() != at::kDouble)
    return at::scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), {}, 0.0,
                                            /*is_causal=*/true, scale, /*enable_gqa=*/true)
        .transpose(1, 2);
#endif
  return attention_math(q, k, v, scale);
}

// The forward graph of attention_backward, kept across the calls of one prepared problem.
struct ForwardGraph {
  std::vector<at::Tensor> leaves;  // q, k, v: detached views of the inputs that require grad
  at::Tensor o;
};

at::Tensor leaf(const at::Tensor& t) { return t.detach().requires_grad_(true); }

}  // namespace

static void register_torch_attention(TorchRegistry& r) {
  r.add("attention", [](const TorchArgs& a) {
    a.out[0].copy_(attention(a.in[0], a.in[1], a.in[2]));
    return a.out;
  });
  r.add("attention_backward", [](const TorchArgs& a) {
    if (!a.state) {
      auto g = std::make_shared<ForwardGraph>();
      g->leaves = {leaf(a.in[0]), leaf(a.in[1]), leaf(a.in[2])};
      g->o = attention(g->leaves[0], g->leaves[1], g->leaves[2]);
      a.state = g;
    }
    const ForwardGraph& g = *std::static_pointer_cast<ForwardGraph>(a.state);
    const std::vector<at::Tensor> outputs = {g.o}, grad_outputs = {aligned(a.in[3])};
    return torch::autograd::grad(outputs, g.leaves, grad_outputs, /*retain_graph=*/true);
  });
}

OPBENCH_REGISTER_TORCH(register_torch_attention);

}  // namespace opbench::reference
