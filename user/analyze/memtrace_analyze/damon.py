"""damon: region-level working set and access-frequency heatmap of a trace
recorded with `memtracectl record -e damon` (REGIONS chunks).

    memtrace-analyze damon TRACE -o damon.png [--pid PID] [--rows 100] [--cols 200]
                                              [--addr LO-HI]

Every number is region-level and comes from libmemtrace (include/memtrace/
damon.h): DAMON checks one random page per region per sample interval, so a
region counts with all its bytes when a check found it accessed.  Top: the
region-level WSS per aggregation and the monitored bytes.  Bottom: time x
address, colour = mean nr_accesses (0 .. damon_max_nr_accesses) of the
region bytes in each cell; blank where no region lies.  The address range
is the span of the regions ever found accessed (the largest group of them
when they lie far apart), or --addr.
"""

import numpy as np

from . import lib
from .units import fmt_bytes


def add_args(p):
    p.add_argument("--pid", type=int, default=0, help="one process of the trace (default: all)")
    p.add_argument("--rows", type=int, default=100, help="time bins of the heatmap (default 100)")
    p.add_argument("--cols", type=int, default=200, help="address bins of the heatmap (default 200)")
    p.add_argument("--addr", help="address range LO-HI (hex) of the heatmap")


def accessed_span(rows, pid):
    """(lo, hi) of the largest group of accessed regions: regions found
    accessed at least once, merged where gaps are smaller than the group."""
    spans = sorted((s, e) for (_t, s, e, p, acc, _age) in rows if acc and (not pid or p == pid))
    if not spans:
        spans = sorted((s, e) for (_t, s, e, p, _a, _age) in rows if not pid or p == pid)
    groups = []
    for s, e in spans:
        if groups and s - groups[-1][1] <= max(groups[-1][1] - groups[-1][0], 1 << 20):
            groups[-1][1] = max(groups[-1][1], e)
        else:
            groups.append([s, e])
    lo, hi = max(groups, key=lambda g: g[1] - g[0])
    return lo, hi


def run(args, traces):
    tr = traces[0]
    regs = tr.damon_regions()
    if regs.n == 0:
        raise ValueError("%s: no DAMON regions (record with -e damon)" % tr.name)
    rows = regs.rows()
    w = regs.wss(pid=args.pid)
    if len(w["time"]) == 0:
        raise ValueError("%s: no DAMON regions of pid %d" % (tr.name, args.pid))
    if args.addr:
        lo, hi = (int(x, 16) for x in args.addr.split("-", 1))
    else:
        lo, hi = accessed_span(rows, args.pid)
    t0, t1 = int(w["time"][0]), int(w["time"][-1]) + 1
    ntime = max(1, min(args.rows, len(w["time"])))
    heat = regs.heatmap(t0, t1, ntime, lo, hi, max(1, args.cols), pid=args.pid)
    maxacc = int(tr.meta("damon_max_nr_accesses", "0") or 0) or None

    from .plotting import byte_axis, save, subplots, trace_title  # matplotlib once there is a figure to draw

    fig, (a1, a2) = subplots(2, 1, figsize=(10, 8), gridspec_kw={"height_ratios": [1, 2]})
    secs = (w["time"].astype(np.float64) - tr.start_time) / 1e9
    a1.plot(secs, w["wss_bytes"], label="region-level WSS (regions with nr_accesses > 0)")
    a1.plot(secs, w["monitored_bytes"], label="monitored bytes", alpha=0.5)
    a1.set_yscale("log")
    a1.set_ylabel("bytes (region-level)")
    a1.set_title("Working-set size (DAMON regions, region-level)")
    a1.legend(loc="best", fontsize=8)
    img = a2.imshow(heat.T, aspect="auto", origin="lower", interpolation="nearest", cmap="viridis",
                    extent=[(t0 - tr.start_time) / 1e9, (t1 - tr.start_time) / 1e9, 0, hi - lo],
                    vmin=0, vmax=maxacc)
    byte_axis(a2.yaxis, hi - lo)
    a2.set_xlabel("time (s)")
    a2.set_ylabel("offset from 0x%x (%s span)" % (lo, fmt_bytes(hi - lo)))
    a2.set_title("DAMON access frequency (region-level)")
    cb = fig.colorbar(img, ax=a2)
    cb.set_label("nr_accesses per aggregation" + (" (max %d)" % maxacc if maxacc else ""))
    fig.suptitle(trace_title(tr))
    out = args.output or "damon.png"
    return [save(fig, out)]
