#!/usr/bin/env python3
"""Charts of an opbench report, drawn with matplotlib (Agg backend) from the report's JSON.

bench_ops runs this after it has rendered a report's JSON (reports/charts.cpp) and embeds what it drew
in the report's Markdown; it can also be run by hand on any report of the same schema:

    plot_report.py report  REPORT.json   --out-dir DIR   # speedup per category, bandwidth, roofline
    plot_report.py history HISTORY.jsonl --out-dir DIR --goal 0.9   # geomean speedup per category over runs

Every figure comes from the report: the derived figures (speedup, GB/s, TFLOP/s, intensity, bound) and
the roofs and grade thresholds in its context. Nothing is recomputed or assumed here, so the charts say
what the tables say.

DIR receives the PNGs and charts.json, the list of what was drawn in order ({"charts": [{"file",
"title", "caption"}], "skipped": why-nothing}). Exit status: 0 drawn (or nothing to draw, said in
charts.json), 1 an error (one line on stderr), 2 bad arguments, 3 matplotlib cannot be imported.
"""

import argparse
import json
import math
import os
import sys
from collections import OrderedDict, defaultdict

EXIT_ERROR, EXIT_MISSING_LIBRARY = 1, 3

try:
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on CI or a GPU node
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
except ImportError as e:  # the C++ side turns this line into "charts skipped: ..."
    print(f"matplotlib is not installed for {sys.executable} ({e}); install python3-matplotlib "
          "(apt) or matplotlib (pip)", file=sys.stderr)
    sys.exit(EXIT_MISSING_LIBRARY)

DPI = 110
GRADE_COLORS = {"excellent": "#2e9e44", "good": "#e6b800", "fair": "#f07f1a", "poor": "#d62728",
                "critical": "#5c0a0a"}
DTYPE_COLORS = {"fp32": "#1f77b4", "bf16": "#9467bd", "fp16": "#17becf", "fp64": "#7f7f7f", "int64": "#8c564b"}


def dtype_color(dtype):
    return DTYPE_COLORS.get(dtype, "#333333")


def speedup_label(x, _pos=None):
    return f"{x:g}x"


def bytes_label(x, _pos=None):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if x >= scale:
            return f"{x / scale:g} {unit}"
    return f"{x:g} B"


def speedup_ticks(low, high, goal):
    """Powers of two; over a narrower span also 0.75x, 1.5x, 3x and the goal, and tenths over a span
    under 2x: as many as read well on a log axis."""
    ticks = [2.0 ** k for k in range(-6, 7)]
    if high / low < 8:
        ticks += [0.75, 1.5, 3, goal]
    if high / low < 2:
        ticks += [k / 10 for k in range(1, 40)]
    return sorted(t for t in set(round(t, 6) for t in ticks) if low <= t <= high)


def legend_below(fig, handles, ncol=4, suptitle=False):
    """A legend under the axes, with the layout leaving it (and a figure title) the room it needs."""
    rows = math.ceil(len(handles) / ncol)
    height = (0.19 * rows + 0.02) / fig.get_figheight()
    top = 1 - (0.35 / fig.get_figheight() if suptitle else 0)
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=7.5, frameon=False)
    fig.tight_layout(rect=(0, height, 1, top))


def save(fig, out_dir, name):
    fig.savefig(os.path.join(out_dir, name), dpi=DPI, bbox_inches="tight")
    plt.close(fig)


# ---------------------------------------------------------------- speedup per op and dtype, per category

def grade_of(speedup, grades):
    """The grade whose floor the speedup reaches, from the report's own thresholds (best first)."""
    for g in sorted(grades, key=lambda g: -g["min_speedup"]):
        if speedup >= g["min_speedup"]:
            return g["grade"]
    return grades[-1]["grade"]


