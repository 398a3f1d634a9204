// bench/: one file per category registers that category (OPBENCH_REGISTER_CATEGORY) and its ops (their
// shapes, bytes, FLOPs, tolerances and the framework launcher). LibTorch and vendor references are
// attached by name afterwards (src/reference/), so a category file never sees LibTorch.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "opbench/op.hpp"
#include "opbench/registry.hpp"

namespace opbench::bench {

// A new op with the defaults most ops share: the size-class shapes, all three float dtypes, odd test
// shapes and elementwise_tolerance. The caller sets io, bytes, flops and impls[0] (framework_impl).
OpDef make_op(const std::string& name, Category c, const std::string& description);

// Wraps a launcher that only needs the bindings into the framework Impl; `kernel`, when given, names the
// kernel or path the launcher will take for these bindings (shown in the report).
Impl framework_impl(std::function<void(const Bindings&, cudaStream_t)> launcher,
                    std::function<std::string(const Bindings&)> kernel = {});

// Tolerance helpers (shape-independent ones; ops whose error grows with a dimension write their own).
Tolerance elementwise_tolerance(const Shape&, DType t);  // one rounding of the output
Tolerance reduction_tolerance(const Shape&, DType t);    // accumulated in fp32, rounded once

// Row-wise ops (softmax, norms, losses, last-dim reductions): the class's standard shapes, then the
// `extra` shapes whose element count falls in the class (after the standard ones, so --fast keeps those).
std::vector<Shape> rowwise_shapes(SizeClass c, const std::vector<Shape>& extra);
// Transformer activations: rows 4096 and 16384 x hidden 768, 896, 1024, 4096, 8192, and [1, 262144].
const std::vector<Shape>& transformer_shapes();

// The shapes GPU tests run every op on unless the op says otherwise: 1, 3, 4097, 1023x1025, 1x65537,
// 65537x1, 16x5003, 257x24, 999x100, and more short rows than one wave holds (20001x256, 20001x200, 40001x40).
const std::vector<Shape>& odd_shapes();
// odd_shapes() followed by an op's own test shapes.
std::vector<Shape> odd_shapes_and(const std::vector<Shape>& extra);
// More rows than one wave of the 4-deep row kernel holds, of 65..128 aligned 16-byte vectors (kShortRowMaxVectors) in
// each dtype (for 16-bit and for fp32, one shape of up to 112 vectors and one past it): the short-row kernel's 16 lanes
// of up to eight vectors. Also the special-value GPU tests' (test_special_vs_torch); test_reduce_plans checks that
// they reach that layout.
const std::vector<Shape>& eight_vector_row_shapes();
// odd_shapes() and rows of three vectors a lane on row_apply.cuh's warp path, the last one partial in some lanes:
// 1001x760 (16-bit, 16-byte vectors), 1001x360 (fp32, 16-byte vectors), 1001x90 (element by element): the test
// shapes of softmax, log_softmax, layer_norm and rms_norm.
std::vector<Shape> row_apply_test_shapes();
// odd_shapes() and eight_vector_row_shapes() (the last-dim row reductions' and cross_entropy's test shapes).
std::vector<Shape> row_reduction_test_shapes();

}  // namespace opbench::bench
