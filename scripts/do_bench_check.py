#!/usr/bin/env python3
"""Checks bench_ops's LibTorch timings against triton's do_bench, PyTorch's own timer.

For add, sum_last, softmax, layer_norm and transpose (the same at:: calls bench_ops's LibTorch column
makes: add out=, sum out= over the last dim, softmax out=, layer_norm with weight and bias, a transpose
materialized by clone) on the given shapes and dtypes, it runs bench_ops once (its report gives the
LibTorch median, cold and clean L2) and do_bench twice per problem:
  - shipped:  do_bench as triton ships it: before each call it zeroes a 256 MB buffer (a write-only
              flush: the timed call then pays the write-back of those dirty lines);
  - clean:    the same, with the flush made like bench_ops's (zero the buffer, then read it: no dirty
              lines left), by replacing the driver's clear_cache.
Both report the median (return_mode="median"). Prints the three side by side.

With --timing graph it checks graph mode instead: bench_ops --timing graph (each implementation's launches
captured in a CUDA graph and replayed, time per launch) against triton's do_bench_cudagraph (the call
captured n times in a PyTorch CUDA graph, each replay timed with CUDA events, median per call): two
independent measures of the same back-to-back throughput. Neither flushes L2 between the launches of a
replay.

  scripts/do_bench_check.py [--bench build/bench_ops] [--shape 4096x4096 ...] [--dtype fp32,bf16]
                            [--timing pure|graph]
Exit 0 when every clean do_bench median (or do_bench_cudagraph median) is within --tolerance (default 5%)
of bench_ops's, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import triton
import triton.testing

OPS = ["add", "sum_last", "softmax", "layer_norm", "transpose"]
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def make_call(op, shape, dt):
    x = torch.empty(shape, device="cuda", dtype=dt).uniform_(-1, 1)
    y = torch.empty(shape, device="cuda", dtype=dt).uniform_(-1, 1)
    if op == "add":
        out = torch.empty_like(x)
        return lambda: torch.add(x, y, out=out)
    if op == "sum_last":
        out = torch.empty(shape[:-1], device="cuda", dtype=dt)
        return lambda: torch.sum(x, dim=-1, out=out)
    if op == "softmax":  # (Python has no out= softmax; LibTorch's softmax_out runs the same kernel)
        return lambda: torch.softmax(x, -1)
    if op == "layer_norm":
        w = torch.empty(shape[-1], device="cuda", dtype=dt).uniform_(0.5, 1.5)
        b = torch.empty(shape[-1], device="cuda", dtype=dt).uniform_(-0.5, 0.5)
        return lambda: torch.nn.functional.layer_norm(x, (shape[-1],), w, b, 1e-5)
    if op == "transpose":
        return lambda: x.transpose(-1, -2).clone(memory_format=torch.contiguous_format)
    raise ValueError(op)


def bench_ops_medians(bench, shapes, dtypes, out_dir, timing):
    args = [bench, "--op", ",".join(OPS), "--dtype", ",".join(dtypes), "--output-dir", out_dir, "--format", "json",
            "--timing", timing]
    for s in shapes:
        args += ["--shape", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    report = json.load(open(os.path.join(out_dir, "latest.json")))
    field = "graph_time_ms" if timing == "graph" else "time_ms"
    return {(r["operation"], r["shape_str"], r["dtype"]): r[field] * 1000.0
            for r in report["results"] if r["implementation"] == "torch" and r.get(field)}


class FlushNotReplaced(Exception):
    pass


def check(ours, shapes, dtypes, tolerance, measure, columns, against, out_path):
    """Times every problem of `ours` with measure(fn) -> (reference µs, [more cells]); prints and writes the
    table (ratio = bench_ops / reference) and returns the exit code."""
    rows, within, worst = [], 0, 0.0
    for s in shapes:
        shape = [int(d) for d in s.split("x")]
        for dn in dtypes:
            for op in OPS:
                key = (op, s, dn)
                if key not in ours:
                    continue
                ref, more = measure(make_call(op, shape, DTYPES[dn]))
                ratio = ours[key] / ref
                worst = max(worst, abs(ratio - 1))
                within += abs(ratio - 1) <= tolerance
                rows.append(f"| {op} {s} {dn} | {ours[key]:.2f} | {ref:.2f} | {ratio:.3f} |" + "".join(f" {c} |" for c in more))
    table = ("| " + " | ".join(columns) + " |\n|:---|" + "---:|" * (len(columns) - 1) + "\n" + "\n".join(rows))
    print(table)
    print(f"\n{within} of {len(rows)} within {100 * tolerance:.0f}% of {against} (worst {100 * worst:.1f}%)")
    if out_path:
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        open(out_path, "w").write(table + "\n")
    return 0 if rows and within == len(rows) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/bench_ops")
    ap.add_argument("--shape", action="append", default=None)
    ap.add_argument("--dtype", default="fp32,bf16")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--timing", choices=["pure", "graph"], default="pure")
    ap.add_argument("--out", default=None, help="where the table goes (do_bench_check.md, do_bench_graph_check.md)")
    a = ap.parse_args()
    shapes = a.shape or ["4096x4096", "8192x8192"]
    dtypes = a.dtype.split(",")
    ours = bench_ops_medians(a.bench, shapes, dtypes, tempfile.mkdtemp(prefix="do_bench_check_"), a.timing)
    out = lambda name: os.path.join(a.out, name) if a.out else None

    if a.timing == "graph":
        def cudagraph(fn):
            return triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median") * 1000.0, []
        return check(ours, shapes, dtypes, a.tolerance, cudagraph,
                     ["LibTorch problem", "bench_ops graph µs a launch", "do_bench_cudagraph µs", "ratio"],
                     "do_bench_cudagraph", out("do_bench_graph_check.md"))

    driver = triton.runtime.driver.active
    shipped_clear = driver.clear_cache
    calls = [0]

    def clean_clear(cache):  # bench_ops's flush: write the buffer, then read it (no dirty lines left)
        calls[0] += 1
        cache.zero_()
        cache.sum()

    def both(fn):  # (do_bench with the clean flush, [do_bench as shipped])
        driver.clear_cache = shipped_clear
        shipped = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0
        driver.clear_cache = clean_clear
        before = calls[0]
        clean = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0
        driver.clear_cache = shipped_clear
        if calls[0] == before:
            raise FlushNotReplaced()
        return clean, [f"{shipped:.2f}"]

    try:
        return check(ours, shapes, dtypes, a.tolerance, both,
                     ["LibTorch problem", "bench_ops µs", "do_bench, clean flush µs", "ratio", "do_bench as shipped µs"],
                     "do_bench with the clean flush", out("do_bench_check.md"))
    except FlushNotReplaced:
        print("do_bench_check: this triton's do_bench does not call driver.active.clear_cache; "
              "the clean flush could not be put in", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