def speedup_groups(records, category):
    """(op, dtype) -> speedups over its shapes, plus counts of incorrect/failed, in run order."""
    groups = OrderedDict()
    for r in records:
        if r["implementation"] != "framework" or r["category"] != category:
            continue
        g = groups.setdefault((r["operation"], r["dtype"]), {"speedups": [], "incorrect": 0, "failed": 0})
        if r["status"] == "incorrect":
            g["incorrect"] += 1
        elif r["status"] != "ok":
            g["failed"] += 1
        elif r.get("speedup") is not None:
            g["speedups"].append(r["speedup"])
    return OrderedDict((k, v) for k, v in groups.items() if v["speedups"] or v["incorrect"])


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def draw_speedup(report, category, out_dir):
    grades = report["context"]["grades"]
    goal = next(g["min_speedup"] for g in grades if g["grade"] == "excellent")
    groups = speedup_groups(report["results"], category)
    if not groups:
        return None
    labels, means, lo, hi, colors, notes = [], [], [], [], [], []
    for (op, dtype), g in groups.items():
        labels.append(f"{op}  {dtype}")
        s = g["speedups"]
        note = f"{len(s)} shape{'s' if len(s) != 1 else ''}" if s else ""
        if g["incorrect"]:
            note += (", " if note else "") + f"{g['incorrect']} incorrect"
        if s:
            m = geomean(s)
            means.append(m), lo.append(m - min(s)), hi.append(max(s) - m)
            colors.append(GRADE_COLORS.get(grade_of(m, grades), "#999999"))
            notes.append(f"{m:.2f}x  ({note})")
        else:  # only incorrect results: no speed to show (never timed), the verdict is the point
            means.append(1.0), lo.append(0), hi.append(0)
            colors.append(GRADE_COLORS["critical"])
            notes.append(f"incorrect on {g['incorrect']} shape{'s' if g['incorrect'] != 1 else ''}: not timed")
    n = len(labels)
    fig, ax = plt.subplots(figsize=(10, 0.27 * n + 2.4))
    y = list(range(n))
    # Bars grow from parity (1.0x): right when faster than LibTorch, left when slower.
    ax.barh(y, [m - 1.0 for m in means], left=1.0, color=colors, height=0.72, edgecolor="white", linewidth=0.5)
    ax.errorbar(means, y, xerr=[lo, hi], fmt="none", ecolor="#444444", elinewidth=0.8, capsize=2)
    wrong = [yi for yi, g in zip(y, groups.values()) if not g["speedups"]]
    ax.scatter([1.0] * len(wrong), wrong, marker="X", s=70, color=GRADE_COLORS["critical"], zorder=4)
    ax.set_xscale("log", base=2)
    values = [m - a for m, a in zip(means, lo)] + [m + b for m, b in zip(means, hi)] + [goal, 1.0]
    left, right = min(values) / 1.25, max(values) * 1.9  # room on the right for the labels
    ax.set_xlim(left, right)
    for yi, m, b, note in zip(y, means, hi, notes):
        ax.text(max(m + b, 1.0) * 1.04, yi, note, va="center", fontsize=7.5, color="#222222")
    ax.axvline(1.0, color="black", linewidth=1.0)
    ax.axvline(goal, color=GRADE_COLORS["excellent"], linewidth=1.0, linestyle="--")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xticks(speedup_ticks(left, right, goal))
    ax.xaxis.set_major_formatter(FuncFormatter(speedup_label))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel("speedup = LibTorch time / framework time (geometric mean over shapes; whiskers: min to max)")
    ax.set_title(f"{category}: framework vs LibTorch, {report['context']['system']['name']}", fontsize=11)
    handles = [Patch(color=GRADE_COLORS[g["grade"]], label=grade_legend(g, grades)) for g in grades]
    handles += [Line2D([], [], color="black", linewidth=1.0, label="1.0x: LibTorch's speed"),
                Line2D([], [], color=GRADE_COLORS["excellent"], linestyle="--", label=f"{goal:g}x: the goal")]
    legend_below(fig, handles)
    name = f"speedup-{category}.png"
    save(fig, out_dir, name)
    shapes = sum(len(g["speedups"]) for g in groups.values())
    return {"file": name, "title": f"Speedup vs LibTorch: {category}",
            "caption": f"Framework speed relative to LibTorch per op and dtype in {category} ({shapes} compared "
                       f"problems): the bar is the geometric mean over the op's shapes, the whisker their range, "
                       f"the colour the grade of the mean. Lines at 1.0x (LibTorch's speed) and {goal:g}x (the "
                       f"floor of excellent)."}


