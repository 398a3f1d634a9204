#!/usr/bin/env python3
"""Checks bench_ops's timing against Nsight Compute, the independent timer.

For a selection of problems it runs bench_ops once as usual (its report gives each implementation's
median device time) and once under ncu with --profile (every implementation launched once inside an NVTX
range named category/op/dtype/shape/impl). ncu measures gpu__time_duration with its own cache flush
(--cache-control all, the default: a cold L2, as bench_ops's default) and, with --clock-control none,
at the clocks the GPU chooses, as bench_ops does. The kernels of each range are summed and the two
times printed side by side.

With --timing graph, bench_ops's time per launch in a replayed graph is checked against ncu timing the
same graph: every implementation is captured as graph mode does it (--graph-launches N, 100 unless the
selection says), the graph launched once under `ncu --graph-profiling graph`, and ncu's
gpu__time_duration of the whole graph divided by N. On the H100 ncu's graph figures came out two to three
times a single launch's ncu duration and varied by up to 30% between runs: no reference for graph mode's
replay throughput (notes/methodology.md, "Graph mode against ncu's graph profiling").

  scripts/ncu_check.py [--bench build/bench_ops] [--out DIR] -- <bench_ops selection arguments>
  e.g. scripts/ncu_check.py -- --op add,softmax --shape 4096x4096 --dtype fp32,bf16
       scripts/ncu_check.py -- --op add --shape 256x256 --timing graph

Exit 0 when every pair is within --tolerance (default 5%), 1 otherwise, 2 when a run failed.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


def bench_medians(bench, args, out_dir):
    subprocess.run([bench, *args, "--output-dir", out_dir, "--format", "json"], check=True,
                   stdout=subprocess.DEVNULL)
    report = json.load(open(os.path.join(out_dir, "latest.json")))
    medians = {}
    for r in report["results"]:
        key = f'{r["category"]}/{r["operation"]}/{r["dtype"]}/{r["shape_str"]}/{r["implementation"]}'
        t = r.get("graph_time_ms") or r.get("time_ms")
        if t:
            medians[key] = t * 1000.0  # us
    return medians


RANGE = re.compile(r"([a-z_]+/[a-z0-9_]+/(?:fp32|fp16|bf16)/[0-9x]+/(?:framework|torch|cudnn|cublas))(?:/graph([0-9]+))?")
DURATION = re.compile(r"gpu__time_duration\.sum\s+(\S+)\s+([0-9.,]+)")


def ncu_times(bench, args, log_path, cache_control="all", graph=False):
    cmd = ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--cache-control", cache_control, "--nvtx",
           *(["--graph-profiling", "graph"] if graph else []),
           "--metrics", "gpu__time_duration.sum", bench, *args, "--profile"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    open(log_path, "w").write(proc.stdout)
    if proc.returncode != 0:
        raise RuntimeError(f"ncu exited {proc.returncode}; see {log_path}")
    times, current, launches = {}, None, 1
    for line in proc.stdout.splitlines():
        m = RANGE.search(line)
        if m:  # the NVTX push/pop stack ncu prints with each kernel (or graph) names our range
            current, launches = m.group(1), int(m.group(2) or 1)
        d = DURATION.search(line)
        if d and current:
            unit, value = d.group(1), float(d.group(2).replace(",", ""))
            scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}.get(unit, 1.0)
            times[current] = times.get(current, 0.0) + value * scale / launches
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/bench_ops")
    ap.add_argument("--out", default=None, help="folder for the ncu log and the table (default: a temp dir)")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--cache-control", choices=["all", "none"], default="all",
                    help="ncu's cache control: all (flush before each kernel, as bench_ops's cold L2) or none "
                         "(the caches as the previous launch left them, closer to --timing graph or --l2 warm)")
    ap.add_argument("selection", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    sel = [x for x in a.selection if x != "--"]
    out = a.out or tempfile.mkdtemp(prefix="ncu_check_")
    os.makedirs(out, exist_ok=True)
    graph = "graph" in [x.split("=", 1)[-1] for i, x in enumerate(sel)
                        if x.startswith("--timing=") or (i > 0 and sel[i - 1] == "--timing")]
    if graph and not any(x.startswith("--graph-launches") for x in sel):
        sel += ["--graph-launches", "100"]  # the same N for bench_ops's graphs and the profiled ones
    try:
        ours = bench_medians(a.bench, sel, os.path.join(out, "report"))
        theirs = ncu_times(a.bench, sel, os.path.join(out, "ncu.log"), a.cache_control, graph)
    except (subprocess.CalledProcessError, RuntimeError) as e:
        print(f"ncu_check: {e}", file=sys.stderr)
        return 2
    rows, worst = [], 0.0
    for key in sorted(set(ours) & set(theirs)):
        ratio = ours[key] / theirs[key]
        worst = max(worst, abs(ratio - 1))
        rows.append(f"| {key} | {ours[key]:.2f} | {theirs[key]:.2f} | {ratio:.3f} |")
    table = "| problem/implementation | bench_ops µs | ncu µs | ratio |\n|:---|---:|---:|---:|\n" + "\n".join(rows)
    missing = sorted(set(ours) ^ set(theirs))
    open(os.path.join(out, "ncu_check.md"), "w").write(table + "\n")
    print(table)
    if missing:
        print(f"\nnot in both: {', '.join(missing)}")
    within = sum(1 for r in rows if abs(float(r.split('|')[4]) - 1) <= a.tolerance)
    print(f"\n{within} of {len(rows)} within {100 * a.tolerance:.0f}% (worst {100 * worst:.1f}%)")
    return 0 if rows and within == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
