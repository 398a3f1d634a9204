#!/usr/bin/env bash
# All tests: installs what is missing, builds, runs the CPU unit tests and the GPU tests (which skip,
# saying why, on a machine without a CUDA GPU). Extra arguments go to ctest (e.g. -L unit, -R grade).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_BUILD_DIR" || exit
# ctest lists skipped tests without their reason: say it once here.
reason=$(./tests/test_kernels --gtest_filter='*add_fp32' 2>&1 | grep -E "GPU tests (skipped|need)" | head -n 1 || true)
[ -z "$reason" ] || log "GPU tests will be skipped: $reason"
ctest --output-on-failure --timeout 1800 "$@"
