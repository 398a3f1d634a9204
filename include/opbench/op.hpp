// An op as the registry knows it: what it computes on (io), what it costs (bytes, flops), how exact it
// must be (tolerance), and its implementations: the framework's launcher, LibTorch's reference and, where
// one exists, a vendor library's (cuDNN, cuBLAS).
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "opbench/dtype.hpp"
#include "opbench/kinds.hpp"
#include "opbench/size_class.hpp"
#include "opbench/tensor.hpp"

namespace opbench {

// Scalar parameters of a problem (alpha, eps, dim, ...), by name.
class Params {
 public:
  Params() = default;
  Params(std::initializer_list<std::pair<const std::string, double>> l) : values_(l) {}
  double get(const std::string& name) const;  // throws std::out_of_range naming the parameter
  double get(const std::string& name, double fallback) const;
  void set(const std::string& name, double v) { values_[name] = v; }
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// What one problem (op x shape x dtype) computes on.
struct OpIO {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  Params params;
  std::size_t workspace_bytes = 0;  // scratch the framework launcher needs (harness-allocated)
};

// Choices a user makes for the whole run that change what an implementation computes (typed, recorded
// in the report's context): --tf32 lets fp32 matmuls use TF32 tensor cores in LibTorch, cuBLAS and the
// framework alike.
struct RunSettings {
  bool tf32 = false;
};

// What an implementation sees when it is prepared: views of the problem's inputs, of its own outputs,
// and (for the framework) its workspace.
struct Bindings {
  std::vector<TensorView> in;
  std::vector<TensorView> out;
  Params params;
  RunSettings settings;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

using Launch = std::function<void(cudaStream_t)>;

// An implementation ready to run: everything that can be set up ahead of time (descriptors, workspace,
// wrapped tensors) is done, so that `launch` costs only what a user of that library pays per call.
struct Prepared {
  Launch launch;
  std::size_t workspace_bytes = 0;      // memory it allocated beyond the operands
  bool uses_torch_allocator = false;    // its temporaries come from LibTorch's caching allocator
  std::function<void()> finish;         // after a run: copy results into Bindings::out if they live elsewhere
  std::string kernel;                   // the kernel or path it runs, where it can name one (the report shows it)
};

using Prepare = std::function<Prepared(const Bindings&)>;

// Thrown by a prepare function when its library cannot run this problem (a dtype or size it does not
// support): the row is reported as not_supported rather than failed.
struct NotSupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Impl {
  ImplKind kind;
  Prepare prepare;  // empty: not available here (reported as failed with `missing`)
  std::string missing;
};

struct OpDef {
  std::string name;
  Category category;
  // Other names that select this op with --category (e.g. "broadcast" on add_bcast_row): a tag names a
  // group of ops across or inside categories, so shared code never tests op names.
  std::vector<std::string> tags;
  // The op that does this one's work on full operands (a broadcast's plain op: add for add_bcast_row).
  // On the same shape this op moves fewer bytes, so the reports flag it when it is slower than its twin.
  std::string twin_of;
  // The op's rows are logits over a vocabulary (cross_entropy): the transformer sweep gives them the
  // vocabulary's length instead of the hidden dimension.
  bool rows_over_vocab = false;
  // A model benchmark op (bench/model.cpp): it runs this model (opbench::known_models()), and its shapes are
  // {batch, seq} points of the --batch x --seq grid (ProblemFilter::model_grid), not size classes.
  std::string model;
  // Timed as the call is issued, without the launch handshake (TimingConfig::hold_stream): for calls of
  // hundreds of launches (a model's step), where the host's queueing is part of the cost.
  bool timed_as_issued = false;
  std::string description;
  std::vector<DType> dtypes = {DType::f32, DType::f16, DType::bf16};

  // The shapes this op runs for one size class (default: the class's shapes).
  std::function<std::vector<Shape>(SizeClass)> shapes;
  std::function<OpIO(const Shape&, DType)> io;
  // Fewest bytes a perfect implementation moves through device memory, and the FLOPs it must do.
  std::function<double(const Shape&, DType)> bytes;
  std::function<double(const Shape&, DType)> flops;
  // |framework - reference| <= atol + rtol * |reference|, elementwise, against LibTorch and the fp64 oracle.
  std::function<Tolerance(const Shape&, DType)> tolerance;
  // An output whose error scales differently from the others (rms_norm_backward's dw, a sum over every row,
  // beside its per-row dx) has its own bound: output index -> tolerance. Empty: `tolerance` for every output.
  std::function<Tolerance(const Shape&, DType, std::size_t output)> output_tolerance;
  // fp32 under --tf32, for ops whose references then round inputs to TF32 (matmul); empty: unchanged.
  std::function<Tolerance(const Shape&)> tf32_tolerance;
  // Odd shapes the GPU tests check this op on (tails, single rows and columns, non-multiples of the
  // vector width). Default: bench::odd_shapes().
  std::function<std::vector<Shape>()> test_shapes;

  std::vector<Impl> impls;  // [0] is the framework, [1] LibTorch, then vendors

  const Impl* impl(ImplKind k) const;
};

}  // namespace opbench
