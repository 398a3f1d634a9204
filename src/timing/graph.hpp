// `--timing graph`: N launches of one implementation captured into a CUDA graph on the timing stream,
// instantiated once and replayed. Replayed back to back, the launches cost what they cost inside a
// model's captured step: no host launch overhead and no event floor per launch, and the L2 as the
// previous launch left it (only the first of the N starts cold).
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>

#include "opbench/op.hpp"

namespace opbench {

// The implementation cannot be captured (it synchronizes, allocates with cudaMalloc, or queues its
// work on another stream): its graph time is reported absent with this message.
struct GraphCaptureError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CapturedGraph {
 public:
  // Captures `launches` calls of `launch` on `s` (cudaStreamCaptureModeThreadLocal) and instantiates
  // them. Throws GraphCaptureError when the capture fails, CudaError on any other CUDA error.
  CapturedGraph(const Launch& launch, int launches, cudaStream_t s);
  ~CapturedGraph();
  CapturedGraph(CapturedGraph&& o) noexcept;
  CapturedGraph& operator=(CapturedGraph&& o) noexcept;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  void replay(cudaStream_t s) const;
  int launches() const { return launches_; }

 private:
  cudaGraphExec_t exec_ = nullptr;
  int launches_ = 0;
};

}  // namespace opbench
