// gemm_sweep: times every cluster-free tile configuration of the wgmma GEMM (gemm_sm90.cu) that the cost model
// chooses from with every split-K count, and every cluster configuration unsplit, on the given 16-bit shapes
// (fp32: below), and marks the choice fw::gemm makes, so that its cost model (sm90_model_choice) can be checked
// against measurements. A developer tool, not part of bench_ops:
//   build/gemm_sweep [--dtype bf16|fp16|fp32] [--reps N] MxNxK[:nk|:kn] ...
// (default: B as [K, N] for matmul; nk for a linear layer's W). Without shapes, a built-in list: the
// Qwen2-0.5B projections at 128..2048 tokens and the decode-like and square shapes of the matmul suite.
// --dtype fp32 times 3xTF32 in the kernel instead (gemm_tf32x3_split_a: A's parts split by their own kernel, then
// the transposed problem C^T = B^T A^T, or W A^T): every cluster-free tile at most 192 wide (the block sums' limit)
// with every split count, whole calls (split, GEMM and split-K sum) timed, and beside them the fp32 paths it
// competes with where they take the call, the skinny kernel (M <= 16) and the SIMT kernel.
// Timing: each launch alone, L2 cleaned before it (bench_ops's L2Flusher: 2 x L2 written, then read),
// CUDA events, the median of --reps launches (25). The configurations of a shape take turns, one launch
// each per round (as bench_ops interleaves implementations), so that a GPU heating up over a long shape
// (8192^3: 1.38 ms a launch, 31 configurations) slows them all alike instead of the last ones timed. Event
// timing carries a fixed ~2 us floor that bench_ops's CUPTI timing does not, the same for every
// configuration of a shape: compare configurations, not absolutes.
// Exit codes: 0 done, 1 a CUDA error (named on stderr), 2 a bad argument, 3 no CUDA device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernels/matmul/gemm_detail.hpp"
#include "kernels/matmul/matmul.hpp"
#include "src/model/stats.hpp"
#include "src/timing/l2_flush.hpp"

namespace {

#define CHECK(x)                                                                                     \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "gemm_sweep: %s: %s\n", #x, cudaGetErrorString(e_));                      \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

struct Case {
  int64_t M, N, K;
  fw::GemmLayout layout;
};

// Test data from a hash of the index: a value in [-1, 1) of the 16-bit type whose bits are set here (bf16 and fp16
// alike: small exponents), or an fp32 value in [-1, 1) with 16 bits of mantissa (3xTF32's small parts are not zero).
__device__ void set_value(uint16_t& v, uint32_t h) { v = uint16_t(0x3800u | (h & 0x83FFu)); }
__device__ void set_value(float& v, uint32_t h) { v = float(h & 0xFFFFu) / 32768.f - 1.f; }

template <class T>
__global__ void fill(T* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    set_value(p[i], h);
  }
}

// Median us of each launch in `launches`, timed in turns: round r times launch 0, 1, ..., n-1 once each.
std::vector<float> interleaved_median_us(const std::vector<std::function<void()>>& launches,
                                         opbench::L2Flusher& flush, int reps, cudaStream_t s) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (const auto& launch : launches) launch();  // warm-up: tensor maps, scratch, module load
  std::vector<std::vector<double>> t(launches.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < launches.size(); ++i) {
      flush.flush(s);
      CHECK(cudaEventRecord(a, s));
      launches[i]();
      CHECK(cudaEventRecord(b, s));
      CHECK(cudaEventSynchronize(b));
      float ms = 0.f;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t[i].push_back(ms * 1000.f);
    }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::vector<float> out;
  for (auto& v : t) out.push_back(float(opbench::median_of(std::move(v))));
  return out;
}

std::vector<Case> default_cases() {
  std::vector<Case> v;
  const fw::GemmLayout nk = fw::GemmLayout::nk, kn = fw::GemmLayout::kn;
  for (int64_t T : {128, 256, 512, 1024, 2048}) {
    v.push_back({T, 9728, 896, nk});  // gate + up
    v.push_back({T, 896, 4864, nk});  // down
    v.push_back({T, 896, 896, nk});   // q, o
    v.push_back({T, 128, 896, nk});   // k, v
  }
  for (int64_t M : {16, 64}) v.push_back({M, 4096, 4096, kn}), v.push_back({M, 4096, 4096, nk});
  for (int64_t n : {256, 512, 1024, 2048, 4096, 8192}) v.push_back({n, n, n, kn});
  v.push_back({4096, 896, 4864, nk});
  v.push_back({4096, 4864, 896, nk});
  return v;
}

