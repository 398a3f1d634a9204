#!/usr/bin/env python3
"""How far two runs of the same build apart agree: the A/A spread of every timed result.

  scripts/aa_spread.py FIRST.json SECOND.json [--markdown]

Pairs every implementation's median (pure, or graph when the run was timed that way) by
category/op/dtype/shape/implementation and prints, for results of at least 20 µs and for the rest,
how many lie within 3% and 5% of each other, how many differ by more than 15% (listed), and the
percentiles of the relative difference. This is issue 9's test of a timing a nightly job can trust.
Exit 0; 2 when a file cannot be read.
"""
import argparse
import json
import sys


def medians(path):
    try:
        report = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        sys.exit(2)
    out = {}
    for r in report.get("results", []):
        t = r.get("graph_time_ms") or r.get("time_ms")
        if t:
            out[(r["category"], r["operation"], r["dtype"], r["shape_str"], r["implementation"])] = t * 1000.0
    return out, report.get("context", {})


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first")
    ap.add_argument("second")
    args = ap.parse_args()
    a, ca = medians(args.first)
    b, cb = medians(args.second)
    keys = sorted(set(a) & set(b))
    print(f"{args.first} ({ca.get('timestamp', '?')}, timer {ca.get('device_timer', 'events')}) vs "
          f"{args.second} ({cb.get('timestamp', '?')}, timer {cb.get('device_timer', 'events')}): "
          f"{len(keys)} results in common\n")
    print("| results | count | within 3% | within 5% | above 15% | p50 | p90 | p99 | max |")
    print("|:---|---:|---:|---:|---:|---:|---:|---:|---:|")
    far = []
    for name, pick in (("≥ 20 µs", lambda us: us >= 20), ("< 20 µs", lambda us: us < 20), ("all", lambda us: True)):
        diffs = []
        for k in keys:
            if pick(a[k]):
                d = abs(b[k] - a[k]) / a[k]
                diffs.append(d)
                if name == "all" and d > 0.15:
                    far.append((d, k))
        diffs.sort()
        n = len(diffs)
        share = lambda lim: f"{100.0 * sum(d <= lim for d in diffs) / n:.1f}%" if n else "-"
        print(f"| {name} | {n} | {share(0.03)} | {share(0.05)} | {sum(d > 0.15 for d in diffs)} | "
              + " | ".join(f"{100 * percentile(diffs, q):.2f}%" for q in (0.5, 0.9, 0.99, 1.0)) + " |")
    if far:
        print("\nAbove 15%:")
        for d, k in sorted(far, reverse=True):
            print(f"- {'/'.join(k)}: {a[k]:.2f} vs {b[k]:.2f} µs ({100 * (b[k] - a[k]) / a[k]:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
