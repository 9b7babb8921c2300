"""mrc: miss-ratio curve, the miss ratio of a fully associative LRU cache
of each size over the trace's data references (docs/sizing.md).

    memtrace-analyze mrc TRACE -o mrc.png [--bucket 4K] [--for-size 64M]
        [--warmup 10s] [--measured 64M=0.82,128M=0.94]

--warmup: the references of the recording's first D fill the cache and
are not counted (report --mrc-warmup).  --measured: hit ratios measured
at some sizes (e.g. a database's own counters run at each size), drawn
as points beside the predicted curve, with their gap printed.

The curve, its interval, its knees and the hit ratio at --for-size come
from memtrace_report_compute (MEMTRACE_REPORT_MRC, the numbers of
`memtracectl report --mrc`); this module draws them.
"""

import sys

import numpy as np

from . import lib, options
from .select import add_filter_args, make_selection
from .units import fmt_bytes


def add_args(p):
    options.add_report_args(p, windows=False)
    p.add_argument("--for-size", default=None, metavar="SIZE",
                   help="mark a cache size (e.g. 64M) and print its predicted hit ratio")
    p.add_argument("--warmup", default=None, metavar="D",
                   help="the references of the first D (e.g. 10s) fill the cache, not counted")
    p.add_argument("--measured", default=None, metavar="SIZE=HIT,...",
                   help="measured hit ratios at some sizes, drawn beside the prediction")
    add_filter_args(p)


def describe(m):
    """The line that says what the curve is: exact or estimated."""
    if m["exact"]:
        return "exact: every data reference (%d), cold misses included" % m["references"]
    return ("estimated from 1-in-%.0f samples (%d samples); shaded: sampling noise (95 %%), "
            "not the estimator's error (docs/sizing.md)" % (m["period"], m["references"]))


def parse_measured(text):
    """[(bytes, hit ratio)] of "64M=0.82,128M=0.94"."""
    out = []
    for item in (text or "").split(","):
        if not item.strip():
            continue
        size, eq, hit = item.partition("=")
        try:
            h = float(hit)
        except ValueError:
            h = -1
        if not eq or not 0 <= h <= 1:
            raise lib.MemtraceError("bad --measured item %r (SIZE=HIT, hit ratio 0..1)" % item)
        out.append((lib.parse_size(size), h))
    return out


def plot(tr, m, out, for_size=None, at=None, what="", measured=(), predicted=None):
    from .plotting import cap, save, subplots, trace_title  # matplotlib only where a figure is drawn
    fig, ax = subplots(figsize=(9, 5))
    x = m["bytes"].astype(np.float64)
    if not m["exact"]:
        ax.fill_between(x, m["lo"], m["hi"], step="post", color="tab:blue", alpha=0.2,
                        label="95 % interval (sampling noise)")
    ax.step(x, m["miss_ratio"], where="post", color="tab:blue", marker="o" if x.size == 1 else None,
            label="miss ratio (%s)" % ("exact" if m["exact"] else "estimated"))     # one size: no step to draw
    ax.axhline(m["cold_ratio"], color="grey", linestyle=":", linewidth=1,
               label="cold misses only (%.4f)" % m["cold_ratio"])
    for k in m["knees"]:
        ax.axvline(k, color="tab:red", linestyle="--", linewidth=0.8)
        ax.annotate("knee %s" % fmt_bytes(k), (k, 1.0), xytext=(3, -12), textcoords="offset points",
                    fontsize=8, color="tab:red", rotation=90, va="top")
    if for_size and at:
        miss = at[0]
        ax.plot([for_size], [miss], "o", color="tab:green",
                label="%s: hit ratio %.4f" % (fmt_bytes(for_size), 1 - miss))
    if measured:
        ax.plot([b for b, _ in measured], [1 - h for _, h in measured], "D", color="tab:orange",
                label="measured miss ratio (%s)" % "; ".join("%s: %.4f, predicted %.4f" % (fmt_bytes(b), 1 - h, predicted[b])
                                                            for b, h in measured))
    ax.set_xscale("log", base=2)
    lo = x[0] if x.size else 1
    ax.set_xlim(lo, max(x[-1] if x.size else 2, 2 * lo))     # one size (one bucket): a doubling wide
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("cache size (LRU, fully associative, %s buckets)" % fmt_bytes(m["bucket"]))
    ax.set_ylabel("miss ratio of the data references")
    ax.set_title(cap(describe(m)), fontsize=9)
    fig.suptitle("Miss-ratio curve: %s%s" % (trace_title(tr), " — " + what if what else ""))
    ticks = [2 ** k for k in range(int(np.log2(max(x[0], 1))), int(np.log2(max(x[-1], 2))) + 2)] if x.size else []
    if len(ticks) > 12:
        ticks = ticks[::(len(ticks) + 11) // 12]
    ax.set_xticks(ticks)
    ax.set_xticklabels([fmt_bytes(t) for t in ticks], rotation=30)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    save(fig, out)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    sel = make_selection(tr, args)
    for_size = lib.parse_size(args.for_size) if args.for_size else 0
    if args.for_size and not for_size:
        raise lib.MemtraceError("--for-size must be > 0")
    measured = parse_measured(args.measured)
    warmup = lib.parse_duration(args.warmup, tr.time_is_ns) if args.warmup else 0
    rep = lib.report(tr.path, bucket=options.bucket(args), sel=sel, flags=lib.REPORT_MRC,
                     mrc_sizes=([for_size] if for_size else []) + [b for b, _ in measured],
                     mrc_warmup=warmup)
    need_samples(rep["samples"], tr, sel, "mrc")
    m = rep["mrc"]
    at = rep["mrc_at"].get(for_size) if for_size else None
    predicted = {b: rep["mrc_at"][b][0] for b, _ in measured}
    out = args.output or "mrc.png"
    what = rep.get("region_line") or sel.what
    if warmup:
        what = (what + "; " if what else "") + "first %s: warm-up, not counted" % args.warmup
    plot(tr, m, out, for_size, at, what, measured, predicted)
    print("miss-ratio curve: %s" % describe(m), file=sys.stderr)
    print("footprint %s%s; knees: %s" % (fmt_bytes(m["footprint"] * m["bucket"]),
                                         "" if m["exact"] else " (estimated)",
                                         ", ".join(fmt_bytes(k) for k in m["knees"]) or "none"), file=sys.stderr)
    if at:
        print("at %s: predicted hit ratio %.4f%s" % (fmt_bytes(for_size), 1 - at[0],
                                                    "" if m["exact"] else " (95 %% interval %.4f-%.4f)"
                                                    % (1 - at[2], 1 - at[1])), file=sys.stderr)
    for b, h in measured:
        p = 1 - predicted[b]
        print("at %s: measured hit ratio %.4f, predicted %.4f (gap %+.4f)" % (fmt_bytes(b), h, p, p - h),
              file=sys.stderr)
    return [out]
