// One problem (op x shape x dtype), start to finish: prepare every implementation -> verify each
// against the fp64 oracle -> measure the verified ones together -> one ProblemResult. bench_ops's
// session and the GPU tests drive the same pipeline.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "opbench/registry.hpp"
#include "opbench/result.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

class ProblemSetup;

// What the pipeline does after verifying.
enum class PipelineStage { verify, measure, profile };

struct PipelineConfig {
  TimingConfig timing;
  RunSettings settings;
  PipelineStage last = PipelineStage::measure;
};

class ProblemPipeline {
 public:
  // `timing` is the session's (flush buffer, events, stream helpers), reused for every problem.
  ProblemPipeline(PipelineConfig cfg, TimingResources& timing, cudaStream_t stream);

  // Never throws: failures are recorded in the result, per implementation.
  ProblemResult run(const Problem& p);
  // Prepare and verify only, every tensor `misalign` elements off a 256-byte boundary (GPU tests).
  ProblemResult verify(const Problem& p, int64_t misalign);

 private:
  struct Impls;
  ProblemResult run_stages(const Problem& p, int64_t misalign, PipelineStage last);
  void measure_stage(const Problem& p, ProblemSetup& setup, Impls& impls);

  PipelineConfig cfg_;
  TimingResources& timing_;
  cudaStream_t stream_;
};

}  // namespace opbench
