// cross_entropy backward of the mean loss (loss.hpp):
//   dlogits[r, c] = grad_scale / rows * (softmax(logits[r])[c] - [c == target[r]]).
// One block per row, two passes over it: the first an online (max, sum of exp) (the reduction engine's
// range_accumulate with LseOps, as the forward's), merged across the block; the second re-reads the row
// (from L2 when the rows in flight fit in it) and writes exp(x - m) * scale / (rows * s), minus the scale
// at the target column (p - 1 formed in fp32, then rounded once). A target outside [0, cols) makes the
// whole row NaN (the forward's loss is NaN then too).
// Bytes: 2 * rows*cols*s + rows*8 (targets); e.g. 4096x151936 bf16: 2.49 GB -> ~830 us at ~3.0 TB/s.
// FLOPs ~7 per logit (max, fma, ex2, add; fma, ex2, mul): memory bound.
// logits and dlogits are not __restrict__: dlogits == logits is allowed (every element is read, in the
// second pass, by the thread that then writes it, after the whole block finished the first pass).
#include "kernels/loss/loss.hpp"
#include "kernels/reduction/row_engine.cuh"

namespace fw {
namespace {

using namespace rowwise;

constexpr int kMaxThreads = 1024;

template <class T>
__device__ __forceinline__ float ce_grad(float v, int64_t c, int64_t target, float ml, float inv, float scale) {
  const float e = ex2(fmaf(v, kLog2e, -ml)) * inv;
  return c == target ? e - scale : e;
}

template <class T>
__global__ void __launch_bounds__(kMaxThreads) ce_backward_kernel(const T* logits, const int64_t* __restrict__ targets,
                                                                  T* dlogits, int64_t cols, float scale) {
  const int64_t row = blockIdx.x;
  const T* xr = logits + row * cols;
  T* yr = dlogits + row * cols;
  const int t = int(threadIdx.x), nt = int(blockDim.x);
  const LseOps ops;
  LseState st = ops.init(row);
  range_accumulate<kUnroll, true>(xr, int(cols), 0, t, nt, ops, st);
  st = block_allreduce(st, [&](const LseState& a, const LseState& b) { return ops.combine(a, b); },
                       LseState{-INFINITY, 0.f});
  const int64_t target = targets[row];
  const float ml = st.m * kLog2e;
  // scale / s folds the normalization and the mean's 1/rows into one multiply.
  const float inv = (target >= 0 && target < cols) ? scale / st.s : NAN;

  constexpr int VEC = vec_of<T>();
  const int ph = int(reinterpret_cast<uintptr_t>(xr) & 15);
  auto one = [&](int64_t c) { yr[c] = from_float<T>(ce_grad<T>(to_float(xr[c]), c, target, ml, inv, scale)); };
  if (int(reinterpret_cast<uintptr_t>(yr) & 15) != ph) {  // different 16-byte phases: element by element
    for (int64_t c = t; c < cols; c += nt) one(c);
    return;
  }
  int64_t head = int64_t(((16 - ph) & 15) / int(sizeof(T)));
  if (head > cols) head = cols;
  if (t < head) one(t);
  const int64_t nvec = (cols - head) / VEC;
  for (int64_t i = t; i < nvec; i += int64_t(kUnroll) * nt) {
    Packet<T, VEC> raw[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * nt < nvec) raw[u] = load_raw<T, VEC>(xr + head + (i + u * nt) * VEC);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t k = i + u * nt;
      if (k < nvec) {
        float v[VEC];
        unpack_words<T, VEC>(raw[u], v);
        const int64_t c0 = head + k * VEC;
#pragma unroll
        for (int j = 0; j < VEC; ++j) v[j] = ce_grad<T>(v[j], c0 + j, target, ml, inv, scale);
        store_vec<T, VEC>(yr + c0, v);
      }
    }
  }
  const int64_t tail0 = head + nvec * VEC;
  if (tail0 + t < cols) one(tail0 + t);
}

// Threads per row: enough that each holds about kUnroll vectors of a short row (one round of loads in
// flight), up to a full block for long rows.
int threads_for(int64_t cols, int vec) {
  int n = 64;
  while (n < kMaxThreads && int64_t(n) * vec * kUnroll < cols) n *= 2;
  return n;
}

}  // namespace

void cross_entropy_backward(opbench::DType dt, const void* logits, const int64_t* targets, void* dlogits,
                            int64_t rows, int64_t cols, float grad_scale, cudaStream_t stream) {
  FW_REQUIRE(rows > 0 && cols > 0, "empty tensor");
  FW_REQUIRE(logits != nullptr && targets != nullptr && dlogits != nullptr, "null pointer");
  FW_REQUIRE(cols < (int64_t(1) << 31) - 64, "row too long (2^31 elements)");
  FW_REQUIRE(rows < (int64_t(1) << 31), "too many rows");
  const float scale = float(double(grad_scale) / double(rows));
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int threads = threads_for(cols, vec_of<T>());
    ce_backward_kernel<T><<<unsigned(rows), threads, 0, stream>>>(static_cast<const T*>(logits), targets,
                                                                  static_cast<T*>(dlogits), cols, scale);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
