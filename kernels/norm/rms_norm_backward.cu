// rms_norm backward (norm.hpp): with r = 1 / sqrt(mean(x^2) + eps) and c = mean(dy * w * x) per row,
//   dx = r * (dy * w) - x * r^3 * c,   dw = sum over rows of dy * x * r.
//
// Cached path (cols <= 16 elements per thread x 512 threads, 8 when unaligned): tpr threads per row (a
// power of two, 32 to 512, about one 16-byte vector each), 512 / tpr rows per 512-thread block, a
// persistent grid of G blocks walking the rows. Each thread keeps its columns fixed for the whole run, so
// it holds w and its share of dw (fp32) in registers across rows; x and dy of a row are read once into
// registers (the loads of the block's next row are issued before this row's reduction, so they are in
// flight across its barrier), the two sums (x^2 and dy*w*x) are reduced together, dx is written. At the end
// the block's rows are combined in shared memory in slot order (one barrier) and the block writes its fp32
// partial dw row [G, cols] to the workspace; a second kernel sums the G partials per column in a fixed
// order and rounds once (deterministic: G depends only on the shape and the GPU's occupancy). It is a
// dependent launch (dependent_launch.cuh): queued while the first kernel runs, it waits for its partials,
// so the two cost one launch latency, not two. A/A at 72ceacf (two ordinary launches): the small shapes'
// medians were bimodal, 5.1 or 6.1 us for fp32 32^3 between two processes, the second launch's gap.
// Looped path (longer rows): one block per row at a time, two passes over the row, element by element,
// its dw partial row updated in place in the workspace (only [1, 262144]-like shapes take it).
//
// Bytes: 3 * rows*cols*s (x, dy read; dx written) + 2 * cols*s (w, dw); the partials add 8 * G * cols
// (G ~ 1-2 blocks per SM: 2-9% at 4096-16384 rows of bf16).
// FLOPs ~8 per element (dy*w, two fma sums, dx: mul, fma; dw: mul, fma).
// dx and dy are not __restrict__: dx == dy is allowed (each element is read into registers by the
// thread that later writes it).
#include <algorithm>

#include "kernels/common/dependent_launch.cuh"
#include "kernels/norm/norm.hpp"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace {

using namespace rowwise;

constexpr int kThreads = 512;
// Elements of a row per thread on the cached path: 16 in packets; 8 element by element (scalar loads
// take a register per element and its own address: more spill at 128 registers).
constexpr int max_elems(int vec) { return vec == 1 ? 8 : 16; }
constexpr int64_t kMaxPartials = 1024;   // bound on G (sizes the workspace from the shape alone)
constexpr int kFinalRows = 16;           // threadIdx.y of the finalize kernel

struct Sums {
  float ss;   // sum x^2
  float dot;  // sum dy * w * x
};
__device__ __forceinline__ Sums add_sums(const Sums& a, const Sums& b) { return {a.ss + b.ss, a.dot + b.dot}; }

