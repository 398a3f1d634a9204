// The layout category: ops that only move bits (kernels/layout/). Correctness is bit-exact: tolerance
// {0, 0}. How each op reads a problem shape s (n = numel(s), z = dtype size, [R, C] = as_rows(s)):
//   copy          x.clone() of s.                                          bytes 2 n z (read + write)
//   transpose     [.., M, N] → [.., N, M] on the last two dims; a 1-D [N] reads as [1, N].   2 n z
//   permute_0213  [B, S, H, D] → [B, H, S, D] on 4-D shapes; a 2-D/3-D shape is read as 4-D by splitting
//                 its last dim into heads of 64 (see read_bshd).                         2 n z
//   cat_dim0      two inputs of shape s, concatenated along dim 0.     4 n z (read 2 n, write 2 n)
//   cat_last      two inputs of shape s, concatenated along the last dim.                4 n z
//   slice         x.narrow(-1, C/4, max(C/2, 1)) materialized (source rows start unaligned when
//                 (C/4) z % 16 != 0).                                      2 R L z, L = max(C/2, 1)
//   gather        R int64 indices into a table of V = R rows of C elements (table [R, C] → out [R, C];
//                 V = R keeps the table the size of the output).           2 R C z + 8 R
//   expand        [1, C] → [R, C] materialized (output shape s; a 1-D [C] reads as [1, C]).  (C + n) z
// FLOPs: 0 for all.
#include <cmath>
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/categories.hpp"
#include "kernels/layout/layout.hpp"

