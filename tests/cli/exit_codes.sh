#!/usr/bin/env bash
# bench_ops's documented exit codes for the errors a user can make, none of which needs a GPU:
# 2 for a bad command line (unknown op, no op able to take the shape), 4 for an unwritable output
# folder, 0 for --help and the listings. Usage: exit_codes.sh path/to/bench_ops
set -u
bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/a_file"
source "$(dirname "$0")/lib.sh"

expect 0 "Exit codes" --help
expect 0 "softmax" --list-ops
expect 0 "very_large" --list-sizes
expect 2 "unknown op 'nope'; valid ops" --op nope
expect 2 "unknown category" --category elementwise
expect 2 "malformed shape" --shape 12x
expect 2 "no selected op can take the shape" --op permute_0213 --shape 7
expect 4 "--output-dir" --op add --fast --output-dir "$tmp/a_file/reports"

finish "exit codes"
