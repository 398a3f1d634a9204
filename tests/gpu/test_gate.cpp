// Negative tests of the correctness gate: implementations that are deliberately wrong in one way each
// — one element off by more than the tolerance, a NaN, an Inf, an element left unwritten, a wrong argmax
// index, a misaligned view handled as if aligned — must each be caught as `incorrect`, on the GPU,
// through the same problem pipeline bench_ops runs. Each wrong implementation wraps the op's real
// framework launcher, so only the planted fault differs. Skipped, with the reason, without a CUDA GPU
// or a CUDA LibTorch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "opbench/registry.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_info.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "src/reference/reference.hpp"
#include "src/run/pipeline.hpp"

using namespace opbench;

namespace {

using Fault = std::function<void(const Bindings&, cudaStream_t)>;

// The op `name` with its framework launcher followed (or replaced) by `fault`.
OpDef faulty(const std::string& name, Fault after, std::function<Bindings(const Bindings&)> rebind = {}) {
  OpDef op = *global_registry().find(name);
  const Prepare real = op.impls.at(0).prepare;
  op.impls.at(0).prepare = [real, after, rebind](const Bindings& b) {
    Prepared inner = real(rebind ? rebind(b) : b);
    Prepared p = inner;
    p.launch = [inner, after, b](cudaStream_t s) {
      inner.launch(s);
      if (after) after(b, s);
    };
    return p;
  };
  return op;
}

// Overwrites element `i` of output 0 (fp32) with `v`.
Fault set_f32(int64_t i, float v) {
  return [i, v](const Bindings& b, cudaStream_t s) {
    ASSERT_EQ(b.out[0].dtype, DType::f32);
    static float host;
    host = v;
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(b.out[0].as<float>() + i, &host, sizeof host, cudaMemcpyHostToDevice, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  };
}

class GateCatches : public opbench::testing_gpu::SkipWithoutGpu<> {
 protected:
  // The framework row's verdict for `op` on `shape`.
  ImplResult framework_row(const OpDef& op, Shape shape, DType t = DType::f32, int64_t misalign = 0) {
    static TimingResources timing;
    ProblemPipeline pipeline(PipelineConfig{}, timing, nullptr);
    const ProblemResult r = pipeline.verify(Problem{&op, shape, SizeClass::custom, t}, misalign);
    return *r.find(ImplKind::framework);
  }
  void expect_caught(const OpDef& op, Shape shape, int64_t misalign = 0) {
    const ImplResult fw = framework_row(op, shape, DType::f32, misalign);
    EXPECT_EQ(fw.status, Status::incorrect) << status_name(fw.status) << ": " << fw.message;
    EXPECT_GE(fw.verify.mismatches, 1);
    EXPECT_FALSE(fw.verify.first_mismatch.empty());
  }
};

TEST_F(GateCatches, TheUnchangedLauncherPasses) {
  // The control: the wrapper itself changes nothing.
  const ImplResult fw = framework_row(faulty("add", nullptr), {1023, 1025});
  EXPECT_EQ(fw.status, Status::ok) << fw.message;
}

TEST_F(GateCatches, OneElementBeyondTolerance) {
  // add of inputs in [-1, 1): every true value is in (-2, 2); 7 is far outside any tolerance.
  expect_caught(faulty("add", set_f32(517, 7.0f)), {1023, 1025});
}

TEST_F(GateCatches, OneElementJustBeyondTolerance) {
  // The smallest fault: element 0 moved by 10x the fp32 tolerance's absolute part from the true value.
  const OpDef op = faulty("add", [](const Bindings& b, cudaStream_t s) {
    float host = 0;
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(&host, b.out[0].data, sizeof host, cudaMemcpyDeviceToHost, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    host += 1e-5f + 2e-5f * std::fabs(host);
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(b.out[0].data, &host, sizeof host, cudaMemcpyHostToDevice, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  });
  expect_caught(op, {4097});
}

TEST_F(GateCatches, ANaN) { expect_caught(faulty("gelu", set_f32(3, std::nanf(""))), {1023, 1025}); }

TEST_F(GateCatches, AnInf) {
  expect_caught(faulty("layer_norm", set_f32(1000, std::numeric_limits<float>::infinity())), {1024, 768});
}

TEST_F(GateCatches, AnElementLeftUnwritten) {
  // The real kernel, told the tensor is one element shorter: the last element keeps its poison.
  const OpDef op = faulty("relu", nullptr, [](const Bindings& b) {
    Bindings shorter = b;
    shorter.in[0].shape = {b.in[0].numel() - 1};
    shorter.out[0].shape = {b.out[0].numel() - 1};
    return shorter;
  });
  expect_caught(op, {4097});
}

TEST_F(GateCatches, AWrongArgmaxIndex) {
  const OpDef op = faulty("argmax_last", [](const Bindings& b, cudaStream_t s) {
    ASSERT_EQ(b.out[0].dtype, DType::i64);
    int64_t host = 0;
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(&host, b.out[0].data, sizeof host, cudaMemcpyDeviceToHost, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    host = (host + 1) % b.in[0].shape.back();
    OPBENCH_CUDA_CHECK(cudaMemcpyAsync(b.out[0].data, &host, sizeof host, cudaMemcpyHostToDevice, s));
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  });
  expect_caught(op, {64, 1000});
}

TEST_F(GateCatches, AMisalignedViewHandledAsAligned) {
  // A launcher that rounds its pointers down to 16 bytes (as a kernel that assumes aligned vectors would
  // read and write): on views one element off alignment, everything lands one element early.
  auto align_down = [](void* p) {
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(15));
  };
  const OpDef op = faulty("mul", nullptr, [align_down](const Bindings& b) {
    Bindings wrong = b;
    for (TensorView& v : wrong.in) v.data = align_down(v.data);
    for (TensorView& v : wrong.out) v.data = align_down(v.data);
    return wrong;
  });
  expect_caught(op, {1023, 1025}, /*misalign=*/1);
  // The same launcher on aligned views is right: the fault is the misalignment alone.
  const ImplResult aligned = framework_row(op, {1023, 1025});
  EXPECT_EQ(aligned.status, Status::ok) << aligned.message;
}

TEST_F(GateCatches, AnIncorrectReferenceIsReportedAsTheReferences) {
  // A LibTorch row that is wrong is LibTorch's verdict, not the framework's: the framework is checked
  // against the oracle alone then, and passes.
  OpDef op = *global_registry().find("add");
  for (Impl& i : op.impls) {
    if (i.kind != ImplKind::torch) continue;
    const Prepare real = i.prepare;
    i.prepare = [real](const Bindings& b) {
      Prepared inner = real(b);
      Prepared p = inner;
      p.launch = [inner, b](cudaStream_t s) {
        inner.launch(s);
        static float host = 7.0f;
        OPBENCH_CUDA_CHECK(cudaMemcpyAsync(b.out[0].data, &host, sizeof host, cudaMemcpyHostToDevice, s));
        OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
      };
      return p;
    };
  }
  static TimingResources timing;
  ProblemPipeline pipeline(PipelineConfig{}, timing, nullptr);
  const ProblemResult r = pipeline.verify(Problem{&op, {4097}, SizeClass::custom, DType::f32}, 0);
  EXPECT_EQ(r.find(ImplKind::torch)->status, Status::incorrect);
  EXPECT_EQ(r.find(ImplKind::framework)->status, Status::ok) << r.find(ImplKind::framework)->message;
}

}  // namespace

// A bound on the norm (Tolerance::rel_l2, the model ops'): the whole output's relative L2 error decides, not
// one element. One element off by 0.5 in 1023 x 1025 (relative L2 ~6e-4) passes a 1% bound that an
// elementwise tolerance would fail; the same element set to 1e3 in a 1 x 4 output fails it; a NaN fails it.
TEST_F(GateCatches, AnOutputBeyondItsNormBound) {
  auto by_norm = [](OpDef op) {
    op.tolerance = [](const Shape&, DType) {
      Tolerance t{0, 0};
      t.rel_l2 = 0.01;
      return t;
    };
    return op;
  };
  auto add_to_first = [](float delta) {
    return [delta](const Bindings& b, cudaStream_t s) {
      float host = 0;
      OPBENCH_CUDA_CHECK(cudaMemcpyAsync(&host, b.out[0].data, sizeof host, cudaMemcpyDeviceToHost, s));
      OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
      set_f32(0, host + delta)(b, s);
    };
  };
  const ImplResult small_change = framework_row(by_norm(faulty("add", add_to_first(0.5f))), {1023, 1025});
  EXPECT_EQ(small_change.status, Status::ok) << small_change.message;
  expect_caught(by_norm(faulty("add", set_f32(0, 1e3f))), {1, 4});
  expect_caught(by_norm(faulty("add", set_f32(5, std::numeric_limits<float>::quiet_NaN()))), {1023, 1025});
}