template <class T, int VEC, int NV>
__global__ void __launch_bounds__(kThreads, VEC > 1 && NV * VEC <= 8 ? 2 : 1)
    rms_bwd_cached_kernel(const T* x, const T* __restrict__ w, const T* dy, T* dx, float* __restrict__ partials,
                          int64_t rows, int cols, int tpr, float eps) {
  allow_dependents();  // rms_bwd_dw_kernel's launch overlaps this kernel (it waits for the partials)
  extern __shared__ float combine[];  // [rows a block][cols] when a block holds several rows
  __shared__ Sums red[2][kThreads / 32];
  const int rpb = kThreads / tpr;
  const int slot = int(threadIdx.x) / tpr, t = int(threadIdx.x) % tpr;
  const int warp = int(threadIdx.x) >> 5, wpr = tpr >= 32 ? tpr / 32 : 1;
  const int64_t stride = int64_t(gridDim.x) * rpb;
  auto col = [&](int i) { return (i * tpr + t) * VEC; };

  float wv[NV][VEC], acc[NV][VEC];
#pragma unroll
  for (int i = 0; i < NV; ++i) {
    if (col(i) < cols) {
      load_vec<T, VEC>(w + col(i), wv[i]);
    } else {
#pragma unroll
      for (int j = 0; j < VEC; ++j) wv[i][j] = 0.f;
    }
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[i][j] = 0.f;
  }

  Packet<T, VEC> xr[NV], dr[NV];
  auto fetch = [&](int64_t row) {
    if (row >= rows) return;
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (col(i) < cols) {
        xr[i] = load_raw<T, VEC>(x + row * cols + col(i));
        dr[i] = load_raw<T, VEC>(dy + row * cols + col(i));
      }
  };
  int64_t row = int64_t(blockIdx.x) * rpb + slot;
  fetch(row);
  int buf = 0;
  // The loop bound is the block's first row, so every thread of the block runs the same iterations
  // (rows past the end still reach the barriers).
  for (int64_t base = int64_t(blockIdx.x) * rpb; base < rows; base += stride, row += stride) {
    const bool active = row < rows;
    float xv[NV][VEC], dv[NV][VEC];
#pragma unroll
    for (int i = 0; i < NV; ++i) {
      if (active && col(i) < cols) {
        unpack_words<T, VEC>(xr[i], xv[i]);
        unpack_words<T, VEC>(dr[i], dv[i]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) xv[i][j] = dv[i][j] = 0.f;
      }
    }
    fetch(row + stride);  // in flight during this row's reduction and stores
    Sums s{0.f, 0.f};
#pragma unroll
    for (int i = 0; i < NV; ++i)
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        s.ss = fmaf(xv[i][j], xv[i][j], s.ss);
        s.dot = fmaf(dv[i][j] * wv[i][j], xv[i][j], s.dot);
      }
    s = warp_allreduce(s, add_sums);
    if (tpr > 32) {  // uniform; double-buffered slots: one barrier per row
      if ((threadIdx.x & 31) == 0) red[buf][warp] = s;
      __syncthreads();
      const int w0 = slot * wpr;
      s = red[buf][w0];
      for (int k = 1; k < wpr; ++k) s = add_sums(s, red[buf][w0 + k]);
      buf ^= 1;
    }
    const float inv_n = 1.f / float(cols);
    const float r = rsqrtf(s.ss * inv_n + eps);
    const float k3 = r * r * r * (s.dot * inv_n);
    if (active) {
#pragma unroll
      for (int i = 0; i < NV; ++i)
        if (col(i) < cols) {
          float o[VEC];
#pragma unroll
          for (int j = 0; j < VEC; ++j) {
            o[j] = fmaf(r * dv[i][j], wv[i][j], -xv[i][j] * k3);
            acc[i][j] = fmaf(dv[i][j] * xv[i][j], r, acc[i][j]);
          }
          store_vec<T, VEC>(dx + row * cols + col(i), o);
        }
    }
  }

  float* out = partials + int64_t(blockIdx.x) * cols;
  if (rpb == 1) {  // 16-byte stores: scalar ones spread each warp store over 32 sectors (ncu: 4x the L2 bytes)
#pragma unroll
    for (int i = 0; i < NV; ++i)
      if (col(i) < cols) {
        if constexpr (VEC % 4 == 0) {
#pragma unroll
          for (int j = 0; j < VEC; j += 4)
            *reinterpret_cast<float4*>(out + col(i) + j) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j) out[col(i) + j] = acc[i][j];
        }
      }
    return;
  }
  // Each slot's columns into its own shared row, one barrier, then a thread per column adds the rows in
  // slot order (deterministic; the same sums as adding slot by slot, which took a barrier a slot: 16 at
  // 256 columns).
#pragma unroll
  for (int i = 0; i < NV; ++i)
    if (col(i) < cols)
