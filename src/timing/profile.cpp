// profile_once: the kernels of selected problems, once each, for an external profiler.
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "src/core/cuda_check.hpp"
#include "src/timing/graph.hpp"
#include "src/timing/timer.hpp"

namespace opbench {

namespace {

// Stops the profiler and closes the open NVTX range even when a launch throws, so a failing
// implementation does not leave the profiler capturing the rest of the run.
struct ProfilerSession {
  bool range_open = false;
  ProfilerSession() { OPBENCH_CUDA_CHECK(cudaProfilerStart()); }
  ~ProfilerSession() {
    if (range_open) nvtxRangePop();
    OPBENCH_CUDA_CHECK_NOTHROW(cudaProfilerStop());
  }
};

}  // namespace

void profile_once(const std::vector<Launch>& launches, const std::vector<std::string>& names, cudaStream_t s,
                  int graph_launches) {
  if (names.size() != launches.size())
    throw std::invalid_argument("profile_once: one name per launch is needed");
  // Graphs are captured and uploaded before the profiled region: only their replays run inside it.
  std::vector<std::optional<CapturedGraph>> graphs(launches.size());
  if (graph_launches > 0) {
    for (std::size_t i = 0; i < launches.size(); ++i) {
      try {
        graphs[i].emplace(launches[i], graph_launches, s);
      } catch (const GraphCaptureError& e) {
        std::cerr << names[i] << ": not profiled: " << e.what() << "\n";
      }
    }
  }
  // Nothing of earlier work may run inside the profiled region.
  OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  ProfilerSession session;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (graph_launches > 0 && !graphs[i]) continue;
    const std::string name = graphs[i] ? names[i] + "/graph" + std::to_string(graph_launches) : names[i];
    nvtxRangePushA(name.c_str());
    session.range_open = true;
    if (graphs[i])
      graphs[i]->replay(s);
    else
      launches[i](s);
    // Inside the range: the kernels finish before it closes, so nsys shows them under their name too.
    OPBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    session.range_open = false;
  }
}

}  // namespace opbench
