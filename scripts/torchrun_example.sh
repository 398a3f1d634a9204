#!/usr/bin/env bash
# The suite over the GPUs of this node with torchrun: one bench_ops process per GPU, each taking its
# shard from RANK / WORLD_SIZE and its GPU from LOCAL_RANK, writing shard-<i>-of-<n>.json into a run
# folder; then `bench_ops merge` makes the one report in docs/benchmark/ (or --output-dir).
#
#   scripts/torchrun_example.sh                        every GPU of this node, the whole suite
#   scripts/torchrun_example.sh --nproc-per-node 2 --category element --fast
#   scripts/torchrun_example.sh --nproc-per-node 4 --replicate --fast     the per-GPU consistency table
#
# Several nodes: start the same torchrun on each with --nnodes N --node-rank K --rdzv-backend c10d
# --rdzv-endpoint HOST:29500 and a run folder on a shared file system; merge once every node is done.
# bench_ops needs no communication between ranks: torchrun only hands out the ranks.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_dependencies
build_opbench
cd "$OPBENCH_ROOT" || exit

nproc=""
if [ "${1:-}" = "--nproc-per-node" ]; then nproc=$2; shift 2; fi
if [ -z "$nproc" ]; then
  nproc=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  [ "$nproc" -gt 0 ] || { log "no GPU found by nvidia-smi -L; give --nproc-per-node N"; exit 3; }
fi
command -v torchrun >/dev/null 2>&1 || { log "torchrun not found: it comes with PyTorch (pip install torch)"; exit 2; }

args=("$@")
has() { local a; for a in "${args[@]}"; do case "$a" in "$1"|"$1"=*) return 0 ;; esac; done; return 1; }
out="$OPBENCH_ROOT/docs/benchmark"
rest=()
for ((i = 0; i < ${#args[@]}; i++)); do  # --output-dir is the merged report's; the shards go to the run folder
  case "${args[i]}" in
    --output-dir) out=${args[i + 1]}; i=$((i + 1)) ;;
    --output-dir=*) out=${args[i]#--output-dir=} ;;
    *) rest+=("${args[i]}") ;;
  esac
done
defaults=()
has --category || has -c || has --op || has -o || defaults+=(--category all)
# shellcheck disable=SC2054  # fp32,bf16 is one argument
has --dtype || has -d || defaults+=(--dtype fp32,bf16)
run="$OPBENCH_BUILD_DIR/runs/torchrun-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$run"
merge_args=()
has --replicate && merge_args+=(--replicate)

log "torchrun: $nproc processes, shard reports in $run"
start=$(date +%s)
torchrun --standalone --nproc-per-node "$nproc" --no-python \
  "$OPBENCH_BUILD_DIR/bench_ops" "${defaults[@]}" "${rest[@]}" --output-dir "$run"
log "all ranks done in $(( $(date +%s) - start )) s; merging"
exec "$OPBENCH_BUILD_DIR/bench_ops" merge "$run" --output-dir "$out" "${merge_args[@]}"
