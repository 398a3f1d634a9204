// The compute roofs a report places results under: a large cuBLAS GEMM timed at the start of a run, one
// per dtype the run covers (fp32 with TF32 when --tf32), beside the datasheet peaks reports derive from
// the device. The memory roofs (copy, read sweep) are measured in src/core/device_info.
#pragma once
#include <cuda_runtime_api.h>

#include <vector>

#include "opbench/registry.hpp"
#include "opbench/result.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

// cuBLAS's matmul (the registry's vendor column of "matmul") on 8192^3 (4096^3 in fp32, which runs on
// CUDA cores unless TF32 is allowed), timed like any problem. A dtype whose GEMM cannot run here is left
// out (the report then uses the datasheet peak alone).
std::vector<GemmRoof> measure_gemm_roofs(const Registry& reg, const std::vector<DType>& dtypes, const RunSettings& s,
                                         const TimingConfig& timing, TimingResources& res, cudaStream_t stream);

}  // namespace opbench
