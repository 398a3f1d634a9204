#!/usr/bin/env bash
# scripts/aa_spread.py on the small committed reports (tests/data/compare_*.json): issue 9's A/A criterion
# overall and per implementation, the results outside the bounds by op (change in % and shift in µs), and the list
# of results more than 15% apart.
# Usage: aa_spread.sh path/to/python3 path/to/scripts/aa_spread.py path/to/tests/data
set -u
py=$1
script=$2
data=$3
source "$(dirname "$0")/lib.sh"
has() {  # has WHAT TEXT PATTERN: the fixed string PATTERN is in TEXT
  check "$1: no '$3' in:"$'\n'"$2" grep -qF -- "$3" <<<"$2"
}
same=$("$py" "$script" "$data/compare_baseline.json" "$data/compare_current_same.json")
has "same: 8 pairs" "$same" "8 results in common"
has "same: framework meets" "$same" "| framework | 4 of 4 (100.0%) | - | 0 | 0.4% | yes |"
has "same: torch meets" "$same" "| torch | 4 of 4 (100.0%) | - | 0 | 0.3% | yes |"
slower=$("$py" "$script" "$data/compare_baseline.json" "$data/compare_current_slower.json")
has "slower: overall" "$slower" "| ≥ 20 µs | 8 | 75.0% | 75.0% | 2 |"
has "slower: framework fails" "$slower" "| framework | 3 of 4 (75.0%) | - | 1 | 25.2% | no |"
has "slower: torch fails" "$slower" "| torch | 3 of 4 (75.0%) | - | 1 | 19.8% | no |"
has "slower: relu listed" "$slower" "- activation/relu/fp32/4096x4096/framework: 45.15 vs 56.54 µs (+25.2%)"
has "slower: relu by op" "$slower" "| framework | relu | 1 | +25.2% | +25.2% |"
has "slower: add by op" "$slower" "| torch | add | 1 | -19.8% | -19.8% |"
has "slower: relu shift in us" "$slower" "| framework | relu | 1 | +25.2% | +25.2% | +11.39 µs | +11.39 .. +11.39 µs |"
has "slower: add shift in us" "$slower" "| torch | add | 1 | -19.8% | -19.8% | -13.44 µs | -13.44 .. -13.44 µs |"
has "slower: relu's sets apart" "$slower" "(+25.2%); samples 44.01-45.95 vs 55.61-57.64 µs, apart (the whole set moved)"
# The same pair with relu's second set widened down into the first: listed as overlapping.
wide=$(mktemp)
trap 'rm -f "$wide"' EXIT
"$py" - "$data/compare_current_slower.json" "$wide" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["operation"] == "relu" and r["implementation"] == "framework" and r["shape_str"] == "4096x4096":
        r["time_stats"]["min"] = 0.040
json.dump(d, open(sys.argv[2], "w"))
PY
overlap=$("$py" "$script" "$data/compare_baseline.json" "$wide")
has "widened: relu's sets overlap" "$overlap" "samples 44.01-45.95 vs 40.00-57.64 µs, overlapping (within the noise of a process)"
no_outside() { ! grep -qF "Outside 3%" <<<"$1"; }
check "same: no table of results outside the bounds" no_outside "$same"
"$py" "$script" "$data/no_such_report.json" "$data/compare_baseline.json" >/dev/null 2>&1
code=$?
check "a missing report exits $code, not 2" [ "$code" -eq 2 ]
finish "aa_spread"
