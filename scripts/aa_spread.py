#!/usr/bin/env python3
"""How far two runs of the same build apart agree: the A/A spread of every timed result.

  scripts/aa_spread.py FIRST.json SECOND.json

Pairs every implementation's median (pure, or graph when the run was timed that way) by
category/op/dtype/shape/implementation and prints, for results of at least 20 µs and for the rest,
how many lie within 3% and 5% of each other, how many differ by more than 15% (listed), and the
percentiles of the relative difference. This is issue 9's test of a timing a nightly job can trust:
at least 98% of the results of 20 µs or more within 3%, of the others within 5%, none more than 15%
apart. A second table applies it to each implementation on its own (the framework's kernels, LibTorch,
each vendor library), since a reference's medians can move between processes while ours hold; a third
groups the results outside the bounds by implementation and op, with their change in % and in µs. Each
result more than 15% apart is listed with the range of its kept samples in each run: sets that do not
overlap moved as a whole between the processes (a state of a process, which more samples in one process
cannot remove), sets that overlap are noise within a process.
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
    out, ranges = {}, {}
    for r in report.get("results", []):
        graph = bool(r.get("graph_time_ms"))
        t = r.get("graph_time_ms") if graph else r.get("time_ms")
        if t:
            k = (r["category"], r["operation"], r["dtype"], r["shape_str"], r["implementation"])
            out[k] = t * 1000.0
            st = r.get("graph_time_stats" if graph else "time_stats") or {}
            if st.get("min") is not None and st.get("max") is not None:
                ranges[k] = (st["min"] * 1000.0, st["max"] * 1000.0)
    return out, ranges, report.get("context", {})


def sets_line(ra, rb):
    """The two runs' sample ranges of one result, and whether the sets overlap."""
    if not ra or not rb:
        return ""
    apart = ra[1] < rb[0] or rb[1] < ra[0]
    return (f"; samples {ra[0]:.2f}-{ra[1]:.2f} vs {rb[0]:.2f}-{rb[1]:.2f} µs, "
            + ("apart (the whole set moved)" if apart else "overlapping (within the noise of a process)"))


# Issue 9's bounds: results of BIG_US or more within BIG_TOL of each other, the rest within SMALL_TOL, none
# more than FAR apart; MEETS_SHARE of each size class within its bound.
BIG_US, BIG_TOL, SMALL_TOL, FAR, MEETS_SHARE = 20.0, 0.03, 0.05, 0.15, 0.98


def within(us, d):
    """Whether a relative difference d of a result of us µs is within its size class's bound."""
    return d <= (BIG_TOL if us >= BIG_US else SMALL_TOL)


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
    a, ra, ca = medians(args.first)
    b, rb, cb = medians(args.second)
    keys = sorted(set(a) & set(b))
    print(f"{args.first} ({ca.get('timestamp', '?')}, timer {ca.get('device_timer', 'events')}) vs "
          f"{args.second} ({cb.get('timestamp', '?')}, timer {cb.get('device_timer', 'events')}): "
          f"{len(keys)} results in common\n")
    print("| results | count | within 3% | within 5% | above 15% | p50 | p90 | p99 | max |")
    print("|:---|---:|---:|---:|---:|---:|---:|---:|---:|")
    far = []
    for name, pick in (("≥ 20 µs", lambda us: us >= BIG_US), ("< 20 µs", lambda us: us < BIG_US),
                       ("all", lambda us: True)):
        diffs = []
        for k in keys:
            if pick(a[k]):
                d = abs(b[k] - a[k]) / a[k]
                diffs.append(d)
                if name == "all" and d > FAR:
                    far.append((d, k))
        diffs.sort()
        n = len(diffs)
        share = lambda lim: f"{100.0 * sum(d <= lim for d in diffs) / n:.1f}%" if n else "-"
        print(f"| {name} | {n} | {share(BIG_TOL)} | {share(SMALL_TOL)} | {sum(d > FAR for d in diffs)} | "
              + " | ".join(f"{100 * percentile(diffs, q):.2f}%" for q in (0.5, 0.9, 0.99, 1.0)) + " |")
    print("\n| implementation | ≥ 20 µs within 3% | < 20 µs within 5% | above 15% | max | meets |")
    print("|:---|---:|---:|---:|---:|:---|")
    for impl in sorted({k[-1] for k in keys}, key=lambda i: (i != "framework", i)):
        mine = [k for k in keys if k[-1] == impl]
        pairs = [(a[k], abs(b[k] - a[k]) / a[k]) for k in mine]
        big = [d for us, d in pairs if us >= BIG_US]
        small = [d for us, d in pairs if us < BIG_US]
        ok_big = sum(within(us, d) for us, d in pairs if us >= BIG_US)
        ok_small = sum(within(us, d) for us, d in pairs if us < BIG_US)
        over = sum(d > FAR for d in big + small)
        frac = lambda ok, n: f"{ok} of {n} ({100.0 * ok / n:.1f}%)" if n else "-"
        meets = ((not big or ok_big >= MEETS_SHARE * len(big)) and (not small or ok_small >= MEETS_SHARE * len(small))
                 and over == 0)
        print(f"| {impl} | {frac(ok_big, len(big))} | {frac(ok_small, len(small))} | {over} | "
              f"{100 * max(big + small):.1f}% | {'yes' if meets else 'no'} |")
    # Where the results outside the bounds are: an A/A failure is read by op (e.g. a reference's few-us reductions
    # moving between processes), not result by result.
    # The shift in µs beside the change in %: a step of about the same µs over all of an op's shapes (a state of
    # the process, as LibTorch's full reductions take in about half of the processes: notes/methodology.md) shows as
    # a narrow range of shifts, where a change in the kernel's own work scales with its time.
    outside = {}
    for k in keys:
        d = (b[k] - a[k]) / a[k]
        if not within(a[k], abs(d)):
            outside.setdefault((k[-1], k[1]), []).append((d, b[k] - a[k]))
    if outside:
        rows = sorted(outside.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        print("\nOutside 3% (≥ 20 µs) or 5% (< 20 µs), by implementation and op:\n")
        print("| implementation | op | results | median change | largest change | median shift | shifts |")
        print("|:---|:---|---:|---:|---:|---:|---:|")
        for (impl, op), pairs in rows[:20]:
            ds = sorted(d for d, _ in pairs)
            us = sorted(u for _, u in pairs)
            big = max(ds, key=abs)
            print(f"| {impl} | {op} | {len(ds)} | {100 * ds[len(ds) // 2]:+.1f}% | {100 * big:+.1f}% | "
                  f"{us[len(us) // 2]:+.2f} µs | {us[0]:+.2f} .. {us[-1]:+.2f} µs |")
        if len(rows) > 20:
            print(f"\n({len(rows) - 20} more implementation/op pairs, {sum(len(v) for _, v in rows[20:])} results)")
    if far:
        print("\nAbove 15%:")
        for d, k in sorted(far, reverse=True):
            print(f"- {'/'.join(k)}: {a[k]:.2f} vs {b[k]:.2f} µs ({100 * (b[k] - a[k]) / a[k]:+.1f}%)"
                  + sets_line(ra.get(k), rb.get(k)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
