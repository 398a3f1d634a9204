// Element types that problems, kernels and references share. Header-only so that the kernels library
// (which knows nothing else of the harness) can use the same vocabulary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opbench {

enum class DType : int { f32, f16, bf16, f64, i64 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::f64: return 8;
    case DType::i64: return 8;
  }
  return 0;
}

constexpr bool is_floating(DType t) { return t != DType::i64; }

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "fp32";
    case DType::f16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::f64: return "fp64";
    case DType::i64: return "int64";
  }
  return "?";
}

// Accepts the names dtype_name() prints and the common aliases (float32, half, bfloat16, ...).
inline std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp32" || s == "float32" || s == "float" || s == "f32") return DType::f32;
  if (s == "fp16" || s == "float16" || s == "half" || s == "f16") return DType::f16;
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "fp64" || s == "float64" || s == "double" || s == "f64") return DType::f64;
  if (s == "int64" || s == "i64" || s == "long") return DType::i64;
  return std::nullopt;
}

}  // namespace opbench
