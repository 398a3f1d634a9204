#!/usr/bin/env bash
# bench_ops compare / history through the real executable, on the small committed reports
# (tests/data/compare_*.json): the documented exit codes (0 no regression, 1 a regression, 2 bad input,
# 4 unwritable output), the files written, the re-run filter, the baseline search and the history.
# Usage: compare_exit_codes.sh path/to/bench_ops path/to/tests/data
set -u
bench=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/a_file"
printf '{ not json' >"$tmp/broken.json"
printf '{"schema_version": 1, "context": {}, "results": []}\n' >"$tmp/schema1.json"
base=$data/compare_baseline.json
same=$data/compare_current_same.json
slower=$data/compare_current_slower.json
source "$(dirname "$0")/lib.sh"

# Verdicts and exit codes.
expect 0 "result: no regression" compare "$base" "$same" --output-dir "$tmp/same"
expect 1 "SLOWER   activation/relu/fp32/4096x4096" compare "$base" "$slower" --output-dir "$tmp/slower" \
  --rerun-filter "$tmp/slower/filter.txt"
check "md and json written" test -s "$tmp/slower/compare_20261121-030000.md" -a -s "$tmp/slower/compare_20261121-030000.json"
check "re-run filter names relu" grep -qxF '^(activation/relu/fp32/4096x4096)(/|$)' "$tmp/slower/filter.txt"
check "no temporaries left" test -z "$(find "$tmp/slower" -name '.*' -type f)"
expect 0 "did not hold on the re-run" compare "$base" "$slower" --rerun "$data/compare_rerun_same.json" --format none \
  --rerun-filter "$tmp/none.txt"
check "empty filter when nothing holds" test "$(cat "$tmp/none.txt")" = ""
expect 1 "confirmed on the re-run" compare "$base" "$slower" --rerun "$data/compare_rerun_slower.json" --format none
expect 0 "result: no regression" compare "$base" "$slower" --threshold 30% --format none
expect 0 "framework: 4 same" compare "$base" "$base" --format none
expect 1 "report: $tmp/fmt/compare_20261121-030000.md" compare --format md --output-dir "$tmp/fmt" "$base" "$slower"

# Bad input: exit 2 with the fix in the message.
expect 2 "--ignore-device" compare "$base" "$data/compare_other_gpu.json" --format none
expect 0 "GPU differs" compare "$base" "$data/compare_other_gpu.json" --format none --ignore-device
expect 2 "schema 1" compare "$tmp/schema1.json" "$same" --format none
expect 2 "not JSON" compare "$tmp/broken.json" "$same" --format none
expect 2 "cannot read" compare "$tmp/absent.json" "$same" --format none
expect 2 "give two reports" compare "$base"
expect 2 "--threshold '5'" compare "$base" "$same" --threshold 5
expect 2 "unknown --format" compare "$base" "$same" --format pdf
expect 4 "cannot" compare "$base" "$same" --output-dir "$tmp/a_file/out"
expect 0 "Exit codes" compare --help

# Baseline search: a folder as BASELINE, and --find-baseline.
mkdir -p "$tmp/reports"
cp "$base" "$tmp/reports/ops_20261120-030000.json"
cp "$data/compare_other_gpu.json" "$tmp/reports/ops_20261121-030000.json"
expect 0 "ops_20261120-030000.json" compare --find-baseline "$tmp/reports" "$slower"
expect 1 "baseline chosen from" compare "$tmp/reports" "$slower" --format none
expect 2 "no report in" compare --find-baseline "$tmp/a_file" "$slower"
cp "$base" "$tmp/reports/ops_20261119-030000.json"  # a second baseline process (same time: the path breaks the tie)
check "--baselines 2 prints two, best first" test "$("$bench" compare --find-baseline "$tmp/reports" --baselines 2 "$slower" |
  xargs -n1 basename | tr '\n' ' ')" = "ops_20261119-030000.json ops_20261120-030000.json "
expect 1 "pooled baseline chosen from" compare "$tmp/reports" "$slower" --baselines 2 --format none
expect 1 "  pooled:  " compare "$base" "$slower" --baseline-pool "$tmp/reports/ops_20261119-030000.json" --format none
expect 2 "--ignore-device" compare "$base" "$slower" --baseline-pool "$data/compare_other_gpu.json" --format none

# History: append (with the comparison's digest), the trend page, show, export.
expect 0 "history: $tmp/hist/history.jsonl (1 run)" history append "$slower" --history "$tmp/hist/history.jsonl" \
  --comparison "$tmp/slower/compare_20261121-030000.json"
check "trend page written" grep -q "1 regression" "$tmp/hist/trend.md"
expect 0 "(2 runs)" history append "$same" --history "$tmp/hist/history.jsonl"
check "two lines" test "$(wc -l <"$tmp/hist/history.jsonl")" -eq 2
expect 0 "### NVIDIA H100 80GB HBM3" history show --history "$tmp/hist/history.jsonl"
expect 0 "github-action-benchmark" history export "$same" --output "$tmp/gab.json"
check "export has framework medians" grep -q '"name": "activation/relu/fp32/4096x4096 framework"' "$tmp/gab.json"
expect 0 "(1 run)" history append "$base" --history "$tmp/reports/history.jsonl"
check "the report index shows the trend" grep -q "^## Trend" "$tmp/reports/README.md"
expect 2 "schema 1" history append "$tmp/schema1.json" --history "$tmp/hist/history.jsonl"
expect 2 "not a bench_ops compare report" history append "$same" --history "$tmp/hist/history.jsonl" --comparison "$same"
expect 2 "" history frobnicate

finish "compare exit codes"
