#include "src/timing/graph.hpp"

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "src/core/cuda_check.hpp"

namespace opbench {

namespace {

// Owns a captured (not yet instantiated) graph.
struct GraphHolder {
  cudaGraph_t g = nullptr;
  ~GraphHolder() {
    if (g) OPBENCH_CUDA_CHECK_NOTHROW(cudaGraphDestroy(g));
  }
};

}  // namespace

CapturedGraph::CapturedGraph(const Launch& launch, int launches, cudaStream_t s) : launches_(launches) {
  if (launches < 1) throw std::invalid_argument("CapturedGraph: launches must be >= 1");
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  OPBENCH_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    for (int i = 0; i < launches; ++i) launch(s);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  GraphHolder graph;
  // The capture must end whatever happened, or the stream stays in capture mode.
  const cudaError_t end = cudaStreamEndCapture(s, &graph.g);
  (void)cudaGetLastError();  // a failed capture leaves its error behind; it is reported below
  if (!failure.empty() || end != cudaSuccess) {
    throw GraphCaptureError("cannot be captured in a CUDA graph: " +
                            (failure.empty() ? std::string(cudaGetErrorName(end)) + ": " + cudaGetErrorString(end)
                                             : failure) +
                            " (it synchronizes, allocates, or calls something else a graph cannot record)");
  }
  std::size_t nodes = 0;
  OPBENCH_CUDA_CHECK(cudaGraphGetNodes(graph.g, nullptr, &nodes));
  // A launch that queues its work on another stream leaves nothing in the capture: replaying an empty
  // graph would time nothing.
  if (nodes < std::size_t(launches))
    throw GraphCaptureError("cannot be timed as a CUDA graph: " + std::to_string(launches) + " launches left " +
                            std::to_string(nodes) + " nodes on the capture stream (is its work queued on another stream?)");
  OPBENCH_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec_, graph.g, 0));
  // Upload now, so the first replay does not pay for it.
  OPBENCH_CUDA_CHECK(cudaGraphUpload(exec_, s));
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
}

CapturedGraph::~CapturedGraph() {
  if (exec_) OPBENCH_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
}

CapturedGraph::CapturedGraph(CapturedGraph&& o) noexcept
    : exec_(std::exchange(o.exec_, nullptr)), launches_(std::exchange(o.launches_, 0)) {}

CapturedGraph& CapturedGraph::operator=(CapturedGraph&& o) noexcept {
  if (this != &o) {
    if (exec_) OPBENCH_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
    exec_ = std::exchange(o.exec_, nullptr);
    launches_ = std::exchange(o.launches_, 0);
  }
  return *this;
}

void CapturedGraph::replay(cudaStream_t s) const { OPBENCH_CUDA_CHECK(cudaGraphLaunch(exec_, s)); }

}  // namespace opbench

