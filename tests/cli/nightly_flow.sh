#!/usr/bin/env bash
# scripts/nightly.sh's and scripts/run.sh --baseline's decisions without a GPU: a stand-in bench_ops
# writes the committed synthetic reports (tests/data/compare_*.json) where a suite run would write its
# report, and hands compare and history to the real bench_ops. Checked: a regression that holds on the
# re-run fails the night (exit 1) and is recorded; one that does not hold passes; no baseline of this GPU
# yet passes without a comparison; a passing night is stored as the next baseline; run.sh --baseline
# re-runs what is flagged the same way, outside its report folder.
# Usage: nightly_flow.sh path/to/bench_ops path/to/repo
set -u
real_bench=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$2
data=$repo/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib.sh"

# A build folder whose only target is a no-op bench_ops, and the stand-in executable in it.
fake=$tmp/build
mkdir -p "$fake/src"
cat >"$fake/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(stand_in NONE)
add_custom_target(bench_ops)
CMAKE
cmake -S "$fake/src" -B "$fake" >/dev/null || exit 1
cat >"$fake/bench_ops" <<STUB
#!/usr/bin/env bash
# compare / history: the real one. A suite run: the report named by the scenario file.
case "\$1" in compare | history) exec "$real_bench" "\$@" ;; esac
out="" filter="" seen=" "
for a in "\$@"; do
  case "\$a" in
    --output-dir | --format)  # as bench_ops: each option once
      case "\$seen" in *" \$a "*) echo "bench_ops: \$a: At Most 1 required but received 2" >&2; exit 2 ;; esac
      seen="\$seen\$a " ;;
  esac
  case "\$prev" in --output-dir) out=\$a ;; esac
  case "\$a" in --benchmark_filter=*) filter=\${a#--benchmark_filter=} ;; esac
  prev=\$a
done
mkdir -p "\$out"
if [ -n "\$filter" ]; then src=\$(sed -n 2p "$tmp/scenario"); else src=\$(sed -n 1p "$tmp/scenario"); fi
echo "\$filter" >>"$tmp/filters"
cp "\$src" "\$out/ops_\$(date -u +%H%M%S%N).json"
cp "\$src" "\$out/latest.json"
STUB
chmod +x "$fake/bench_ops"

night() {  # night NAME RUN_REPORT RERUN_REPORT NIGHTLY_ARGS...: runs scripts/nightly.sh, prints its exit code
  local name=$1
  printf '%s\n%s\n' "$2" "$3" >"$tmp/scenario"
  shift 3
  OPBENCH_BUILD_DIR=$fake "$repo/scripts/nightly.sh" --artifacts "$tmp/$name" --history "$tmp/hist/history.jsonl" "$@" \
    >"$tmp/$name.log" 2>&1
  echo $?
}

# A regression that holds on the re-run: exit 1, re-run with relu's filter, recorded in the history.
code=$(night held "$data/compare_current_slower.json" "$data/compare_rerun_slower.json" \
  --baseline "$data/compare_baseline.json" --store "$tmp/store" -- --category activation --fast)
check "held regression exits 1 (got $code)" test "$code" -eq 1
check "the re-run ran the flagged problem only" grep -qxF '^(activation/relu/fp32/4096x4096)(/|$)' "$tmp/filters"
check "comparison written" test -s "$tmp/held/compare/compare_20261121-030000.md"
check "the comparison says confirmed" grep -q "confirmed on a re-run" "$tmp/held/compare/compare_20261121-030000.md"
check "history recorded with the regression" grep -q '"regressions":\["activation/relu/fp32/4096x4096"\]' "$tmp/hist/history.jsonl"
check "artifacts: github-action-benchmark input, history, trend" \
  test -s "$tmp/held/benchmark-action.json" -a -s "$tmp/held/history.jsonl" -a -s "$tmp/held/trend.md"
check "a failing night is not stored as a baseline" test ! -d "$tmp/store"

# The same flag, gone on the re-run: exit 0, and the night becomes the next baseline.
code=$(night flaky "$data/compare_current_slower.json" "$data/compare_rerun_same.json" \
  --baseline "$data/compare_baseline.json" --store "$tmp/store")
check "flaky flag passes (got $code)" test "$code" -eq 0
check "flaky: says so" grep -q "did not hold on the re-run" "$tmp/flaky.log"
check "a passing night is stored" test "$(find "$tmp/store" -name 'ops_*.json' | wc -l)" -eq 1

# --baseline latest with only another GPU's reports around: no comparison, exit 0.
mkdir -p "$tmp/other"
cp "$data/compare_other_gpu.json" "$tmp/other/ops_20261121-030000.json"
code=$(night first "$data/compare_current_same.json" "$data/compare_current_same.json" --store "$tmp/other")
check "first night of a GPU passes (got $code)" test "$code" -eq 0
check "first night: no comparison" test ! -d "$tmp/first/compare"
check "first night: recorded" test "$(wc -l <"$tmp/hist/history.jsonl")" -eq 3

# --baseline latest finds the stored report of the passing night (same GPU): no regression.
code=$(night stored "$data/compare_rerun_same.json" "$data/compare_rerun_same.json" --store "$tmp/store")
check "stored baseline: no regression (got $code)" test "$code" -eq 0
check "stored baseline found" grep -q "baseline: $tmp/store/ops_" "$tmp/stored.log"

# scripts/run.sh --baseline: the same comparison and re-run; the re-run's report stays out of the report
# folder (whose index lists every report in it).
runsh() {  # runsh NAME RUN_REPORT RERUN_REPORT RUN_ARGS...: runs scripts/run.sh, prints its exit code
  local name=$1
  printf '%s\n%s\n' "$2" "$3" >"$tmp/scenario"
  shift 3
  : >"$tmp/filters"
  OPBENCH_BUILD_DIR=$fake "$repo/scripts/run.sh" --output-dir "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1
  echo $?
}
code=$(runsh runsh_flaky "$data/compare_current_slower.json" "$data/compare_rerun_same.json" \
  --baseline "$data/compare_baseline.json" --category activation --fast)
check "run.sh: a flag that does not hold exits 0 (got $code)" test "$code" -eq 0
check "run.sh: the re-run ran the flagged problem only" \
  test "$(sed -n 2p "$tmp/filters")" = '^(activation/relu/fp32/4096x4096)(/|$)'
check "run.sh: the comparison says so" grep -q "did not hold on the re-run" "$tmp/runsh_flaky.log"
check "run.sh: comparison in the report folder" test -s "$tmp/runsh_flaky/compare_20261121-030000.md"
check "run.sh: only the suite's report in the report folder" \
  test "$(find "$tmp/runsh_flaky" -name 'ops_*.json' | wc -l)" -eq 1
code=$(runsh runsh_held "$data/compare_current_slower.json" "$data/compare_rerun_slower.json" \
  --baseline "$data/compare_baseline.json" --category activation --fast)
check "run.sh: a regression that holds exits 1 (got $code)" test "$code" -eq 1
check "run.sh: confirmed" grep -q "confirmed on a re-run" "$tmp/runsh_held/compare_20261121-030000.md"
code=$(runsh runsh_same "$data/compare_current_same.json" "$data/compare_rerun_slower.json" \
  --baseline "$data/compare_baseline.json" --category activation --fast)
check "run.sh: nothing flagged exits 0 (got $code)" test "$code" -eq 0
check "run.sh: nothing flagged, nothing re-run" test "$(wc -l <"$tmp/filters")" -eq 1
# Without --output-dir (the default docs/benchmark, here of a copy of the scripts, holding the baseline):
# the re-run must not pass a second --output-dir.
mkdir -p "$tmp/repo/docs/benchmark"
cp -r "$repo/scripts" "$tmp/repo/"
cp "$data/compare_baseline.json" "$tmp/repo/docs/benchmark/ops_20261120-030000.json"
printf '%s\n%s\n' "$data/compare_current_slower.json" "$data/compare_rerun_same.json" >"$tmp/scenario"
: >"$tmp/filters"
OPBENCH_BUILD_DIR=$fake "$tmp/repo/scripts/run.sh" --baseline latest --category activation --fast >"$tmp/runsh_default.log" 2>&1
code=$?
check "run.sh, default folder: no regression (got $code)" test "$code" -eq 0
check "run.sh, default folder: the re-run ran" test "$(sed -n 2p "$tmp/filters")" = '^(activation/relu/fp32/4096x4096)(/|$)'
check "run.sh, default folder: the baseline and the suite's report there, not the re-run's" \
  test "$(find "$tmp/repo/docs/benchmark" -name 'ops_*.json' | wc -l)" -eq 2

finish "nightly flow"