def grade_legend(g, grades):
    higher = [x["min_speedup"] for x in grades if x["min_speedup"] > g["min_speedup"]]
    if not higher:
        return f"{g['grade']} (≥{g['min_speedup']:g}x)"
    top = min(higher)
    if g["min_speedup"] <= 0:
        return f"{g['grade']} (<{top:g}x or incorrect)"
    return f"{g['grade']} ({g['min_speedup']:g}–{top:g}x)"


# ---------------------------------------------------------------- bandwidth vs problem size, per category

def draw_bandwidth(report, out_dir):
    roofs = report["context"]["roofs"]["memory"]
    by_cat = OrderedDict()
    left_out = 0
    for r in report["results"]:
        if r["implementation"] not in ("framework", "torch") or r.get("throughput_gbps") is None:
            continue
        if r.get("bound") == "compute":  # its GB/s is not what limits it: the roofline shows it
            left_out += 1
            continue
        by_cat.setdefault(r["category"], []).append(r)
    if not by_cat:
        return None
    cats = list(by_cat)
    ncols = 2 if len(cats) > 1 else 1
    nrows = math.ceil(len(cats) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.2 * ncols, 4.0 * nrows), squeeze=False)
    by_size = roofs.get("by_size") or []
    top = max([r["throughput_gbps"] for rs in by_cat.values() for r in rs] +
              [roofs[k] for k, *_ in MEMORY_ROOFS if roofs.get(k)] +
              [p.get(k) or 0 for p in by_size for k in ("copy_gbps", "read_gbps", "write_gbps")]) * 1.08
    dtypes = sorted({r["dtype"] for rs in by_cat.values() for r in rs})
    for ax, cat in zip(axes.flat, cats):
        for impl in ("torch", "framework"):  # the framework drawn last, on top
            for d in dtypes:
                sel = [r for r in by_cat[cat] if r["implementation"] == impl and r["dtype"] == d]
                if not sel:
                    continue
                fw, c = impl == "framework", dtype_color(d)
                ax.scatter([r["bytes"] for r in sel], [r["throughput_gbps"] for r in sel], s=16 if fw else 22,
                           marker="o", facecolors=c if fw else "none", edgecolors=c, linewidths=0.8, alpha=0.75,
                           zorder=3)
        draw_memory_roofs(ax, roofs, horizontal=True)
        for key, style in (("copy_gbps", "-"), ("read_gbps", "--"), ("write_gbps", "-.")) if by_size else ():
            pts = [p for p in by_size if p.get(key)]  # the sweeps at each size (reports before the write sweep: two)
            ax.plot([p["bytes"] for p in pts], [p[key] for p in pts], linestyle=style, color=SIZE_ROOF_COLOR,
                    linewidth=1.0, zorder=2)
        ax.set_xscale("log")
        sizes = [r["bytes"] for r in by_cat[cat]]
        # At least two decades, so that a narrow range still reads as sizes on a log axis.
        low, high = min(sizes) / 2, max(sizes) * 2
        if high / low < 100:
            mid = math.sqrt(low * high)
            low, high = mid / 10, mid * 10
        ax.set_xlim(low, high)
        ax.xaxis.set_major_locator(LogLocator(base=10, numticks=7))
        ax.xaxis.set_major_formatter(FuncFormatter(bytes_label))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, top)
        n = sum(r["implementation"] == "framework" for r in by_cat[cat])
        ax.set_title(f"{cat} ({n} problem{'s' if n != 1 else ''})", fontsize=10)
        ax.set_xlabel("bytes moved", fontsize=8)
        ax.set_ylabel("achieved GB/s", fontsize=8)
        ax.tick_params(labelsize=7.5)
        ax.grid(color="#eeeeee", linewidth=0.6)
    for ax in list(axes.flat)[len(cats):]:
        ax.axis("off")
    handles = [Line2D([], [], marker="o", linestyle="", color=dtype_color(d), label=f"framework {d}")
               for d in dtypes]
    handles += [Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color="#555555",
                       label="LibTorch (hollow)")]
    handles += memory_roof_handles(roofs)
    if by_size:
        handles += [Line2D([], [], linestyle="-", color=SIZE_ROOF_COLOR,
                           label="copy / read (dashed) / write (dash-dot) sweep at each size")]
    fig.suptitle(f"Achieved bandwidth vs problem size, {report['context']['system']['name']}", fontsize=11)
    legend_below(fig, handles, suptitle=True)
    save(fig, out_dir, "bandwidth.png")
    note = f" {left_out} compute-bound results are left out (see the roofline)." if left_out else ""
    return {"file": "bandwidth.png", "title": "Achieved bandwidth vs problem size",
            "caption": "Achieved GB/s against the bytes each problem moves, per category (framework filled, "
                       "LibTorch hollow, coloured by dtype), under the measured copy roof (solid), the measured "
                       "read-only roof (dashed; the roof of ops that only read), the measured store-only roof "
                       "(dash-dot; ops that only write) and the theoretical bandwidth (dotted); in red, the same "
                       "sweeps timed at smaller sizes, what a streaming kernel reaches "
                       f"moving that many bytes from a cold L2.{note}"}


