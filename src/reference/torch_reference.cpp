// LibTorch as the reference: the registry of per-op references, wrapping harness memory as tensors,
// the fp64 oracle, and the allocator and TF32 settings.
#include <ATen/ATen.h>
#include <torch/version.h>

#if OPBENCH_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>

#include "src/reference/reference.hpp"
#include "src/reference/torch_ops.hpp"

namespace opbench::reference {

void TorchRegistry::add(const std::string& op, TorchFn fn) {
  if (!fns_.emplace(op, std::move(fn)).second) throw std::logic_error("LibTorch reference '" + op + "' registered twice");
}

const TorchFn* TorchRegistry::find(const std::string& op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

std::vector<std::string> TorchRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& kv : fns_) v.push_back(kv.first);
  return v;
}

static std::vector<void (*)(TorchRegistry&)>& torch_groups() {
  static std::vector<void (*)(TorchRegistry&)> g;
  return g;
}

bool add_torch_group(void (*fn)(TorchRegistry&)) {
  torch_groups().push_back(fn);
  return true;
}

const TorchRegistry& torch_registry() {
  static const TorchRegistry reg = [] {
    TorchRegistry r;
    for (auto fn : torch_groups()) fn(r);
    return r;
  }();
  return reg;
}

at::ScalarType to_scalar_type(DType t) {
  switch (t) {
    case DType::f32: return at::kFloat;
    case DType::f16: return at::kHalf;
    case DType::bf16: return at::kBFloat16;
    case DType::f64: return at::kDouble;
    case DType::i64: return at::kLong;
  }
  throw std::invalid_argument("unknown dtype");
}

at::Tensor wrap(const TensorView& v) {
  return at::from_blob(v.data, at::IntArrayRef(v.shape),
                       at::TensorOptions().dtype(to_scalar_type(v.dtype)).device(at::kCUDA));
}

std::string torch_version() { return TORCH_VERSION; }

bool torch_has_cuda() {
#if OPBENCH_TORCH_CUDA
  return at::hasCUDA();
#else
  return false;
#endif
}

static void require_cuda_torch() {
  if (!torch_has_cuda())
    throw std::runtime_error(
        "this bench_ops was built against a LibTorch without CUDA (" + torch_version() +
        "): the CUDA references need a CUDA LibTorch. Rebuild with Torch_DIR pointing at one, e.g. "
        "PyTorch's: python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'");
}

// Results LibTorch returned in its own memory are copied into the harness's outputs.
static void copy_results(const std::vector<at::Tensor>& results, const std::vector<at::Tensor>& outs) {
  if (results.size() != outs.size())
    throw std::logic_error("LibTorch reference returned " + std::to_string(results.size()) + " tensors, expected " +
                           std::to_string(outs.size()));
  for (std::size_t j = 0; j < outs.size(); ++j)
    if (!results[j].is_same(outs[j])) outs[j].copy_(results[j].reshape(outs[j].sizes()));
}

namespace {
#if OPBENCH_TORCH_CUDA
class TorchStreamGuard {
 public:
  explicit TorchStreamGuard(cudaStream_t s) : guard_(c10::cuda::getStreamFromExternal(s, current_device())) {}

 private:
  static c10::DeviceIndex current_device() {
    int d = 0;
    cudaGetDevice(&d);
    return c10::DeviceIndex(d);
  }
  c10::cuda::CUDAStreamGuard guard_;
};
#else
struct TorchStreamGuard {
  explicit TorchStreamGuard(cudaStream_t) {}
};
#endif
}  // namespace

Impl torch_impl(const std::string& op) {
  Impl impl;
  impl.kind = ImplKind::torch;
  const TorchFn* found = torch_registry().find(op);
  if (!found) {
    impl.missing = "no LibTorch reference is registered for '" + op + "' (src/reference/torch_*.cpp)";
    return impl;
  }
  impl.prepare = [fn = *found](const Bindings& b) {
    require_cuda_torch();
    auto args = std::make_shared<TorchArgs>();
    for (const TensorView& v : b.in) args->in.push_back(wrap(v));
    for (const TensorView& v : b.out) args->out.push_back(wrap(v));
    args->params = b.params;
    args->settings = b.settings;
    auto last = std::make_shared<std::vector<at::Tensor>>();
    Prepared p;
    // LibTorch runs on its current stream: made the launch's stream for the call, as a user who
    // launches on a stream of their own writes it (CUDAStreamGuard).
    p.launch = [fn, args, last](cudaStream_t s) {
      TorchStreamGuard on(s);
      *last = fn(*args);
    };
    p.finish = [args, last] { copy_results(*last, args->out); };
    p.uses_torch_allocator = true;
    return p;
  };
  return impl;
}

void run_oracle(const std::string& op, const Bindings& inputs, const std::vector<TensorView>& out) {
  require_cuda_torch();
  const TorchFn* fn = torch_registry().find(op);
  if (!fn) throw std::runtime_error("no LibTorch reference is registered for '" + op + "'");
  TorchArgs a;
  for (const TensorView& v : inputs.in) {
    at::Tensor t = wrap(v);
    a.in.push_back(t.is_floating_point() ? t.to(at::kDouble) : t);
  }
  for (const TensorView& v : out) a.out.push_back(wrap(v));
  a.params = inputs.params;
  a.settings = inputs.settings;
  copy_results((*fn)(a), a.out);
}

std::size_t torch_peak_extra_bytes(const Launch& launch, cudaStream_t s) {
#if OPBENCH_TORCH_CUDA
  TorchStreamGuard on(s);
  namespace alloc = c10::cuda::CUDACachingAllocator;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaStreamSynchronize(s);
  alloc::resetPeakStats(dev);
  const auto before = alloc::getDeviceStats(dev).allocated_bytes[0].current;
  launch(s);
  cudaStreamSynchronize(s);
  const auto peak = alloc::getDeviceStats(dev).allocated_bytes[0].peak;
  return peak > before ? std::size_t(peak - before) : 0;
#else
  (void)launch;
  (void)s;
  return 0;
#endif
}

void torch_empty_cache() {
#if OPBENCH_TORCH_CUDA
  c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

void set_torch_tf32(bool allow) { at::globalContext().setAllowTF32CuBLAS(allow); }

}  // namespace opbench::reference
