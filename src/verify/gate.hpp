// The correctness gate, run before anything is timed: the framework's outputs (poisoned first) against
// LibTorch's in the same dtype and against the fp64 oracle (LibTorch on fp64 copies of the inputs),
// elementwise within the op's tolerance. NaN never passes.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>

#include "opbench/op.hpp"
#include "opbench/result.hpp"
#include "src/core/problem_setup.hpp"

namespace opbench {

// Writes the fp64 (int64 for index outputs) results for the problem's inputs into `out`.
using Oracle = std::function<void(const Bindings& inputs, const std::vector<TensorView>& out)>;

// Runs the framework and LibTorch once each on the setup's inputs and compares. Throws on a CUDA error
// (the caller reports the problem as failed).
Verification check_correctness(const Tolerance& tol, ProblemSetup& setup, const Prepared& framework,
                               const Prepared& torch, const Oracle& oracle, cudaStream_t s);

}  // namespace opbench