SIZE_ROOF_COLOR = "#c0392b"
MEMORY_ROOFS = (("copy_gbps", "measured copy", "-", "#222222"), ("read_gbps", "measured read", "--", "#555555"),
                ("write_gbps", "measured write", "-.", "#777777"), ("theoretical_gbps", "theoretical", ":", "#999999"))


def draw_memory_roofs(ax, roofs, horizontal, x=None, cap=None):
    for key, _label, style, color in MEMORY_ROOFS:
        gbps = roofs.get(key)
        if not gbps:
            continue
        if horizontal:
            ax.axhline(gbps, linestyle=style, color=color, linewidth=1.0, zorder=2)
        else:  # roofline: attainable TFLOP/s = intensity x GB/s / 1000, up to the highest compute roof
            xs = [v for v in x if v * gbps / 1000 <= cap * 1.0001] + [cap * 1000 / gbps]
            ax.plot(sorted(xs), [v * gbps / 1000 for v in sorted(xs)], linestyle=style, color=color,
                    linewidth=1.1, zorder=2)


def memory_roof_handles(roofs):
    return [Line2D([], [], linestyle=style, color=color, label=f"{label} {roofs[key]:.0f} GB/s")
            for key, label, style, color in MEMORY_ROOFS if roofs.get(key)]


# ---------------------------------------------------------------- roofline

IMPL_MARKERS = {"framework": ("o", True, "framework"), "torch": ("x", True, "LibTorch"),
                "cudnn": ("^", False, "cuDNN"), "cublas": ("^", False, "cuBLAS")}


