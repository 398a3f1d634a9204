// The matmul category: matmul, bmm, linear. Framework kernels in kernels/matmul (fw::gemm).
//
// Problem shapes (the Shape a problem carries; io() throws std::invalid_argument for any other rank):
//   matmul  {M, N, K}     A[M,K] @ B[K,N] -> C[M,N]                  (all row-major, contiguous)
//   linear  {M, N, K}     x[M,K] @ W[N,K]^T + b[N] -> y[M,N]         (bias fused in the epilogue)
//   bmm     {B, M, N, K}  A[B,M,K] @ B[B,K,N] -> C[B,M,N]
// RunSettings::tf32 (--tf32): when set, LibTorch, cuBLAS and the framework (fw::gemm's TF32 path) all
// run fp32 on TF32 tensor cores; otherwise all three are true fp32. The framework row names the kernel
// path fw::gemm chose (fw::gemm_path).
//
// Size classes, by FLOPs (2*B*M*N*K): small <= ~2 GFLOP (squares 256..1024, decode-like M = 1, 16, 64
// with N = K = 4096), medium ~17-36 GFLOP (2048^3, the Qwen2.5-0.5B MLP projections at 4096 tokens),
// large ~140-370 GFLOP (4096^3, 4096x11008x4096), very_large 8192^3 (1.1 TFLOP). bmm has its own list
// per class; its "batch" class holds the attention-like products (32 heads of 512^3, and
// [32*14, 1024, 64] @ [32*14, 64, 1024]). matmul/linear have no "batch" shapes.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bench/categories.hpp"
#include "kernels/matmul/matmul.hpp"

