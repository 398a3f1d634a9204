#include "src/core/problem_setup.hpp"

#include "src/verify/device_ops.hpp"

namespace opbench {

ProblemSetup::ProblemSetup(const OpIO& io, uint64_t seed, cudaStream_t s, int64_t misalign)
    : io_(io), misalign_(misalign) {
  for (std::size_t i = 0; i < io_.inputs.size(); ++i) {
    const TensorSpec& spec = io_.inputs[i];
    TensorView v = allocate(spec, spec.dtype);
    fill_random(v, spec.init, seed * 1000003ull + i, s);
    inputs_.push_back(v);
  }
  if (io_.workspace_bytes) workspace_ = DeviceBuffer(io_.workspace_bytes);
}

TensorView ProblemSetup::allocate(const TensorSpec& spec, DType dt) {
  TensorView v;
  v.shape = spec.shape;
  v.dtype = dt;
  const std::size_t offset = std::size_t(misalign_) * dtype_size(dt);
  buffers_.emplace_back(v.bytes() + offset + 256);
  v.data = static_cast<char*>(buffers_.back().get()) + offset;
  return v;
}

Bindings ProblemSetup::bindings(ImplKind k) {
  auto it = outputs_.find(k);
  if (it == outputs_.end()) {
    std::vector<TensorView> outs;
    for (const TensorSpec& spec : io_.outputs) outs.push_back(allocate(spec, spec.dtype));
    it = outputs_.emplace(k, std::move(outs)).first;
  }
  Bindings b;
  b.in = inputs_;
  b.out = it->second;
  b.params = io_.params;
  if (k == ImplKind::framework) {
    b.workspace = workspace_.get();
    b.workspace_bytes = workspace_.bytes();
  }
  return b;
}

std::vector<TensorView> ProblemSetup::make_outputs(DType dt) {
  std::vector<TensorView> outs;
  for (const TensorSpec& spec : io_.outputs)
    outs.push_back(allocate(spec, spec.dtype == DType::i64 ? DType::i64 : dt));
  return outs;
}

std::size_t ProblemSetup::operand_bytes() const {
  std::size_t b = 0;
  for (const TensorView& v : inputs_) b += v.bytes();
  for (const TensorSpec& spec : io_.outputs) b += std::size_t(numel(spec.shape)) * dtype_size(spec.dtype);
  return b;
}

}  // namespace opbench
