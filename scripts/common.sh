# shellcheck shell=bash
# Shared by scripts/run.sh, scripts/test.sh and scripts/nightly.sh: install what is missing (Debian/Ubuntu), then
# configure and build incrementally into build/ (override with OPBENCH_BUILD_DIR).
set -euo pipefail

OPBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OPBENCH_BUILD_DIR=${OPBENCH_BUILD_DIR:-$OPBENCH_ROOT/build}

log() { printf '[opbench] %s\n' "$*" >&2; }

# True when a CMake package config file is found under /usr, /usr/local or CMAKE_PREFIX_PATH.
have_cmake_package() {
  local file=$1 prefix
  local IFS=':'
  for prefix in ${CMAKE_PREFIX_PATH:-} /usr /usr/local; do
    [ -d "$prefix" ] || continue
    if find "$prefix" -maxdepth 6 -name "$file" -path '*cmake*' -print -quit 2>/dev/null | grep -q .; then
      return 0
    fi
  done
  return 1
}

have_torch() {
  [ -n "${Torch_DIR:-}" ] && [ -f "$Torch_DIR/TorchConfig.cmake" ] && return 0
  python3 -c 'import torch' >/dev/null 2>&1 && return 0
  have_cmake_package TorchConfig.cmake
}

# The report charts (scripts/plots/plot_report.py) need a python3 that imports matplotlib, searched for
# as cmake/OpbenchPython.cmake does: python3 on PATH, then Debian's /usr/bin/python3.
have_matplotlib() {
  local py
  for py in python3 /usr/bin/python3; do
    "$py" -c 'import matplotlib' >/dev/null 2>&1 && return 0
  done
  return 1
}

find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then return 0; fi
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin /usr/local/cuda-12/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; return 0; fi
  done
  return 1
}

# Installs the build's dependencies with apt when they are missing (root), or prints the command.
ensure_dependencies() {
  local missing=()
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
  command -v git >/dev/null 2>&1 || missing+=(git)
  have_cmake_package benchmarkConfig.cmake || missing+=(libbenchmark-dev)
  have_cmake_package fmt-config.cmake || missing+=(libfmt-dev)
  have_cmake_package nlohmann_jsonConfig.cmake || missing+=(nlohmann-json3-dev)
  have_cmake_package CLI11Config.cmake || missing+=(libcli11-dev)
  have_cmake_package GTestConfig.cmake || missing+=(libgtest-dev)
  # No LibTorch at all: Debian's CPU LibTorch builds everything and runs the CPU tests. For GPU runs,
  # point Torch_DIR at a CUDA LibTorch (or install a CUDA PyTorch; it is found automatically).
  have_torch || missing+=(libtorch-dev)

  # Charts are optional: without matplotlib a report says they were skipped. So it is installed with
  # the rest, but a machine that can install nothing else (a GPU node without a package registry,
  # everything else brought by .devdeps) still builds and runs.
  if ! have_matplotlib; then
    if [ ${#missing[@]} -gt 0 ]; then
      missing+=(python3-matplotlib)
    elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing: python3-matplotlib (report charts)"
      { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -qq python3-matplotlib >/dev/null; } ||
        log "could not install python3-matplotlib: reports will say that charts were skipped"
    else
      log "no python3 with matplotlib: reports will say that charts were skipped" \
          "(sudo apt-get install python3-matplotlib)"
    fi
  fi

  if [ ${#missing[@]} -gt 0 ]; then
    local cmd="apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing: ${missing[*]}"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      # shellcheck disable=SC2086
      $cmd -qq >/dev/null
    else
      log "missing dependencies: ${missing[*]}"
      log "install them with: sudo apt-get update && sudo $cmd"
      exit 1
    fi
  fi
  if ! find_nvcc; then
    log "no CUDA toolkit found (nvcc): install the CUDA toolkit (12.8 or newer, 13 recommended) and put its bin/ on PATH"
    exit 1
  fi
}

# Configures (once) and builds incrementally: everything, or only the targets named
# (build_opbench bench_ops).
build_opbench() {
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$OPBENCH_BUILD_DIR/CMakeCache.txt" ]; then
    log "configuring in $OPBENCH_BUILD_DIR"
    # shellcheck disable=SC2086  # OPBENCH_CMAKE_ARGS holds several arguments
    cmake -S "$OPBENCH_ROOT" -B "$OPBENCH_BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" ${OPBENCH_CMAKE_ARGS:-}
  fi
  local targets=()
  [ $# -eq 0 ] || targets=(--target "$@")
  log "building${*:+ $*}"
  cmake --build "$OPBENCH_BUILD_DIR" --parallel "${OPBENCH_JOBS:-$(nproc)}" "${targets[@]}"
}

# The comparison scripts/run.sh --baseline and scripts/nightly.sh make:
#   compare_and_rerun BENCH BASE CURRENT COMPARE_DIR FILTER RERUN_DIR RUNNER [compare args...]
# compares CURRENT with BASE (the report goes to COMPARE_DIR); when something looks slower or broken,
# re-runs just those problems with `RUNNER RERUN_DIR --benchmark_filter=...` (RUNNER: the caller's
# function that runs its suite, with the extra arguments, into the folder, leaving one ops_*.json
# there) and compares again with the re-run. A kernel's median moves between processes (notes/
# methodology.md, "Between processes"), so a single comparison flags shifts that the re-run does not
# repeat. Returns the comparison's code: 0 no regression, 1 one that held on the re-run, 2 bad input;
# 4 when the re-run left no report.
compare_and_rerun() {
  local bench=$1 base=$2 current=$3 cmpdir=$4 filter=$5 rerundir=$6 runner=$7 crc=0
  shift 7
  mkdir -p "$(dirname "$filter")"
  "$bench" compare "$base" "$current" "$@" --output-dir "$cmpdir" --rerun-filter "$filter" || crc=$?
  [ "$crc" -eq 1 ] || return "$crc"
  log "re-running the flagged problems: $(cat "$filter")"
  "$runner" "$rerundir" "--benchmark_filter=$(cat "$filter")"
  local found=("$rerundir"/ops_*.json)
  if [ ! -f "${found[0]}" ]; then
    log "the re-run left no report in $rerundir"
    return 4
  fi
  crc=0
  "$bench" compare "$base" "$current" "$@" --rerun "${found[0]}" --output-dir "$cmpdir" --rerun-filter "$filter" ||
    crc=$?
  return "$crc"
}