bool parse_case(const char* s, Case& c) {
  long long m = 0, n = 0, k = 0;
  char lay[8] = "kn";
  const int got = std::sscanf(s, "%lldx%lldx%lld:%3s", &m, &n, &k, lay);
  if (got < 3 || m < 1 || n < 1 || k < 1) return false;
  c = {m, n, k, std::strcmp(lay, "nk") == 0 ? fw::GemmLayout::nk : fw::GemmLayout::kn};
  return got == 3 || std::strcmp(lay, "nk") == 0 || std::strcmp(lay, "kn") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fw::detail;
  fw::DType dt = fw::DType::bf16;
  int reps = 25;
  std::vector<Case> cases;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dtype" && i + 1 < argc) {
      const std::string d = argv[++i];
      if (d != "bf16" && d != "fp16" && d != "fp32")
        return std::fprintf(stderr, "gemm_sweep: --dtype takes bf16, fp16 or fp32\n"), 2;
      dt = d == "bf16" ? fw::DType::bf16 : d == "fp16" ? fw::DType::f16 : fw::DType::f32;
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      Case c;
      if (!parse_case(argv[i], c))
        return std::fprintf(stderr, "gemm_sweep: '%s' is not MxNxK[:nk|:kn]\n", argv[i]), 2;
      cases.push_back(c);
    }
  }
  const bool f32 = dt == fw::DType::f32;
  if (cases.empty()) cases = default_cases();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    return std::fprintf(stderr, "gemm_sweep: no CUDA device\n"), 3;

  int l2 = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  opbench::L2Flusher flush{size_t(l2)};  // bench_ops's clean cold L2: 2 x L2 written, then read
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  // The table's columns: every configuration and split count the cost model chooses from (fp32: then the other
  // fp32 paths).
  enum class Path { sm90, skinny, simt };
  struct Column {
    Sm90Config config;
    int splits;
    std::string name;
    Path path = Path::sm90;
  };
  std::vector<Column> columns;
  auto add_column = [&](Sm90Config c, int sp) {
    columns.push_back({c, sp, std::string(sm90_config_name(c)) + "/" + std::to_string(sp)});
  };
  if (f32) {  // every cluster-free configuration at most 192 wide that takes TF32, with every split count
    for (int ci = 0; ci < int(Sm90Config::count); ++ci)
      if (sm90_shape(Sm90Config(ci)).cl == 1 && sm90_shape(Sm90Config(ci)).bn <= 192 &&
          sm90_config_takes(Sm90Config(ci), dt, fw::GemmLayout::kn))
        for (int sp : kSm90SplitCounts) add_column(Sm90Config(ci), sp);
    columns.push_back({Sm90Config::count, 1, "skinny", Path::skinny});
    columns.push_back({Sm90Config::count, 1, "simt", Path::simt});
  } else {
    for (const Sm90Tile& t : kSm90ModelTiles)
      for (int sp : kSm90SplitCounts) add_column(t.config, sp);
    for (int ci = 0; ci < int(Sm90Config::count); ++ci)  // the cluster configurations, pairs and the K-pair (unsplit)
      if (sm90_shape(Sm90Config(ci)).cl > 1) add_column(Sm90Config(ci), 1);
  }
  std::printf("| M x N x K | B | fw::gemm's path | its us | best config | best us | auto/best |");
  for (const Column& col : columns) std::printf(" %s |", col.name.c_str());
  std::printf("\n");
  for (const Case& c : cases) {
    const size_t a_n = size_t(c.M * c.K), b_n = size_t(c.K * c.N), c_n = size_t(c.M * c.N);
    const size_t esz = f32 ? 4 : 2;
    void *A, *B, *C, *bias;
    CHECK(cudaMalloc(&A, a_n * esz));
    CHECK(cudaMalloc(&B, b_n * esz));
    CHECK(cudaMalloc(&C, c_n * esz));
    CHECK(cudaMalloc(&bias, size_t(c.N) * esz));
    auto fill_buffer = [&](void* p, size_t n, uint32_t seed) {
      if (f32)
        fill<<<1024, 256, 0, s>>>(static_cast<float*>(p), n, seed);
      else
        fill<<<1024, 256, 0, s>>>(static_cast<uint16_t*>(p), n, seed);
    };
    fill_buffer(A, a_n, 1u);
    fill_buffer(B, b_n, 2u);
    fill_buffer(bias, size_t(c.N), 3u);
    const void* bias_or_null = c.layout == fw::GemmLayout::nk ? bias : nullptr;  // linear carries a bias
    const GemmArgs args{dt, c.layout, A, B, bias_or_null, C, 1, c.M, c.N, c.K};
    const std::string path = fw::gemm_path(dt, c.layout, A, B, C, 1, c.M, c.N, c.K, false);
    // Launch 0: fw::gemm's own choice; then each configuration and split count that takes the call (when sm90
    // runs here), in the order of the table's columns.
    std::vector<std::function<void()>> launches{
        [&] { fw::gemm(dt, c.layout, A, B, bias_or_null, C, 1, c.M, c.N, c.K, false, s); }};
    const bool sm90 = f32 ? tf32x3_split_a_supported(args) : sm90_supported(args);
    std::vector<int> launch_of(columns.size(), -1);  // the column's index in launches; -1: not run
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Column& col = columns[i];
      const bool runs = col.path == Path::skinny ? skinny_supported(args)
                        : col.path == Path::simt ? true
                        : f32                    ? sm90 && tf32x3_split_a_takes(col.config, args)
                                                 : sm90 && sm90_config_takes(col.config, dt, c.layout);
      if (!runs) continue;
      launch_of[i] = int(launches.size());
      launches.push_back([&args, &s, &col, f32] {
        if (col.path == Path::skinny)
          gemm_skinny(args, s);
        else if (col.path == Path::simt)
          gemm_simt(args, s);
        else if (f32)
          gemm_tf32x3_split_a(args, col.config, col.splits, s);
        else
          gemm_sm90(args, col.config, s, col.splits);
      });
    }
    const std::vector<float> us = interleaved_median_us(launches, flush, reps, s);
    const float auto_us = us[0];
    std::vector<float> times;  // one a column; -1 where the configuration cannot run the call
    float best = 1e30f;
    std::string best_name;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const float u = launch_of[i] >= 0 ? us[std::size_t(launch_of[i])] : -1.f;
      times.push_back(u);
      if (u > 0 && u < best) best = u, best_name = columns[i].name;
    }
    std::printf("| %lldx%lldx%lld | %s | %s | %.2f | %s | %.2f | %.2f |", (long long)c.M, (long long)c.N,
                (long long)c.K, c.layout == fw::GemmLayout::nk ? "nk" : "kn", path.c_str(), auto_us,
                best_name.c_str(), best, auto_us / best);
    for (float t : times) std::printf(" %.2f |", t);
    std::printf("\n");
    std::fflush(stdout);
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    CHECK(cudaFree(bias));
  }
  return 0;
}
