# Sourced by the CLI tests: their counters, checks and summary line.
#   check WHAT COMMAND...        counts COMMAND's success as a passed test, else prints "FAIL: WHAT"
#   expect CODE PATTERN ARGS...  runs "$bench" ARGS...: passes when it exits CODE and its output (stdout and
#                                stderr) matches the grep pattern PATTERN
#   finish NAME                  prints the counts; its status (the script's last command) is 0 when none failed
passed=0 failed=0

check() {
  local what=$1
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}

expect() {
  local want=$1 pattern=$2
  shift 2
  local out code
  out=$("$bench" "$@" 2>&1)
  code=$?
  if [ "$code" -eq "$want" ] && grep -q -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $(basename "$bench") $* -> exit $code (want $want, output matching '$pattern'), output: $out"
  fi
}

finish() {
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
