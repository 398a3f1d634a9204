// Every registered op's implementations — the framework's kernel, LibTorch and the vendor libraries —
// against the fp64 oracle (the framework also against LibTorch), through the same problem pipeline
// bench_ops runs, on each op's odd test shapes, in fp32, fp16 and bf16, and on views shifted off 16-byte
// alignment; and the ops that honour --tf32 (matmul) once more in fp32 with TF32 on every side, under
// their TF32 tolerance. A vendor that cannot take a problem says not_supported, which passes. Skipped,
// with the reason, when there is no CUDA GPU or no CUDA LibTorch.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "opbench/registry.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_info.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "src/reference/reference.hpp"
#include "src/run/pipeline.hpp"

using namespace opbench;

namespace {

struct OpCase {
  std::string op;
  DType dtype;
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.op << "/" << dtype_name(c.dtype); }

std::vector<OpCase> all_cases() {
  std::vector<OpCase> v;
  for (const OpDef& op : global_registry().ops())
    for (DType t : op.dtypes) v.push_back({op.name, t});
  return v;
}

class KernelVsTorch : public opbench::testing_gpu::SkipWithoutGpu<testing::TestWithParam<OpCase>> {};

void check_op(const OpCase& c, bool tf32) {
  const OpDef* op = global_registry().find(c.op);
  ASSERT_NE(op, nullptr);
  static TimingResources timing;
  PipelineConfig cfg;
  cfg.settings.tf32 = tf32;
  ProblemPipeline pipeline(cfg, timing, nullptr);
  for (const Shape& s : op->test_shapes()) {
    for (int64_t misalign : {0, 1}) {
      Problem p{op, s, SizeClass::custom, c.dtype};
      const ProblemResult r = pipeline.verify(p, misalign);
      ASSERT_EQ(r.impls.size(), op->impls.size()) << p.id();
      for (const ImplResult& i : r.impls) {
        if (i.impl != ImplKind::framework && i.status == Status::not_supported) continue;
        const Verification& v = i.verify;
        EXPECT_EQ(i.status, Status::ok)
            << p.id() << " " << impl_name(i.impl) << (tf32 ? " (tf32)" : "") << " misalign " << misalign << ": "
            << status_name(i.status) << " " << i.message << " (max abs err " << v.max_abs_err << ", vs fp64 "
            << v.oracle_max_abs_err << ")";
      }
    }
  }
}

TEST_P(KernelVsTorch, OddShapesAndUnalignedViews) { check_op(GetParam(), false); }

// TF32 on both sides, as `bench_ops --tf32` runs it: LibTorch's cuBLAS switch and the framework's TF32 path.
class Tf32VsTorch : public KernelVsTorch {
 protected:
  void SetUp() override {
    KernelVsTorch::SetUp();
    if (!IsSkipped()) reference::set_torch_tf32(true);
  }
  void TearDown() override {
    if (!IsSkipped()) reference::set_torch_tf32(false);
  }
};

std::vector<OpCase> tf32_cases() {
  std::vector<OpCase> v;
  for (const OpDef& op : global_registry().ops())
    if (op.tf32_tolerance) v.push_back({op.name, DType::f32});
  return v;
}

TEST_P(Tf32VsTorch, OddShapesAndUnalignedViews) { check_op(GetParam(), true); }

std::string case_name(const testing::TestParamInfo<OpCase>& info) {
  // gtest names take letters, digits and '_' only ("qwen2-0.5b.prefill" -> "qwen2_0_5b_prefill").
  std::string name = info.param.op + "_" + dtype_name(info.param.dtype);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, KernelVsTorch, testing::ValuesIn(all_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Tf32Ops, Tf32VsTorch, testing::ValuesIn(tf32_cases()), case_name);

}  // namespace
