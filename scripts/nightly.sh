#!/usr/bin/env bash
# The nightly job: build bench_ops, run the suite, compare with a baseline, re-run what looks slower,
# record the run in the history. Fails (exit 1) only for a regression of the framework that holds on
# the re-run of the flagged problems; a flaky flag does not fail the night.
#
#   scripts/nightly.sh [--baseline FILE|DIR|latest|none] [--baseline-window N] [--baseline-pool FILE]...
#                      [--store DIR] [--artifacts DIR] [--history FILE|none] [--threshold PCT]
#                      [--ignore-device] [--] [bench_ops args...]
#
# --baseline   latest (default): the report in --store, else in docs/benchmark, of the same GPU, driver
#              and settings with the most problems in common (newest on a tie); none: no comparison.
#              A FILE or a DIR of reports is used as given. No report of this GPU yet: the night is
#              recorded without a comparison.
# --baseline-window  with latest: pool the samples of the best N such reports (default 3; the newest
#              nights that passed): a kernel's median moves between processes by up to ~6% on small
#              kernels (notes/methodology.md), and one lucky baseline process would flag it.
# --baseline-pool    a further report pooled with the baseline (repeatable), with FILE or DIR baselines.
# --store      a folder kept between nights (on the runner): a night without a confirmed regression
#              leaves its report there (the newest 10 are kept), so the next night compares against it.
#              A regression stays red until it is fixed, or accepted by copying the report there.
# --artifacts  where everything of this night goes (default build-nightly/<UTC time>): run/ (the
#              reports), compare/ (the comparison, rerun_filter.txt), rerun/ (the re-run's reports),
#              benchmark-action.json (github-action-benchmark input), history.jsonl and trend.md.
# --history    the history file (default docs/benchmark/history.jsonl; its folder's trend.md and index
#              are rewritten); none: do not record.
# Everything else goes to bench_ops, with scripts/run.sh's defaults (--category all --dtype fp32,bf16).
#
# Exit codes: 0 no confirmed regression; 1 a confirmed regression; 2 bad input (a baseline of another
# GPU or schema, a bad argument); bench_ops's own code when the suite could not run (3 no GPU, 4 a
# report could not be written, 5 a LibTorch without CUDA).
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

baseline=latest
window=3
pool=()
store=""
artifacts=""
history=$OPBENCH_ROOT/docs/benchmark/history.jsonl
compare_opts=()
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) baseline=${2:?"--baseline needs FILE, DIR, latest or none"}; shift 2 ;;
    --baseline-window) window=${2:?"--baseline-window needs a count"}; shift 2 ;;
    --baseline-pool) pool+=(--baseline-pool "${2:?"--baseline-pool needs a report"}"); shift 2 ;;
    --store) store=${2:?"--store needs a folder"}; shift 2 ;;
    --artifacts) artifacts=${2:?"--artifacts needs a folder"}; shift 2 ;;
    --history) history=${2:?"--history needs a file or none"}; shift 2 ;;
    --threshold) compare_opts+=(--threshold "${2:?"--threshold needs a percentage"}"); shift 2 ;;
    --ignore-device) compare_opts+=(--ignore-device); shift ;;
    --output-dir | --output-dir=*)
      log "nightly.sh chooses the report folders itself: use --artifacts DIR"
      exit 2 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
has() { local a; for a in "${args[@]}"; do case "$a" in "$1" | "$1"=*) return 0 ;; esac; done; return 1; }
suite=()
has --category || has -c || has --op || has -o || suite+=(--category all)
# shellcheck disable=SC2054  # fp32,bf16 is one argument
has --dtype || has -d || suite+=(--dtype fp32,bf16)
suite+=("${args[@]}")

ensure_dependencies
build_opbench bench_ops
cd "$OPBENCH_ROOT" || exit
bench=$OPBENCH_BUILD_DIR/bench_ops
artifacts=${artifacts:-$OPBENCH_ROOT/build-nightly/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$artifacts"
log "artifacts: $artifacts"

# The one ops_*.json report a bench_ops run wrote into an empty folder.
report_in() {
  local found=("$1"/ops_*.json)
  if [ ! -f "${found[0]}" ]; then
    log "no report in $1"
    exit 4
  fi
  printf '%s\n' "${found[0]}"
}

# Runs the suite (extra arguments: a filter) into a fresh folder; bench_ops exits 1 for incorrect or
# failed results, which are in the report and judged by the comparison (broke / fixed), so that
# goes on; any other failure ends the night with bench_ops's code.
run_suite() {
  local out=$1 rc=0
  shift
  rm -rf "$out"
  "$bench" "${suite[@]}" "$@" --output-dir "$out" --format md,json || rc=$?
  case $rc in
    0) ;;
    1) log "some results are incorrect or failed (see the report); the comparison says which are new" ;;
    *) log "bench_ops failed (exit $rc)"; exit "$rc" ;;
  esac
}

log "running: bench_ops ${suite[*]}"
run_suite "$artifacts/run"
current=$(report_in "$artifacts/run")

# The baseline.
base=""
case $baseline in
  none) log "no comparison (--baseline none)" ;;
  latest)
    dirs=()
    if [ -n "$store" ] && [ -d "$store" ]; then dirs+=(--find-baseline "$store"); fi
    dirs+=(--find-baseline "$OPBENCH_ROOT/docs/benchmark")
    if best=$("$bench" compare "${dirs[@]}" --baselines "$window" "${compare_opts[@]}" "$current"); then
      mapfile -t chosen <<<"$best"
      base=${chosen[0]}
      log "baseline: $base"
      for p in "${chosen[@]:1}"; do
        pool+=(--baseline-pool "$p")
        log "pooled with: $p"
      done
    else
      base=""
      log "no earlier report of this GPU and settings: this night is recorded without a comparison"
    fi ;;
  *) base=$baseline ;;
esac

# Compare; re-run what is flagged; compare again with the re-run.
crc=0
comparison=""
if [ -n "$base" ]; then
  compare_and_rerun "$bench" "$base" "$current" "$artifacts/compare" "$artifacts/compare/rerun_filter.txt" \
    "$artifacts/rerun" run_suite "${pool[@]}" "${compare_opts[@]}" || crc=$?
  case $crc in 0 | 1) ;; *) exit "$crc" ;; esac
  found=("$artifacts"/compare/compare_*.json)
  comparison=${found[0]}
fi

# The history, the trend page and the github-action-benchmark input.
"$bench" history export "$current" --output "$artifacts/benchmark-action.json"
if [ "$history" != none ]; then
  hist_args=(--history "$history")
  [ -z "$comparison" ] || hist_args+=(--comparison "$comparison")
  "$bench" history append "$current" "${hist_args[@]}"
  cp "$history" "$artifacts/history.jsonl"
  trend="$(dirname "$history")/trend.md"
  [ ! -f "$trend" ] || cp "$trend" "$artifacts/trend.md"
fi

# A night without a confirmed regression becomes the next baseline.
if [ -n "$store" ] && [ "$crc" -eq 0 ]; then
  mkdir -p "$store"
  cp "$current" "${current%.json}.md" "$store/" 2>/dev/null || cp "$current" "$store/"
  mapfile -t old < <(find "$store" -maxdepth 1 -name 'ops_*.json' | sort -r | tail -n +11)
  for f in "${old[@]}"; do rm -f "$f" "${f%.json}.md"; done
  log "stored $(basename "$current") in $store as the next baseline"
fi

if [ "$crc" -eq 1 ]; then
  log "REGRESSION: the framework got slower or broke, and it held on the re-run (see $artifacts/compare)"
else
  log "no confirmed regression"
fi
exit "$crc"
