// Unary element-wise ops and activations on the vectorized engine (engine.cuh): y = f(x).
// Bytes: read n + write n elements. FLOPs: counted as 1 per element (transcendentals included).
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/elementwise/elementwise.hpp"
#include "kernels/elementwise/engine.cuh"
#include "kernels/elementwise/ops.cuh"

namespace fw {
namespace {

template <class T, class F>
void run(F f, const void* x, void* y, int64_t n, cudaStream_t s) {
  const T* xp = static_cast<const T*>(x);
  engine::launch_map(static_cast<T*>(y), n, {x},
                     [&](auto vt, bool) {
                       constexpr int V = decltype(vt)::value;
                       return engine::UnaryMap<F, engine::Dense<T, V>>{f, {xp}};
                     },
                     s);
}

// x ** c: a half-integer c from -2 to 2 by products and a square root, one kernel each (ops::PowHalfSteps).
template <class T>
void pow_scalar(float c, const void* x, void* y, int64_t n, cudaStream_t s) {
  switch (ops::half_steps_of(c)) {
    case -4: return run<T>(ops::PowHalfSteps<-4>{c}, x, y, n, s);
    case -3: return run<T>(ops::PowHalfSteps<-3>{c}, x, y, n, s);
    case -2: return run<T>(ops::PowHalfSteps<-2>{c}, x, y, n, s);
    case -1: return run<T>(ops::PowHalfSteps<-1>{c}, x, y, n, s);
    case 1: return run<T>(ops::PowHalfSteps<1>{c}, x, y, n, s);
    case 2: return run<T>(ops::PowHalfSteps<2>{c}, x, y, n, s);
    case 3: return run<T>(ops::PowHalfSteps<3>{c}, x, y, n, s);
    case 4: return run<T>(ops::PowHalfSteps<4>{c}, x, y, n, s);
    default: return run<T>(ops::PowScalar<sizeof(T) == 2>{c}, x, y, n, s);
  }
}

template <class T>
void dispatch(UnaryOp op, const void* x, void* y, int64_t n, float c, cudaStream_t s) {
  constexpr bool kShort16 = sizeof(T) == 2;  // an fp16 / bf16 result: ops.cuh's short16 evaluations
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  switch (op) {
    case UnaryOp::neg: return run<T>(ops::Neg{}, x, y, n, s);
    case UnaryOp::abs: return run<T>(ops::Abs{}, x, y, n, s);
    case UnaryOp::exp: return run<T>(ops::Exp{}, x, y, n, s);
    case UnaryOp::log: return run<T>(ops::Log<kShort16>{}, x, y, n, s);
    case UnaryOp::sqrt: return run<T>(ops::Sqrt{}, x, y, n, s);
    case UnaryOp::rsqrt: return run<T>(ops::Rsqrt{}, x, y, n, s);
    case UnaryOp::sin: return run<T>(ops::Sin<kShort16, kBf16>{}, x, y, n, s);
    case UnaryOp::cos: return run<T>(ops::Cos<kShort16, kBf16>{}, x, y, n, s);
    case UnaryOp::add_scalar: return run<T>(ops::AddScalar{c}, x, y, n, s);
    case UnaryOp::mul_scalar: return run<T>(ops::MulScalar{c}, x, y, n, s);
    case UnaryOp::pow_scalar: return pow_scalar<T>(c, x, y, n, s);
    case UnaryOp::relu: return run<T>(ops::Relu{}, x, y, n, s);
    case UnaryOp::leaky_relu: return run<T>(ops::LeakyRelu{c}, x, y, n, s);
    case UnaryOp::sigmoid: return run<T>(ops::Sigmoid<kShort16>{}, x, y, n, s);
    case UnaryOp::tanh: return run<T>(ops::Tanh{}, x, y, n, s);
    case UnaryOp::gelu: return run<T>(ops::Gelu<kShort16>{}, x, y, n, s);
    case UnaryOp::gelu_tanh: return run<T>(ops::GeluTanh<kShort16>{}, x, y, n, s);
    case UnaryOp::silu: return run<T>(ops::Silu<kShort16>{}, x, y, n, s);
    case UnaryOp::softplus: return run<T>(ops::Softplus<kShort16>{}, x, y, n, s);
  }
  throw std::invalid_argument("unknown unary op");
}

}  // namespace

void unary(UnaryOp op, DType dt, const void* x, void* y, int64_t n, float scalar, cudaStream_t s) {
  dispatch_float(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch<T>(op, x, y, n, scalar, s);
  });
  FW_CHECK_LAUNCH();
}

}  // namespace fw
