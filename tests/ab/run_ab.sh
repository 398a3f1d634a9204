#!/usr/bin/env bash
# The A/B regression demo, on the GPU node: does the nightly machinery flag one op that really got
# slower, and nothing else?
#
#   A: this tree, built as scripts/nightly.sh builds it (build/), runs the subset.
#   B: a copy of this tree with tests/ab/slow_relu.patch applied (relu's functor does 128 redundant
#      dependent FMAs per element: same output, more time), built in its own folder, runs the same
#      subset through its scripts/nightly.sh with A's report as the baseline: compare, re-run of the
#      flagged problems, compare again.
#   Expected: B's night fails (exit 1) and the regressions that held on the re-run are relu's and
#   nobody else's.
#
#   tests/ab/run_ab.sh [--work DIR] [--threshold PCT] [bench_ops args...]
#       default args: --category activation --dtype fp32,bf16; default work folder: build-ab/
#
# Each step is skipped when its output is already there, so a run cut short goes on where it stopped
# (remove the work folder to start over). The comparison to keep: WORK/ab_comparison.md and .json.
# Exit: 0 the demo came out as expected; 1 it did not (the reason is printed); other: a step failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[ab] %s\n' "$*" >&2; }

work=$root/build-ab
nightly_opts=()
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=${2:?"--work needs a folder"}; shift 2 ;;
    --threshold) nightly_opts+=(--threshold "${2:?"--threshold needs a percentage"}"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
# shellcheck disable=SC2054  # fp32,bf16 is one argument
[ ${#args[@]} -gt 0 ] || args=(--category activation --dtype fp32,bf16)
mkdir -p "$work"
commit=$(git -C "$root" rev-parse --short=12 HEAD)
first_report() { local f=("$1"/ops_*.json); [ -f "${f[0]}" ] && printf '%s\n' "${f[0]}"; }

# A: the tree as it is.
if ! a_report=$(first_report "$work/a/run"); then
  log "A: building and running this tree (${args[*]})"
  "$root/scripts/nightly.sh" --baseline none --history none --artifacts "$work/a" "${nightly_opts[@]}" -- "${args[@]}"
  a_report=$(first_report "$work/a/run")
fi
log "A: $a_report"

# B's sources: the files git knows here (tracked, and new ones not ignored), then the patch.
src=$work/src
if [ ! -f "$src/.ab-patched" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  # The working tree as it is (not git's index: a copy of the tree, as the GPU node gets, may carry a
  # .git older than its files), without build folders and scratch space.
  tar -C "$root" --exclude=./.git --exclude='./build*' --exclude=./.scratch -cf - . | tar -x -C "$src"
  # Outside any repository (the work folder may sit inside this one): git apply then patches files.
  if ! (cd "$src" && GIT_CEILING_DIRECTORIES=$work git apply "$root/tests/ab/slow_relu.patch"); then
    log "tests/ab/slow_relu.patch no longer applies to kernels/elementwise/ops.cuh: update the patch"
    exit 2
  fi
  touch "$src/.ab-patched"
fi

# B: built in its own folder (no tests needed), run against A's report.
rc=0
if [ ! -f "$work/b/compare/rerun_filter.txt" ]; then
  log "B: building the slowed relu and running the same subset against A"
  OPBENCH_BUILD_DIR=$work/build-b OPBENCH_CMAKE_ARGS="${OPBENCH_CMAKE_ARGS:-} -DOPBENCH_BUILD_TESTS=OFF" \
    OPBENCH_GIT_COMMIT="$commit+slow_relu" \
    "$src/scripts/nightly.sh" --baseline "$a_report" --history none --artifacts "$work/b" "${nightly_opts[@]}" \
    -- "${args[@]}" || rc=$?
  case $rc in 0 | 1) ;; *) log "B's night failed (exit $rc)"; exit "$rc" ;; esac
fi

# What held: the filter of the regressions still standing after the re-run.
comparison=("$work"/b/compare/compare_*.json)
cp "${comparison[0]}" "$work/ab_comparison.json"
cp "${comparison[0]%.json}.md" "$work/ab_comparison.md"
filter=$(cat "$work/b/compare/rerun_filter.txt")
ids=${filter#^(}  # ^(a|b)(/|$), or ^(category/op/|...) when many were flagged
ids=${ids%(/|\$)}
ids=${ids%)}
if [ -z "$ids" ]; then
  log "UNEXPECTED: no regression held; relu was not flagged (see $work/ab_comparison.md)"
  exit 1
fi
others=$(tr '|' '\n' <<<"$ids" | grep -v '^activation/relu/' || true)
if [ -n "$others" ]; then
  log "UNEXPECTED: regressions besides relu:"
  printf '  %s\n' "$others" >&2
  exit 1
fi
log "as expected: only relu regressed: $(tr '|' ' ' <<<"$ids")"
log "comparison: $work/ab_comparison.md"
