// roof_sweep: the three bandwidth roofs (device_info.hpp) measured at each of a range of sizes instead of at
// 8x L2 alone, to tell what a streaming kernel can reach at a problem's own size from a clean cold L2. A
// developer tool beside bench_ops, which measures the same curve at its start (the report's "roofs by size"):
//   build/roof_sweep [--device-timer cupti|events] [MB ...]
// Each size is the bytes moved, as a result's `bytes`: the read sweep reads all of them (l2_flush.hpp's
// kernel, the read roof's); the copy reads half and writes half (launch_copy_sweep, a streaming copy kernel, since
// cudaMemcpyAsync, the copy roof's call, changes its method with the size); the write sweep writes all of them
// (launch_write_sweep).
// All are timed exactly as the roofs and the ops are (measure_roofs_at, device_info.hpp: clean cold L2
// before every sample, handshake, clock check, median to 1%), the three launches of a size in turns. Without
// sizes, bench_ops's (roof_curve_sizes). Prints one Markdown row a size: median us, GB/s, and that GB/s as
// a % of the roofs bench_ops reports (measured first, at 8x L2).
// Exit codes: 0 done, 1 a CUDA error (named on stderr), 2 a bad argument, 3 no CUDA device.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/core/device_info.hpp"
#include "src/timing/resources.hpp"

int main(int argc, char** argv) {
  opbench::DeviceTimer timer = opbench::DeviceTimer::cupti;
  std::vector<double> sizes_mb;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device-timer" && i + 1 < argc) {
      const std::string t = argv[++i];
      if (t == "cupti") timer = opbench::DeviceTimer::cupti;
      else if (t == "events") timer = opbench::DeviceTimer::events;
      else return std::fprintf(stderr, "roof_sweep: --device-timer takes cupti or events, not '%s'\n", t.c_str()), 2;
    } else {
      char* end = nullptr;
      const double mb = std::strtod(a.c_str(), &end);
      if (end == a.c_str() || *end != '\0' || !(mb > 0) || mb > 1e5)
        return std::fprintf(stderr, "roof_sweep: '%s' is not a size in MB (a number above 0); usage: roof_sweep "
                                    "[--device-timer cupti|events] [MB ...]\n", a.c_str()), 2;
      sizes_mb.push_back(mb);
    }
  }
  std::string why;
  if (opbench::cuda_device_count(&why) == 0) return std::fprintf(stderr, "roof_sweep: no CUDA device: %s\n", why.c_str()), 3;
  try {
    opbench::TimingResources res(timer);
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) throw std::runtime_error("no stream");
    const opbench::RoofPoint top = opbench::measure_roofs_at({double(opbench::roof_sweep_bytes(res))}, res, s).at(0);
    const double read_roof = top.read_gbps, write_roof = top.write_gbps, copy_roof = opbench::measure_copy_gbps(res, s);
    std::vector<double> sizes = opbench::roof_curve_sizes(res);
    if (!sizes_mb.empty()) {
      sizes.clear();
      for (double mb : sizes_mb) sizes.push_back(mb * 1e6);
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    std::printf("# roof_sweep on %s (L2 %.1f MB, %s)\n\n", p.name, res.l2_bytes() / 1e6, res.device_timer_text().c_str());
    std::printf("Roofs at %.1f MB (bench_ops's): read %.0f GB/s, copy %.0f GB/s, write %.0f GB/s.\n\n",
                opbench::roof_sweep_bytes(res) / 1e6, read_roof, copy_roof, write_roof);
    std::printf("| MB moved | read us | read GB/s | %% of read roof | copy us | copy GB/s | %% of copy roof | write us | "
                "write GB/s | %% of write roof |\n");
    std::printf("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (double size : sizes) {
      const opbench::RoofPoint r = opbench::measure_roofs_at({size}, res, s).at(0);
      std::printf("| %.1f | %.2f | %.0f | %.1f%% | %.2f | %.0f | %.1f%% | %.2f | %.0f | %.1f%% |\n", r.bytes / 1e6,
                  r.bytes / r.read_gbps / 1e3, r.read_gbps, 100 * r.read_gbps / read_roof, r.bytes / r.copy_gbps / 1e3,
                  r.copy_gbps, 100 * r.copy_gbps / copy_roof, r.bytes / r.write_gbps / 1e3, r.write_gbps,
                  100 * r.write_gbps / write_roof);
      std::fflush(stdout);
    }
    cudaStreamDestroy(s);
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "roof_sweep: %s\n", e.what()), 1;
  }
  return 0;
}