namespace opbench::bench {

const Category kLayout{"layout"};
namespace {

namespace L = fw::layout;
const Init kValues = Init::uniform(-1, 1);

Tolerance exact(const Shape&, DType) { return {0, 0}; }
double no_flops(const Shape&, DType) { return 0; }

[[noreturn]] void bad_shape(const std::string& op, const std::string& expects, const Shape& s) {
  throw std::invalid_argument(op + " expects " + expects + "; got " + (s.empty() ? "a scalar" : shape_str(s)));
}

// [.., M, N] with at least 2 dims (a 1-D [N] is [1, N], as as_rows reads it).
Shape as_matrix(const std::string& op, const Shape& s) {
  if (s.size() >= 2) return s;
  if (s.size() == 1) return {1, s[0]};
  bad_shape(op, "a shape of at least 1 dim", s);
}

// permute_0213's [B, S, H, D]: 4-D as given; [M, N] → [1, M, N/64, 64] and [a, b, c] → [a, b, c/64, 64]
// when the last dim is a multiple of 64 (heads of 64, Qwen2.5-0.5B's head size); nothing otherwise.
std::optional<Shape> read_bshd(const Shape& s) {
  constexpr int64_t kHead = 64;
  if (s.size() == 4) return s;
  if (s.size() == 2 && s[1] % kHead == 0) return Shape{1, s[0], s[1] / kHead, kHead};
  if (s.size() == 3 && s[2] % kHead == 0) return Shape{s[0], s[1], s[2] / kHead, kHead};
  return std::nullopt;
}

Shape bshd(const Shape& s) {
  auto b = read_bshd(s);
  if (!b)
    bad_shape("permute_0213",
              "a 4-D shape [B, S, H, D], or a 2-D [M, N] / 3-D [a, b, c] shape whose last dim is a multiple "
              "of 64 (read as [1, M, N/64, 64] / [a, b, c/64, 64])",
              s);
  return *b;
}

// slice's narrow of the last dim.
struct Narrow {
  int64_t start, length;
};
Narrow narrow_of(int64_t cols) { return {cols / 4, std::max<int64_t>(cols / 2, 1)}; }

void add_copy(Registry& r) {
  OpDef d = make_op("copy", kLayout, "x.clone()");
  d.io = [](const Shape& s, DType t) {
    if (s.empty()) bad_shape("copy", "a shape of at least 1 dim", s);
    return OpIO{{{s, t, kValues}}, {{s, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return 2.0 * numel(s) * dtype_size(t); };
  d.flops = no_flops;
  d.tolerance = exact;
  d.test_shapes = [] { return odd_shapes_and({{2, 3, 5}}); };
  d.impls = {framework_impl([](const Bindings& b, cudaStream_t st) {
    L::copy(b.in[0].data, b.out[0].data, b.in[0].numel(), b.in[0].dtype, st);
  })};
  r.add(std::move(d));
}

void add_transpose(Registry& r) {
  OpDef d = make_op("transpose", kLayout, "x.transpose(-1, -2).contiguous()");
  d.io = [](const Shape& s, DType t) {
    const Shape in = as_matrix("transpose", s);
    Shape out = in;
    std::swap(out[out.size() - 1], out[out.size() - 2]);
    return OpIO{{{in, t, kValues}}, {{out, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return 2.0 * numel(s) * dtype_size(t); };
  d.flops = no_flops;
  d.tolerance = exact;
  // {3, 40, 200}, {2, 96, 48}, {2, 24, 100}: edge tiles whose V x V sub-blocks lie partly outside the plane
  d.test_shapes = [] {
    return odd_shapes_and(
        {{3, 65, 33}, {2, 128, 256}, {2, 129, 257}, {5, 64, 64}, {136, 72}, {3, 40, 200}, {2, 96, 48}, {2, 24, 100}});
  };
  d.impls = {framework_impl([](const Bindings& b, cudaStream_t st) {
    const Shape& s = b.in[0].shape;
    const int64_t M = s[s.size() - 2], N = s[s.size() - 1];
    const int64_t batch = M * N == 0 ? 0 : b.in[0].numel() / (M * N);
    L::transpose_last2(b.in[0].data, b.out[0].data, batch, M, N, b.in[0].dtype, st);
  })};
  r.add(std::move(d));
}

void add_permute(Registry& r) {
  OpDef d = make_op("permute_0213", kLayout, "x.permute({0, 2, 1, 3}).contiguous(), [B,S,H,D] -> [B,H,S,D]");
  // The 4-D reading of each size-class shape that has one (those whose last dim is not a multiple of 64,
  // e.g. 32x32x32, are left out), and in the batch class also Qwen2.5-0.5B's attention layouts:
  // [8, 1024, 32, 128] and [4, 2048, 14, 64].
  d.shapes = [](SizeClass sc) {
    std::vector<Shape> v;
    for (const Shape& s : size_class_shapes(sc))
      if (auto b = read_bshd(s); b && std::find(v.begin(), v.end(), *b) == v.end()) v.push_back(*b);
    if (sc == SizeClass::batch)
      for (Shape q : {Shape{8, 1024, 32, 128}, Shape{4, 2048, 14, 64}})
        if (std::find(v.begin(), v.end(), q) == v.end()) v.push_back(q);
    return v;
  };
  d.io = [](const Shape& s, DType t) {
    const Shape in = bshd(s);
    return OpIO{{{in, t, kValues}}, {{{in[0], in[2], in[1], in[3]}, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return 2.0 * numel(s) * dtype_size(t); };
  d.flops = no_flops;
  d.tolerance = exact;
  d.test_shapes = [] {
    return std::vector<Shape>{{2, 3, 5, 7},  {1, 1, 1, 1}, {3, 17, 5, 64}, {2, 33, 3, 8},
                              {2, 5, 1, 9},  {1, 4, 2, 64}, {2, 7, 3, 1},  {3, 128}};
  };
  d.impls = {framework_impl([](const Bindings& b, cudaStream_t st) {
    const Shape& s = b.in[0].shape;
    L::permute_0213(b.in[0].data, b.out[0].data, s[0], s[1], s[2], s[3], b.in[0].dtype, st);
  })};
  r.add(std::move(d));
}

void add_cat(Registry& r, const std::string& name, bool last) {
  OpDef d = make_op(name, kLayout,
                    last ? "at::cat_out(out, {a, b}, -1)" : "at::cat_out(out, {a, b}, 0)");
  d.io = [name, last](const Shape& s, DType t) {
    if (s.empty()) bad_shape(name, "a shape of at least 1 dim", s);
    Shape out = s;
    (last ? out.back() : out.front()) *= 2;
    return OpIO{{{s, t, kValues}, {s, t, kValues}}, {{out, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return 4.0 * numel(s) * dtype_size(t); };
  d.flops = no_flops;
  d.tolerance = exact;
  d.test_shapes = [] { return odd_shapes_and({{2, 3, 5}}); };
  d.impls = {framework_impl([last](const Bindings& b, cudaStream_t st) {
    const int64_t na = b.in[0].numel(), nb = b.in[1].numel();
    if (last) {
      const int64_t ca = b.in[0].shape.back(), cb = b.in[1].shape.back();
      L::cat2(b.in[0].data, b.in[1].data, b.out[0].data, ca == 0 ? 0 : na / ca, ca, cb, b.in[0].dtype, st);
    } else {
      L::cat2(b.in[0].data, b.in[1].data, b.out[0].data, 1, na, nb, b.in[0].dtype, st);
    }
  })};
  r.add(std::move(d));
}

void add_slice(Registry& r) {
  OpDef d = make_op("slice", kLayout, "x.narrow(-1, N/4, N/2).contiguous()");
  d.io = [](const Shape& s, DType t) {
    if (s.empty()) bad_shape("slice", "a shape of at least 1 dim", s);
    const Narrow nw = narrow_of(s.back());
    Shape out = s;
    out.back() = nw.length;
    return OpIO{{{s, t, kValues}}, {{out, t}}, {{"start", double(nw.start)}, {"length", double(nw.length)}}, 0};
  };
  d.bytes = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    return 2.0 * rc.rows * narrow_of(rc.cols).length * dtype_size(t);
  };
  d.flops = no_flops;
  d.tolerance = exact;
  d.test_shapes = [] { return odd_shapes_and({{2, 3, 5}, {37, 100}}); };
  d.impls = {framework_impl([](const Bindings& b, cudaStream_t st) {
    const Rows rc = as_rows(b.in[0].shape);
    L::narrow_last(b.in[0].data, b.out[0].data, rc.rows, rc.cols, int64_t(b.params.get("start")),
                   int64_t(b.params.get("length")), b.in[0].dtype, st);
  })};
  r.add(std::move(d));
}

void add_gather(Registry& r) {
  OpDef d = make_op("gather", kLayout, "at::index_select_out(out, table, 0, idx) (embedding lookup)");
  d.io = [](const Shape& s, DType t) {
    if (s.empty()) bad_shape("gather", "a shape [N, D] (N indices into a table of N rows of D)", s);
    const Rows rc = as_rows(s);
    const int64_t vocab = rc.rows;
    return OpIO{{{{vocab, rc.cols}, t, kValues}, {{rc.rows}, DType::i64, Init::integers(0, vocab)}},
                {{{rc.rows, rc.cols}, t}},
                {},
                0};
  };
  // N indices drawn uniformly (with repeats) from N table rows: a perfect kernel reads each distinct
  // row once, N (1 - (1 - 1/N)^N) ~ 0.632 N of them in expectation, writes N rows and reads N indices.
  // (Counting every gathered row put LibTorch's gather above the H100's theoretical bandwidth,
  // 3455 GB/s, in the full suite of commit 9dd6288: the repeats come from L2.)
  d.bytes = [](const Shape& s, DType t) {
    const Rows rc = as_rows(s);
    const double n = double(rc.rows);
    const double distinct = n * (1.0 - std::pow(1.0 - 1.0 / n, n));
    return (distinct + n) * double(rc.cols) * double(dtype_size(t)) + 8.0 * n;
  };
  d.flops = no_flops;
  d.tolerance = exact;
  // {16384, 1544}: rows enough to fill L2 (50 MB in bf16), which the kernel walks slab-major (row_copy.cu),
  // the last slab part-filled; misaligned, row by row. {131075, 256}: rows too many for a 256-byte slab's pass
  // (67 MB) to fit L2: in fp32 (1 KB rows) walked window-major on a GPU of up to 64 MB of L2, the last window and
  // the last 32-row group part-filled; in 16 bits (512-byte rows) slab-major.
  d.test_shapes = [] { return odd_shapes_and({{257, 64}, {100, 3}, {2, 3, 5}, {16384, 1544}, {131075, 256}}); };
  d.impls = {framework_impl(
      [](const Bindings& b, cudaStream_t st) {
        const TensorView& table = b.in[0];
        L::gather_rows(table.data, b.in[1].as<const int64_t>(), b.out[0].data, table.shape[0], b.in[1].numel(),
                       table.shape[1], table.dtype, st);
      },
      [](const Bindings& b) {
        return L::gather_rows_kernel(b.in[0].data, b.out[0].data, b.in[0].shape[0], b.in[1].numel(), b.in[0].shape[1],
                                     b.in[0].dtype);
      })};
  r.add(std::move(d));
}

void add_expand(Registry& r) {
  OpDef d = make_op("expand", kLayout, "x.expand({M, N}).contiguous(), x [1, N]");
  d.io = [](const Shape& s, DType t) {
    const Shape out = as_matrix("expand", s);
    return OpIO{{{{1, out.back()}, t, kValues}}, {{out, t}}, {}, 0};
  };
  d.bytes = [](const Shape& s, DType t) { return double(as_rows(s).cols + numel(s)) * dtype_size(t); };
  d.flops = no_flops;
  d.tolerance = exact;
  d.test_shapes = [] { return odd_shapes_and({{3, 7, 5}, {100, 8}}); };
  d.impls = {framework_impl([](const Bindings& b, cudaStream_t st) {
    const int64_t n = b.in[0].numel();
    L::expand_rows(b.in[0].data, b.out[0].data, n == 0 ? 0 : b.out[0].numel() / n, n, b.in[0].dtype, st);
  })};
  r.add(std::move(d));
}

}  // namespace

namespace {

void register_layout(Registry& r) {
  add_copy(r);
  add_transpose(r);
  add_permute(r);
  add_cat(r, "cat_dim0", false);
  add_cat(r, "cat_last", true);
  add_slice(r);
  add_gather(r);
  add_expand(r);
}

}  // namespace

OPBENCH_REGISTER_CATEGORY({kLayout, 70, "copies, transposes, permutes, cat, slice, gather, expand", {"shape", "tensor", "memory"}, register_layout});

}  // namespace opbench::bench