def draw_roofline(report, out_dir):
    ctx = report["context"]
    points = [r for r in report["results"] if r.get("tflops") and r.get("arithmetic_intensity")]
    no_flops = sum(1 for r in report["results"]
                   if r["implementation"] == "framework" and r.get("time_ms") and not r.get("flops"))
    if not points:
        return None
    compute = [c for c in ctx["roofs"]["compute"] if c["datasheet_tflops"] or c["measured_tflops"]]
    memory = ctx["roofs"]["memory"]
    xs = [r["arithmetic_intensity"] for r in points]
    xmin, xmax = min(xs) / 3, max(xs) * 3
    peaks = [v for c in compute for v in (c["datasheet_tflops"], c["measured_tflops"]) if v]
    cap = max(peaks + [max(r["tflops"] for r in points)])
    fig, ax = plt.subplots(figsize=(10, 6.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    grid = [xmin * (xmax / xmin) ** (i / 200) for i in range(201)]
    draw_memory_roofs(ax, memory, horizontal=False, x=grid, cap=cap)
    bw = memory.get("copy_gbps") or memory.get("theoretical_gbps")
    # Dtypes with the same roof (fp16 and bf16 on tensor cores) share one line and one label.
    lines = OrderedDict()
    for c in compute:
        name = c["dtype"] + (" TF32" if c["tf32"] else "")
        for key, style, what in (("datasheet_tflops", "--", "datasheet"), ("measured_tflops", "-", "measured GEMM")):
            if c[key]:
                lines.setdefault((round(c[key], 1), style, what), []).append((name, dtype_color(c["dtype"])))
    for (v, style, what), names in lines.items():
        color = names[0][1] if len(names) == 1 else "#555555"
        start = v * 1000 / bw if bw else xmin  # the ridge with the copy roof
        ax.plot([start, xmax], [v, v], linestyle=style, color=color, linewidth=1.1, zorder=2)
        label = "/".join(n for n, _ in names)
        ax.text(xmax, v, f" {label} {what} {v:.0f}", va="center", fontsize=7, color=color)
    for impl, (marker, filled, _label) in IMPL_MARKERS.items():
        sel = [r for r in points if r["implementation"] == impl]
        if not sel:
            continue
        colors = [dtype_color(r["dtype"]) for r in sel]
        kw = {"c": colors} if filled else {"facecolors": "none", "edgecolors": colors}
        ax.scatter([r["arithmetic_intensity"] for r in sel], [r["tflops"] for r in sel], marker=marker,
                   s=22 if impl == "framework" else 26, linewidths=0.9, alpha=0.75, zorder=3, **kw)
    ax.set_xlim(xmin, xmax)
    ymin = min(r["tflops"] for r in points) / 3
    ax.set_ylim(ymin, cap * 2)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.grid(which="major", color="#eeeeee", linewidth=0.6)
    ax.set_title(f"Roofline, {ctx['system']['name']}", fontsize=11)
    dtypes = sorted({r["dtype"] for r in points})
    handles = [Line2D([], [], marker=m, linestyle="", markerfacecolor="#555555" if f else "none",
                      markeredgecolor="#555555", color="#555555", label=label)
               for impl, (m, f, label) in IMPL_MARKERS.items() if any(r["implementation"] == impl for r in points)]
    handles += [Patch(color=dtype_color(d), label=d) for d in dtypes]
    handles += memory_roof_handles(memory)
    handles += [Line2D([], [], linestyle="-", color="#555555", label="compute roof: measured GEMM"),
                Line2D([], [], linestyle="--", color="#555555", label="compute roof: datasheet peak")]
    ax.legend(handles=handles, loc="upper left", fontsize=7.5, ncol=2, framealpha=0.9)
    save(fig, out_dir, "roofline.png")
    note = (f" {no_flops} framework results without a FLOP count (pure data movement) are in the bandwidth "
            "chart instead.") if no_flops else ""
    return {"file": "roofline.png", "title": "Roofline",
            "caption": "Every result that counts FLOPs, by arithmetic intensity and achieved TFLOP/s, under this "
                       "GPU's memory roofs (measured copy solid, measured read dashed, theoretical dotted) and "
                       "compute roofs per dtype (measured GEMM solid where measured, datasheet peak dashed); "
                       f"framework ●, LibTorch ×, vendor △, coloured by dtype.{note}"}


# ---------------------------------------------------------------- history trend

def read_history(path):
    runs, bad = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                run = json.loads(line)
                # `bench_ops history append` writes "date" and "commit" (src/compare/history.cpp).
                run.setdefault("timestamp", run.get("date"))
                run.setdefault("git_commit", run.get("commit", ""))
                if not isinstance(run["timestamp"], str) or not isinstance(run["categories"], dict):
                    raise TypeError("not a history record")
                runs.append(run)
            except (ValueError, KeyError, TypeError):
                bad += 1
    runs.sort(key=lambda r: r["timestamp"])
    return runs, bad


def draw_history(path, goal, out_dir):
    runs, bad = read_history(path)
    if not runs:
        return None, f"no run recorded in {os.path.basename(path)}" + (f" ({bad} unreadable lines)" if bad else "")
    gpus = list(OrderedDict.fromkeys(r.get("gpu", "unknown GPU") for r in runs))
    fig, axes = plt.subplots(len(gpus), 1, figsize=(10, 4.2 * len(gpus)), squeeze=False)
    for ax, gpu in zip(axes.flat, gpus):
        mine = [r for r in runs if r.get("gpu", "unknown GPU") == gpu]
        series = defaultdict(lambda: ([], []))
        for i, run in enumerate(mine):
            for cat, stats in run["categories"].items():
                v = stats.get("geomean_speedup") if isinstance(stats, dict) else None
                if v:
                    series[cat][0].append(i), series[cat][1].append(v)
        for cat in sorted(series):
            x, y = series[cat]
            ax.plot(x, y, marker="o", markersize=4, linewidth=1.3, label=cat)
        ax.axhline(1.0, color="black", linewidth=1.0)
        ax.axhline(goal, color=GRADE_COLORS["excellent"], linewidth=1.0, linestyle="--")
        ax.set_yscale("log", base=2)
        values = [v for _, ys in series.values() for v in ys] + [1.0, goal]
        low, high = min(values) / 1.15, max(values) * 1.15
        ax.set_ylim(low, high)
        ax.set_yticks(speedup_ticks(low, high, goal))
        ax.yaxis.set_major_formatter(FuncFormatter(speedup_label))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(len(mine)))
        ax.set_xticklabels([f"{r['timestamp'][:10]}\n{str(r.get('git_commit', ''))[:10]}" for r in mine],
                           fontsize=7, rotation=45 if len(mine) > 8 else 0, ha="right" if len(mine) > 8 else "center")
        ax.set_ylabel("geomean speedup vs LibTorch")
        ax.set_title(f"{gpu}: geomean speedup per category over {len(mine)} recorded runs", fontsize=10)
        ax.grid(color="#eeeeee", linewidth=0.6)
        ax.legend(fontsize=8, ncol=4, loc="best")
    fig.tight_layout()
    save(fig, out_dir, "trend.png")
    note = f" {bad} unreadable lines were skipped." if bad else ""
    return {"file": "trend.png", "title": "Geomean speedup per category over the recorded runs",
            "caption": f"Geometric mean of the framework's speedup over LibTorch per category, one point per run "
                       f"recorded in {os.path.basename(path)} (oldest left), per GPU; lines at 1.0x and "
                       f"{goal:g}x (the goal).{note}"}, ""


# ---------------------------------------------------------------- entry point

def write_manifest(out_dir, charts, skipped=""):
    with open(os.path.join(out_dir, "charts.json"), "w", encoding="utf-8") as f:
        json.dump({"charts": charts, "skipped": skipped if not charts else ""}, f, indent=1)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    rep = sub.add_parser("report", help="the charts of one report")
    rep.add_argument("json", help="an opbench report (.json)")
    rep.add_argument("--out-dir", required=True)
    his = sub.add_parser("history", help="the trend over the recorded runs")
    his.add_argument("jsonl", help="history.jsonl: one JSON object per run")
    his.add_argument("--goal", type=float, required=True, help="the speedup goal line (the floor of excellent)")
    his.add_argument("--out-dir", required=True)
    args = parser.parse_args(argv)
    if args.what == "report":
        with open(args.json, encoding="utf-8") as f:
            report = json.load(f)
        charts = []
        # Categories in the order of the report's own breakdown.
        for cat in (c["category"] for c in report["summary"]["categories"]):
            charts.append(draw_speedup(report, cat, args.out_dir))
        charts += [draw_bandwidth(report, args.out_dir), draw_roofline(report, args.out_dir)]
        charts = [c for c in charts if c]
        write_manifest(args.out_dir, charts, "no timed result to chart")
    else:
        chart, why = draw_history(args.jsonl, args.goal, args.out_dir)
        write_manifest(args.out_dir, [chart] if chart else [], why)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_report.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