namespace opbench::bench {

const Category kMatmul{"matmul"};
namespace {

struct Dims {
  int64_t batch, M, N, K;
};

Dims dims_of(const std::string& op, const Shape& s) {
  if (op == "bmm") {
    if (s.size() != 4) throw std::invalid_argument("bmm takes a shape {B, M, N, K}, got " + shape_str(s));
    return {s[0], s[1], s[2], s[3]};
  }
  if (s.size() != 3) throw std::invalid_argument(op + " takes a shape {M, N, K}, got " + shape_str(s));
  return {1, s[0], s[1], s[2]};
}

// Output scale for inputs uniform in [-1, 1): each product has variance 1/9, so |C| ~ sqrt(K)/3.
// fp32 (true fp32, sequential fp32 accumulation in both implementations): rounding error of the sum
// grows ~ u*sqrt(K) relative to that scale (about 2e-6 at K = 8192); 1e-4 of the scale leaves margin.
// fp16 / bf16: fp32 accumulation, one rounding of the output (half an ulp: 2^-11 / 2^-8 relative), and
// against LibTorch up to one ulp apart; atol covers outputs near zero.
Tolerance gemm_tolerance(const std::string& op, const Shape& s, DType t) {
  const Dims d = dims_of(op, s);
  const double scale = std::sqrt(double(d.K > 0 ? d.K : 1)) / 3.0;
  switch (t) {
    case DType::f32: return {1e-4 * scale, 1e-4};
    case DType::f16: return {2e-3 * scale, 2e-3};
    case DType::bf16: return {1.6e-2 * scale, 1.6e-2};
    default: break;
  }
  return {1e-6 * scale, 1e-6};
}

std::vector<Shape> mm_shapes(SizeClass c) {
  switch (c) {
    case SizeClass::small:
      return {{1024, 1024, 1024}, {64, 4096, 4096}, {512, 512, 512}, {256, 256, 256}, {1, 4096, 4096}, {16, 4096, 4096}};
    case SizeClass::medium: return {{2048, 2048, 2048}, {4096, 4864, 896}, {4096, 896, 4864}};
    case SizeClass::large: return {{4096, 4096, 4096}, {4096, 11008, 4096}};
    case SizeClass::very_large: return {{8192, 8192, 8192}};
    default: break;
  }
  return {};
}

std::vector<Shape> bmm_shapes(SizeClass c) {
  switch (c) {
    case SizeClass::small: return {{8, 256, 256, 256}, {8, 512, 512, 512}};
    case SizeClass::medium: return {{8, 1024, 1024, 1024}, {4, 2048, 2048, 2048}};
    case SizeClass::large: return {{8, 2048, 2048, 2048}, {4, 4096, 4096, 4096}};
    case SizeClass::very_large: return {{8, 4096, 4096, 4096}};
    case SizeClass::batch: return {{32, 512, 512, 512}, {448, 1024, 1024, 64}};
    default: break;
  }
  return {};
}

// Tails, K = 1, a single row, K not a multiple of 8 (the portable path), aligned odd shapes (the TMA
// path with partial tiles), and few-row shapes with 16-byte rows and tails (the fp32 streaming kernel's
// 1-, 4- and 16-row variants), and single rows for the cluster GEMV (column and K tails; clusters of 8, 4
// and 2 CTAs, in 16 bits and in fp32), a single row for the strip GEMV (a partial last strip, K not a multiple
// of a round's rows, in 16 bits and in fp32), and fp32 SIMT shapes split into 8 K chunks added
// atomically (partial rows and columns, K not a multiple of the k-block) and into 4 that form a cluster.
std::vector<Shape> mm_test_shapes() {
  return {{1000, 1000, 1000}, {4095, 257, 513}, {64, 64, 1}, {1, 4096, 4096}, {17, 33, 4095}, {300, 520, 136},
          {16, 1031, 1030}, {5, 4097, 777}, {3, 300, 5000}, {12, 1028, 1036},
          {1, 2312, 1032}, {1, 11000, 1024}, {1, 17000, 1032}, {50, 1000, 1032}, {64, 500, 520}, {1, 4000, 4104}};
}

// One fw::gemm call from a problem's bindings: matmul and bmm take B as [K, N], linear W as [N, K] with
// a bias.
struct GemmCall {
  DType dt;
  fw::GemmLayout layout;
  const void *A, *B, *bias;
  void* C;
  Dims d;
  bool tf32;
};

GemmCall gemm_call(const std::string& op, const Bindings& b) {
  const bool linear = op == "linear";
  const Shape& a = b.in[0].shape;  // [M, K] or [B, M, K]
  const Shape& w = b.in[1].shape;  // [K, N], [B, K, N] or (linear) [N, K]
  const Dims d = op == "bmm" ? Dims{a[0], a[1], w[2], a[2]} : Dims{1, a[0], linear ? w[0] : w[1], a[1]};
  return {b.in[0].dtype, linear ? fw::GemmLayout::nk : fw::GemmLayout::kn, b.in[0].data, b.in[1].data,
          linear ? b.in[2].data : nullptr, b.out[0].data, d, b.settings.tf32};
}

OpDef make_gemm_op(const std::string& name, const std::string& description) {
  OpDef op = make_op(name, kMatmul, description);
  const bool is_linear = name == "linear";
  const bool is_bmm = name == "bmm";
  op.shapes = is_bmm ? bmm_shapes : mm_shapes;
  op.test_shapes = is_bmm ? [] { return std::vector<Shape>{{3, 1000, 1000, 64}, {2, 65, 130, 72}, {4, 128, 256, 192}}; }
                          : mm_test_shapes;
  op.io = [name, is_linear, is_bmm](const Shape& s, DType t) {
    const Dims d = dims_of(name, s);
    if (d.batch < 1 || d.M < 1 || d.N < 1 || d.K < 1)
      throw std::invalid_argument(name + ": every dimension must be at least 1, got " + shape_str(s));
    const Init u = Init::uniform(-1.0, 1.0);
    OpIO io;
    if (is_bmm) {
      io.inputs = {{{d.batch, d.M, d.K}, t, u}, {{d.batch, d.K, d.N}, t, u}};
      io.outputs = {{{d.batch, d.M, d.N}, t, u}};
    } else if (is_linear) {
      io.inputs = {{{d.M, d.K}, t, u}, {{d.N, d.K}, t, u}, {{d.N}, t, u}};
      io.outputs = {{{d.M, d.N}, t, u}};
    } else {
      io.inputs = {{{d.M, d.K}, t, u}, {{d.K, d.N}, t, u}};
      io.outputs = {{{d.M, d.N}, t, u}};
    }
    return io;
  };
  // Each operand read once, the output written once: (M*K + K*N + M*N) * batch elements, + N for the
  // bias of linear.
  op.bytes = [name, is_linear](const Shape& s, DType t) {
    const Dims d = dims_of(name, s);
    const double elems = double(d.batch) * (double(d.M) * d.K + double(d.K) * d.N + double(d.M) * d.N) +
                         (is_linear ? double(d.N) : 0.0);
    return elems * double(dtype_size(t));
  };
  // 2*B*M*N*K (the bias add, M*N, is not counted).
  op.flops = [name](const Shape& s, DType) {
    const Dims d = dims_of(name, s);
    return 2.0 * double(d.batch) * double(d.M) * double(d.N) * double(d.K);
  };
  op.tolerance = [name](const Shape& s, DType t) { return gemm_tolerance(name, s, t); };
  // --tf32: LibTorch and cuBLAS round fp32 inputs to TF32 (10-bit mantissa, u = 2^-11 ~ 4.9e-4), so
  // their results sit ~u*sqrt(K) of the output scale from the exact product.
  op.tf32_tolerance = [name](const Shape& s) {
    const double scale = std::sqrt(double(std::max<int64_t>(dims_of(name, s).K, 1))) / 3.0;
    return Tolerance{5e-3 * scale, 5e-3};
  };

  op.impls = {framework_impl(
      [name](const Bindings& b, cudaStream_t st) {
        const GemmCall g = gemm_call(name, b);
        fw::gemm(g.dt, g.layout, g.A, g.B, g.bias, g.C, g.d.batch, g.d.M, g.d.N, g.d.K, g.tf32, st);
      },
      [name](const Bindings& b) {
        const GemmCall g = gemm_call(name, b);
        return fw::gemm_path(g.dt, g.layout, g.A, g.B, g.C, g.d.batch, g.d.M, g.d.N, g.d.K, g.tf32);
      })};
  return op;
}

}  // namespace

namespace {

void register_matmul(Registry& r) {
  r.add(make_gemm_op("matmul", "C = A @ B; A [M,K], B [K,N] row-major; shape {M, N, K}"));
  r.add(make_gemm_op("bmm", "C[b] = A[b] @ B[b]; A [B,M,K], B [B,K,N]; shape {B, M, N, K}"));
  r.add(make_gemm_op("linear", "y = x @ W^T + b; x [M,K], W [N,K], b [N]; shape {M, N, K}"));
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kMatmul, 60, "matmul, bmm, linear", {"matrix"}, register_matmul});

}  // namespace opbench::bench
