#!/usr/bin/env bash
# The main job: builds if needed, runs every category in fp32 and bf16, writes a timestamped Markdown
# and JSON report into docs/benchmark/ and refreshes docs/benchmark/README.md.
# Arguments go to bench_ops and replace the defaults they name: `scripts/run.sh --category matmul
# --dtype fp32,fp16,bf16`, `scripts/run.sh --fast`, `scripts/run.sh --output-dir DIR`.
# `--baseline FILE|latest` then compares the new report with FILE, or with the report in the output
# folder that fits it best (same GPU, driver and settings, most problems in common, newest), re-runs the
# problems that look slower or broken (into a scratch folder) and compares again with the re-run, as
# scripts/nightly.sh does, and writes compare_<stamp>.md/.json there. Exit code: bench_ops's when it is
# not 0, else the comparison's (0 no regression, 1 a regression that held on the re-run, 2 bad input or
# no baseline found, 4 the re-run wrote no report).
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_ROOT" || exit

args=()
baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) baseline=${2:?"--baseline needs FILE or latest"}; shift 2 ;;
    --baseline=*) baseline=${1#--baseline=}; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
has() { local a; for a in "${args[@]}"; do case "$a" in "$1"|"$1"=*) return 0 ;; esac; done; return 1; }
selection=()  # the defaults that choose problems (a re-run of flagged problems takes them too)
has --category || has -c || has --op || has -o || has --sweep || selection+=(--category all)
# shellcheck disable=SC2054  # fp32,bf16 is one argument
has --dtype || has -d || selection+=(--dtype fp32,bf16)
defaults=("${selection[@]}")
has --output-dir || defaults+=(--output-dir "$OPBENCH_ROOT/docs/benchmark")
bench=$OPBENCH_BUILD_DIR/bench_ops
if [ -z "$baseline" ]; then
  exec "$bench" "${defaults[@]}" "${args[@]}"
fi

# The output folder (the --output-dir given, else the default above), and the arguments without
# --output-dir and --format, for the re-run of flagged problems (bench_ops takes each option once).
outdir=$OPBENCH_ROOT/docs/benchmark
rerun_args=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --output-dir) outdir=${args[i + 1]:-$outdir}; i=$((i + 1)) ;;
    --output-dir=*) outdir=${args[i]#--output-dir=} ;;
    --format) i=$((i + 1)) ;;
    --format=*) ;;
    *) rerun_args+=("${args[i]}") ;;
  esac
done
if has --format && ! printf '%s\n' "${args[@]}" | grep -q json; then
  log "--baseline compares JSON reports: keep json in --format"
  exit 2
fi
[ "$baseline" = latest ] && baseline=$outdir  # a folder: bench_ops compare picks the best report in it

rc=0
"$bench" "${defaults[@]}" "${args[@]}" || rc=$?
case $rc in 0 | 1) ;; *) exit "$rc" ;; esac  # 1: incorrect or failed results, reported; still compared

# The re-run of flagged problems: the same selection into a scratch folder (not the report folder,
# whose index lists every report in it), JSON only.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/opbench-rerun.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# shellcheck disable=SC2317  # called through compare_and_rerun
rerun_suite() {
  local out=$1 code=0
  shift
  "$bench" "${selection[@]}" "${rerun_args[@]}" "$@" --output-dir "$out" --format json || code=$?
  case $code in 0 | 1) ;; *) log "the re-run failed (exit $code)"; exit "$code" ;; esac
}
crc=0
compare_and_rerun "$bench" "$baseline" "$outdir/latest.json" "$outdir" "$scratch/rerun_filter.txt" "$scratch/rerun" \
  rerun_suite || crc=$?
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
exit "$crc"