#pragma unroll
      for (int j = 0; j < VEC; ++j) combine[slot * cols + col(i) + j] = acc[i][j];
  __syncthreads();
  for (int c = int(threadIdx.x); c < cols; c += kThreads) {
    float s = 0.f;
    for (int sl = 0; sl < rpb; ++sl) s += combine[sl * cols + c];
    out[c] = s;
  }
}

// Rows too long for registers: block b takes rows b, b + G, ...; pass 1 reduces, pass 2 writes dx and
// updates partial row b (the first row of the block stores it).
template <class T>
__global__ void __launch_bounds__(kThreads) rms_bwd_looped_kernel(const T* x, const T* __restrict__ w, const T* dy,
                                                                  T* dx, float* __restrict__ partials, int64_t rows,
                                                                  int64_t cols, float eps) {
  allow_dependents();
  float* out = partials + int64_t(blockIdx.x) * cols;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    const T* dr = dy + row * cols;
    Sums s{0.f, 0.f};
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
      const float xv = to_float(xr[c]);
      s.ss = fmaf(xv, xv, s.ss);
      s.dot = fmaf(to_float(dr[c]) * to_float(w[c]), xv, s.dot);
    }
    s = block_allreduce(s, add_sums, Sums{0.f, 0.f});
    const float inv_n = 1.f / float(cols);
    const float r = rsqrtf(s.ss * inv_n + eps);
    const float k3 = r * r * r * (s.dot * inv_n);
    const bool first = row == int64_t(blockIdx.x);
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
      const float xv = to_float(xr[c]), dv = to_float(dr[c]);
      dx[row * cols + c] = from_float<T>(fmaf(r * dv, to_float(w[c]), -xv * k3));
      out[c] = fmaf(dv * xv, r, first ? 0.f : out[c]);
    }
  }
}

// dw[c] = sum over b < G of partials[b, c], in a fixed order: thread (c, y) sums b = y, y + 16, ...,
// then y = 0 adds the 16 in order; rounded once to T.
template <class T>
__global__ void __launch_bounds__(32 * kFinalRows) rms_bwd_dw_kernel(const float* __restrict__ partials, int64_t g,
                                                                     int64_t cols, T* __restrict__ dw) {
  __shared__ float part[kFinalRows][33];
  wait_for_prerequisite();  // a dependent launch: the partials are complete from here on
  const int64_t c = int64_t(blockIdx.x) * 32 + threadIdx.x;
  float s = 0.f;
  if (c < cols)
    for (int64_t b = threadIdx.y; b < g; b += kFinalRows) s += partials[b * cols + c];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float total = part[0][threadIdx.x];
    for (int y = 1; y < kFinalRows; ++y) total += part[y][threadIdx.x];
    dw[c] = from_float<T>(total);
  }
}

int pow2_at_least(int64_t n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The cached path's shape: tpr threads per row, nv vectors of vec elements per thread (nv == 0: looped).
struct Cfg {
  int tpr;
  int nv;
};
Cfg pick(int64_t cols, int vec) {
  const int64_t nvec = ceil_div(cols, vec);
  const int tpr = int(std::min<int64_t>(kThreads, std::max(32, pow2_at_least(nvec))));
  const int nv = pow2_at_least(ceil_div(nvec, tpr));
  return nv * vec <= max_elems(vec) ? Cfg{tpr, nv} : Cfg{0, 0};
}

template <class K>
int64_t resident(K* kernel, std::size_t smem) {
  int per_sm = 0;
  FW_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem));
  return int64_t(std::max(per_sm, 1)) * sm_count();
}

