#!/usr/bin/env bash
# The main job: builds if needed, runs every category in fp32 and bf16, writes a timestamped Markdown
# and JSON report into docs/benchmark/ and refreshes docs/benchmark/README.md.
# Arguments go to bench_ops and replace the defaults they name: `scripts/run.sh --category matmul
# --dtype fp32,fp16,bf16`, `scripts/run.sh --fast`, `scripts/run.sh --output-dir DIR`.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_ROOT"

args=("$@")
has() { local a; for a in "${args[@]}"; do case "$a" in "$1"|"$1"=*) return 0 ;; esac; done; return 1; }
defaults=()
has --category || has -c || has --op || has -o || defaults+=(--category all)
has --dtype || has -d || defaults+=(--dtype fp32,bf16)
has --output-dir || defaults+=(--output-dir "$OPBENCH_ROOT/docs/benchmark")
exec "$OPBENCH_BUILD_DIR/bench_ops" "${defaults[@]}" "${args[@]}"
