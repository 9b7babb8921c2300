"""cold: cold memory over time, the bytes seen earlier and not accessed for
at least each threshold (docs/sizing.md, "Cold memory").

    memtrace-analyze cold TRACE -o cold.png [--cold 10s,60s,120s] [--cold-step 1s]
                          [--bucket 4K] [--region NAME] [--pid PID] [--per-process]

Every number comes from memtrace_report_compute (MEMTRACE_REPORT_COLD, the
numbers of `memtracectl report --cold`); this module draws them: the bytes
seen so far (grey), the cold bytes per threshold, the windows the source
did not see shaded (their counts are as of the last pass).
"""

import sys

import numpy as np

from . import lib, options
from .select import add_filter_args, make_selection
from .units import fmt_bytes

METHOD_WORDS = {
    "access": "every data access (exact)",
    "accessed-bits": "accessed bits: idle time counted up to the latest pass, never past it",
    "hint-faults": "hint faults: idle only from the sweep that re-armed a page after its last fault",
}


def add_args(p):
    options.add_report_args(p, windows=False)
    p.add_argument("--cold", default=None, metavar="T1,T2,...",
                   help="idle thresholds (default 10s,60s,120s; instruction traces: counts)")
    p.add_argument("--cold-step", default=None, metavar="D",
                   help="time between points (default: a tenth of the smallest threshold)")
    p.add_argument("--per-process", action="store_true", help="one line per process at the largest threshold")
    add_filter_args(p)


def describe(c):
    """What the cold counts are, in one line."""
    if c["upper_bound"]:
        s = ("1-in-%.0f sampled accesses: an upper bound (a bucket not sampled for the threshold may still "
             "have been accessed)" % c["period"])
    else:
        s = METHOD_WORDS[c["method"]]
    if c["blind"] is not None and c["blind_points"]:
        s += "; %d of %d points blind (shaded)" % (c["blind_points"], len(c["time"]))
    return s


def fmt_thr(t, ns):
    if not ns:
        return "%d" % t
    return "%gs" % (t / 1e9) if t >= 10**9 else "%gms" % (t / 1e6)


def runs(mask):
    """[(first, end)) of each run of True in mask."""
    m = np.concatenate([[False], np.asarray(mask, bool), [False]])
    edges = np.flatnonzero(m[1:] != m[:-1])
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def plot(tr, rep, out, per_process=False, what=""):
    from .plotting import byte_axis, save, subplots, trace_title  # matplotlib only where a figure is drawn
    c = rep["cold"]
    ns = rep["time_is_ns"]
    x = c["time"] / 1e9 if ns else c["time"].astype(np.float64)
    nrows = 2 if per_process and c["processes"] else 1
    fig, axes = subplots(nrows, 1, figsize=(10, 4.5 * nrows), squeeze=False)
    ax = axes[0][0]
    b = c["bucket"]
    ax.plot(x, c["seen"] * b, color="grey", linewidth=1.2, label="seen so far (buckets x %s)" % fmt_bytes(b))
    for i, th in enumerate(c["thresholds"]):
        ax.plot(x, c["cold"][i] * b, linewidth=1.5,
                label="idle >= %s (mean %.1f %% of seen)" % (fmt_thr(th, ns), 100 * c["avg_share"][i]))
    if c["blind"] is not None and c["blind"].any():
        # a span per run of blind points, not per point (1000 artists: 0.7 s)
        step = x[1] - x[0] if x.size > 1 else 1
        for k, (j0, j1) in enumerate(runs(c["blind"])):
            ax.axvspan(x[j0] - step, x[j1 - 1], color="tab:red", alpha=0.12, linewidth=0,
                       label=None if k else "blind: no pass in the window")
    ax.set_xlabel("time since the start (%s)" % ("s" if ns else "instructions"))
    ax.set_ylabel("bytes (%s buckets)" % fmt_bytes(b))
    ymax = float(max(c["seen"].max() if c["seen"].size else 1, 1) * b)
    ax.set_ylim(0, ymax * 1.08)
    byte_axis(ax.yaxis, ymax)
    ax.set_title(describe(c), fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    if nrows == 2:
        ax2 = axes[1][0]
        th = c["thresholds"][-1]
        for p in c["processes"]:
            ax2.plot(x, p["cold"][-1] * b, linewidth=1.2, label="pid %d" % p["pid"])
        ax2.set_xlabel(ax.get_xlabel())
        ax2.set_ylabel("bytes idle >= %s" % fmt_thr(th, ns))
        ax2.set_title("per process, idle >= %s" % fmt_thr(th, ns), fontsize=9)
        top = max([int(p["cold"][-1].max()) for p in c["processes"] if p["cold"].size] + [1]) * b
        ax2.set_ylim(0, top * 1.08)
        byte_axis(ax2.yaxis, top)
        ax2.legend(loc="upper left", fontsize=8)
    fig.suptitle("Cold memory: %s%s" % (trace_title(tr), " — " + what if what else ""))
    fig.tight_layout()
    save(fig, out)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    sel = make_selection(tr, args)
    thr = None
    if args.cold:
        thr = [lib.parse_duration(t, tr.time_is_ns) for t in args.cold.split(",") if t.strip()]
        if not thr or any(t == 0 for t in thr):
            raise lib.MemtraceError("--cold: thresholds > 0, e.g. 10s,60s,120s")
    step = lib.parse_duration(args.cold_step, tr.time_is_ns) if args.cold_step else 0
    flags = lib.REPORT_COLD | (lib.REPORT_PER_PROCESS if args.per_process else 0)
    rep = lib.report(tr.path, bucket=options.bucket(args), sel=sel, flags=flags, cold=thr, cold_step=step)
    need_samples(rep["samples"], tr, sel, "cold")
    c = rep["cold"]
    out = args.output or "cold.png"
    plot(tr, rep, out, args.per_process, rep.get("region_line") or sel.what)
    ns = rep["time_is_ns"]
    print("cold memory: %s" % describe(c), file=sys.stderr)
    if c["time"].size:
        print("at the end: seen %s; %s" % (
            fmt_bytes(int(c["seen"][-1]) * c["bucket"]),
            ", ".join("idle >= %s %s" % (fmt_thr(t, ns), fmt_bytes(int(c["cold"][i][-1]) * c["bucket"]))
                      for i, t in enumerate(c["thresholds"]))), file=sys.stderr)
    if c["false_cold"] is not None:
        print("cold by chance alone (steady access at each bucket's sampled rate): %s buckets" %
              ", ".join("%s ~%.1f" % (fmt_thr(t, ns), f) for t, f in zip(c["thresholds"], c["false_cold"])),
              file=sys.stderr)
    return [out]