// Launches the cached kernel for nv (a power of two with nv * VEC <= max_elems(VEC)); returns G.
template <class T, int VEC, int NV>
int64_t launch_cached(int nv, const T* x, const T* w, const T* dy, T* dx, float* partials, int64_t rows,
                      int64_t cols, int tpr, float eps, cudaStream_t stream) {
  if constexpr (NV * VEC > max_elems(VEC)) {
    throw std::invalid_argument("rms_norm_backward: register tile too large");
  } else {
    if (nv > NV) return launch_cached<T, VEC, NV * 2>(nv, x, w, dy, dx, partials, rows, cols, tpr, eps, stream);
    auto* kernel = rms_bwd_cached_kernel<T, VEC, NV>;
    const int rpb = kThreads / tpr;
    const std::size_t smem = rpb > 1 ? std::size_t(rpb) * std::size_t(cols) * sizeof(float) : 0;  // <= 32 KiB
    // Occupancy depends on smem (cols) only: asked once per value, not per call.
    static std::size_t known_smem = ~std::size_t(0);
    static int64_t known_resident = 0;
    if (smem != known_smem) {
      known_resident = resident(kernel, smem);
      known_smem = smem;
    }
    const int64_t g = std::min({ceil_div(rows, rpb), known_resident, kMaxPartials});
    kernel<<<unsigned(g), kThreads, smem, stream>>>(x, w, dy, dx, partials, rows, int(cols), tpr, eps);
    FW_CHECK_LAUNCH();
    return g;
  }
}

}  // namespace

std::size_t rms_norm_backward_workspace_bytes(int64_t rows, int64_t cols) {
  return std::size_t(std::min(rows, kMaxPartials) * cols) * sizeof(float);
}

void rms_norm_backward(opbench::DType dt, const void* x, const void* w, const void* dy, void* dx, void* dw,
                       int64_t rows, int64_t cols, float eps, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream) {
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  FW_REQUIRE(cols < (int64_t(1) << 31) - 64, "row too long (2^31 elements)");
  FW_REQUIRE(x != nullptr && w != nullptr && dy != nullptr && dx != nullptr && dw != nullptr, "null pointer");
  FW_REQUIRE(workspace != nullptr && workspace_bytes >= rms_norm_backward_workspace_bytes(rows, cols),
             "workspace too small for rms_norm_backward (rms_norm_backward_workspace_bytes)");
  FW_REQUIRE((reinterpret_cast<uintptr_t>(workspace) & 15) == 0, "workspace must be 16-byte aligned");
  float* partials = static_cast<float*>(workspace);
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int VEC = vec_of<T>();
    const T* xt = static_cast<const T*>(x);
    const T* wt = static_cast<const T*>(w);
    const T* dyt = static_cast<const T*>(dy);
    T* dxt = static_cast<T*>(dx);
    const bool vec_ok = cols % VEC == 0 && aligned16(x) && aligned16(w) && aligned16(dy) && aligned16(dx);
    const Cfg cfg = pick(cols, vec_ok ? VEC : 1);
    int64_t g;
    if (cfg.nv > 0 && vec_ok) {
      g = launch_cached<T, VEC, 1>(cfg.nv, xt, wt, dyt, dxt, partials, rows, cols, cfg.tpr, eps, stream);
    } else if (cfg.nv > 0) {
      g = launch_cached<T, 1, 1>(cfg.nv, xt, wt, dyt, dxt, partials, rows, cols, cfg.tpr, eps, stream);
    } else {
      static const int64_t looped_resident = resident(rms_bwd_looped_kernel<T>, 0);
      g = std::min({rows, looped_resident, kMaxPartials});
      rms_bwd_looped_kernel<T><<<unsigned(g), kThreads, 0, stream>>>(xt, wt, dyt, dxt, partials, rows, cols, eps);
      FW_CHECK_LAUNCH();
    }
    launch_dependent(rms_bwd_dw_kernel<T>, dim3(unsigned(ceil_div(cols, 32))), dim3(32, kFinalRows), stream,
                     static_cast<const float*>(partials), g, cols, static_cast<T*>(dw));
  });
}

}  // namespace fw
