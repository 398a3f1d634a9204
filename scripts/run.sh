#!/usr/bin/env bash
# The main job: builds if needed, runs every category in fp32 and bf16, writes a timestamped Markdown
# and JSON report into docs/benchmark/ and refreshes docs/benchmark/README.md.
# Extra arguments go to bench_ops (e.g. --fast, --category element, --output-dir DIR).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_ROOT"
exec "$OPBENCH_BUILD_DIR/bench_ops" --category all --dtype fp32,bf16 --output-dir "$OPBENCH_ROOT/docs/benchmark" "$@"
