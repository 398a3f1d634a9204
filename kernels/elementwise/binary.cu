// Binary element-wise ops on the vectorized engine (engine.cuh): y = f(a, b), b dense or broadcast
// along rows ([N] vector) or columns ([M, 1]).
// Bytes: read a + read b (n, cols or rows elements) + write n. FLOPs: 1 per element.
#include <limits>

#include "kernels/common/check.hpp"
#include "kernels/elementwise/elementwise.hpp"
#include "kernels/elementwise/engine.cuh"
#include "kernels/elementwise/ops.cuh"

namespace fw {
namespace {

template <class T, class F>
void run(F f, const void* a, const void* b, void* y, int64_t rows, int64_t cols, Broadcast bc, cudaStream_t s) {
  const T* ap = static_cast<const T*>(a);
  const T* bp = static_cast<const T*>(b);
  T* yp = static_cast<T*>(y);
  const int64_t n = rows * cols;
  if (bc == Broadcast::none) {
    engine::launch_map(yp, n, {a, b},
                       [&](auto vt, bool) {
                         constexpr int V = decltype(vt)::value;
                         return engine::BinaryMap<F, engine::Dense<T, V>, engine::Dense<T, V>>{f, {ap}, {bp}};
                       },
                       s);
    return;
  }
  FW_REQUIRE(n <= int64_t(std::numeric_limits<uint32_t>::max()), "broadcast ops take at most 2^32 - 1 elements");
  const engine::FastDivmod div{uint32_t(cols)};
  if (bc == Broadcast::row) {
    const bool b_aligned = engine::misalignment(b) == 0;
    engine::launch_map(yp, n, {a},
                       [&](auto vt, bool body_aligned) {
                         constexpr int V = decltype(vt)::value;
                         const bool packed = V > 1 && body_aligned && b_aligned && cols % V == 0;
                         return engine::BinaryMap<F, engine::Dense<T, V>, engine::RowBroadcast<T, V>>{
                             f, {ap}, {bp, div, packed}};
                       },
                       s);
  } else {
    engine::launch_map(yp, n, {a},
                       [&](auto vt, bool body_aligned) {
                         constexpr int V = decltype(vt)::value;
                         const bool packed = V > 1 && body_aligned && cols % V == 0;
                         return engine::BinaryMap<F, engine::Dense<T, V>, engine::ColBroadcast<T, V>>{
                             f, {ap}, {bp, div, packed}};
                       },
                       s);
  }
}

template <class T>
void dispatch(BinaryOp op, const void* a, const void* b, void* y, int64_t rows, int64_t cols, Broadcast bc,
              cudaStream_t s) {
  constexpr bool kShort16 = sizeof(T) == 2;  // an fp16 / bf16 result: ops.cuh's short16 evaluations
  switch (op) {
    case BinaryOp::add: return run<T>(ops::Add{}, a, b, y, rows, cols, bc, s);
    case BinaryOp::sub: return run<T>(ops::Sub{}, a, b, y, rows, cols, bc, s);
    case BinaryOp::mul: return run<T>(ops::Mul{}, a, b, y, rows, cols, bc, s);
    case BinaryOp::div: return run<T>(ops::Div{}, a, b, y, rows, cols, bc, s);
    case BinaryOp::maximum: return run<T>(ops::Maximum{}, a, b, y, rows, cols, bc, s);
    case BinaryOp::pow:
      if constexpr (!kShort16) {
        if (pow_fp32_in_double(rows * cols)) return run<T>(ops::PowTables32{}, a, b, y, rows, cols, bc, s);
      }
      return run<T>(ops::Pow<kShort16>{}, a, b, y, rows, cols, bc, s);
  }
  throw std::invalid_argument("unknown binary op");
}

}  // namespace

// fp32 pow in double arithmetic (ops.cuh, PowTables32) on deep grids only (engine.cuh, deep_grid: 16 waves of
// one-packet blocks, 1.08 M elements on 132 SMs), powf below: there its longer chain of dependent operations an element
// is not hidden. H200 GPU 9786ff58, bench_ops, two turns, us, powf everywhere / double arithmetic everywhere / this
// rule (x120, notes/performance.md, forty-seventh round): 256^2 2.11 / 2.43-2.59 / 2.11, 1024^2 5.73 / 5.84-5.89 /
// 5.71-5.73, 128^3 9.73-9.81 / 9.36-9.41 / 9.34-9.38, 2048^2 15.8-15.9 / 14.6 / 14.5-14.7, 4096^2 54.7-55.7 / 46.5 /
// 46.3-46.4, 8192^2 214 / 183 / 183.
bool pow_fp32_in_double(int64_t n) { return engine::deep_grid(n / int64_t(16 / sizeof(float))); }  // 16-byte packets

void binary(BinaryOp op, DType dt, const void* a, const void* b, void* y, int64_t rows, int64_t cols,
            Broadcast bc, cudaStream_t s) {
  FW_REQUIRE(rows >= 0 && cols > 0, "rows must be >= 0 and cols > 0");
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch<T>(op, a, b, y, rows, cols, bc, s);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
