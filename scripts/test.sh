#!/usr/bin/env bash
# All tests: installs what is missing, builds, runs the CPU unit tests and the GPU tests (which skip,
# saying why, on a machine without a CUDA GPU). Extra arguments go to ctest (e.g. -L unit, -R grade).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_BUILD_DIR"
ctest --output-on-failure --timeout 1800 "$@"
