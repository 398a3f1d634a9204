// Why the GPU tests cannot run here (empty when they can): no CUDA device, or a LibTorch without CUDA.
// Shared by tests/gpu/*.cpp, which skip with this message (scripts/test.sh prints it once).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "src/core/device_info.hpp"
#include "src/reference/reference.hpp"

namespace opbench::testing_gpu {

inline std::string skip_reason() {
  std::string why;
  if (cuda_device_count(&why) == 0) return "no CUDA GPU (" + why + "): GPU tests skipped";
  if (!reference::torch_has_cuda())
    return "LibTorch " + reference::torch_version() + " has no CUDA: GPU tests need a CUDA LibTorch";
  return "";
}

// A GPU test fixture (over testing::Test, or testing::TestWithParam<P>) that skips each test, with the
// reason, where skip_reason() gives one. A fixture overriding SetUp calls this one first and stops when
// IsSkipped().
template <class Base = testing::Test>
class SkipWithoutGpu : public Base {
 protected:
  void SetUp() override {
    static const std::string reason = skip_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

}  // namespace opbench::testing_gpu
