"""wss: working-set size over time (Denning's WS(t, τ), valgrind-ws).

    memtrace-analyze wss TRACE -o wss.png [--window 1M,10M] [--interval 1M] [--bucket 4K]

The series, their peaks and the peaks' code locations come from
memtrace_report_compute, one report per window (the numbers `memtracectl
report --window τ --interval T` prints); this module draws them and
formats the peak list.
"""

import sys

import numpy as np

from . import options
from .select import add_filter_args, make_selection
from .units import TimeAxis, fmt_bytes, fmt_time


def _grid(reps, interval):
    """The time axis of the reports' sparse series (memtrace/report.h: only
    the intervals with a sample in the window are rows, the rest are 0): the
    union of their rows' times, plus a 0 point one interval after a row and
    one before the next wherever a run of empty intervals lies between them,
    so a line drawn through the points is the series.  Cost: the rows, not
    the span of the timestamps."""
    parts = [r[k]["time"] for r in reps for k in ("data", "code")]
    t = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)
    if t.size:
        gap = np.nonzero(np.diff(t) > interval)[0]
        edges = np.concatenate([t[gap] + np.uint64(interval), t[gap + 1] - np.uint64(interval),
                                t[:1] - np.uint64(interval) if t[0] > interval else t[:0]])
        t = np.unique(np.concatenate([t, edges]))
    return t


def _on_grid(grid, time, values, fill=0):
    """values (at the sorted times time) on the grid; fill elsewhere."""
    out = np.full(grid.size, fill, dtype=values.dtype)
    if time.size:
        out[np.searchsorted(grid, time)] = values
    return out


class WssResult:
    """The reports of one trace, one per window: reps[0] is the first τ.
    Every series and estimate is put on one time axis (_grid)."""

    def __init__(self, reps):
        from .lib import EST_FEW_SAMPLES
        self.reps = reps
        r0 = reps[0]
        self.bucket, self.interval = r0["bucket"], r0["interval"]
        self.taus = [r["window"] for r in reps]
        self.times = _grid(reps, self.interval)     # t_k - start
        self.nrep = int(self.times.size)
        g = self.times
        self.data = {r["window"]: _on_grid(g, r["data"]["time"], r["data"]["wss"]) for r in reps}
        self.code = {r["window"]: _on_grid(g, r["code"]["time"], r["code"]["wss"]) for r in reps} \
            if r0["have_ip"] else {}
        # windows the source could not see (the library's blind rows): gaps, never 0
        self.blind_state = r0["blind"]["state"]
        self.blind_info = r0["blind"]
        self.blind = {r["window"]: _on_grid(g, r["data"]["time"], r["data"]["blind"], False) for r in reps}
        # estimates of what one access in N sampled did not see (docs/accuracy.md);
        # an interval without samples: nothing seen, too few samples where N > 1
        self.period = r0["data_est"]["period"]
        gap_flags = EST_FEW_SAMPLES if self.period > 1 else 0
        self.est = {"data": {}, "code": {}}
        for r in reps:
            for kind in ("data", "code"):
                e, t = r[kind + "_est"], r[kind]["time"]
                est = dict(e, rows_flags=e["flags"])
                for k in ("samples", "f1", "f2", "est", "lo", "hi"):
                    est[k] = _on_grid(g, t, e[k])
                est["flags"] = _on_grid(g, t, e["flags"], gap_flags)
                self.est[kind][r["window"]] = est
        # of the first window's data series; indices into times
        t0 = r0["data"]["time"]
        idx = np.searchsorted(g, t0) if t0.size else t0
        self.peaks = [dict(p, index=int(idx[p["index"]]), first=int(idx[p["first"]]), last=int(idx[p["last"]]))
                      for p in r0["peaks"]]


def compute(tr, args, sel, flags=0, top_n=None):
    return WssResult(options.compute(tr, args, sel, flags, top_n))


def plotted(res, kind, tau):
    """The values drawn for one series (buckets, float): NaN in the windows
    the source could not see, so the line has a gap there, not a 0."""
    y = (res.data if kind == "data" else res.code)[tau].astype(np.float64)
    y[res.blind[tau]] = np.nan
    return y


def blind_label(tr, res):
    """The legend of the hatched blind windows: 'not seen by hint-faults (no whole NUMA scan sweep ...)'."""
    return "not seen by %s (no %s in the window)" % (tr.meta("source", "the source"), res.blind_info["pass"])


def draw_blind(ax, x_of, res, tr, label=True):
    """Hatches the first window's blind reports where the line draws them
    (the value of t_k from t_k to t_k + T, steps-post): where the line has its gap."""
    for j, (first, last) in enumerate(res.blind_info["runs"]):
        lo = 0 if first <= res.interval else first      # the first window: from the start (no line before it)
        ax.axvspan(x_of(lo), x_of(last + res.interval), facecolor="none", edgecolor="0.55", hatch="///",
                   lw=0, label=blind_label(tr, res) if label and j == 0 else None)


def plot(tr, res, out, title_extra=""):
    from .plotting import byte_axis, rcParams, save, subplots, trace_title
    has_code = bool(res.code) and any(v.size and v.max() > 0 for v in res.code.values())
    fig, axes = subplots(2 if has_code else 1, 1, figsize=(12, 7.5 if has_code else 5.2), sharex=True,
                             squeeze=False)
    # the x axis spans the recording (start to END); the series stops at its last sample
    last = float(res.times[-1]) if res.nrep else 1.0
    span = max(last, float(tr.end_time - tr.start_time))
    tax = TimeAxis(tr.time_unit, span)
    x = tax(res.times.astype(np.float64))
    colours = rcParams["axes.prop_cycle"].by_key()["color"]
    for row, (kind, series) in enumerate([("data", res.data)] + ([("code", res.code)] if has_code else [])):
        ax = axes[row][0]
        ymax = 1
        for j, tau in enumerate(res.taus):
            y = plotted(res, kind, tau) * res.bucket
            ymax = max(ymax, float(np.nanmax(y)) if y.size and not np.isnan(y).all() else 1)
            colour = colours[j % len(colours)]
            steps = "steps-post" if res.nrep < 80 else None
            if res.period > 1:
                ymax = max(ymax, draw_estimate(ax, x, y, res.est[kind][tau], res.bucket, colour, steps,
                                               tau, tr.time_unit))
            else:
                ax.plot(x, y, lw=1.1, color=colour, label="τ = %s" % fmt_time(tau, tr.time_unit), drawstyle=steps)
            mark_isolated(ax, x, y, steps, colour)
        if kind == "data":
            for num, p in enumerate(res.peaks):
                i, v = p["index"], p["value"] * res.bucket
                ax.annotate(str(num), (x[i], v), xytext=(0, 9), textcoords="offset points",
                            ha="center", fontsize=8, color="black",
                            bbox=dict(boxstyle="square,pad=0.2", fc="white", ec="black", lw=0.8))
                ax.plot([x[i]], [v], "v", color="black", ms=4)
                if p["last"] > p["first"]:
                    ax.axvspan(x[p["first"]], x[p["last"]], color="0.5", alpha=0.08, lw=0)
        if res.blind_state == "known" and res.blind_info["runs"]:
            draw_blind(ax, lambda t: tax(float(t)), res, tr)
        elif res.blind_state == "unknown":
            ax.text(0.005, 0.03, "blind windows unknown: %s sees re-accesses only in its passes and this trace "
                    "records none (format < 1.3); an empty window may be unseen, not idle"
                    % tr.meta("source", "the source"), transform=ax.transAxes, fontsize=7, color="darkred")
        head = 1.35 if res.period > 1 else 1.18     # room for the estimate's note
        ax.set_ylim(0, ymax * head)
        ax.set_ylabel(tr.words["%s_series" % kind])
        byte_axis(ax.yaxis, ymax * head)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8, title="window", title_fontsize=8)
        if res.period > 1:
            note_unreliable(ax, res.est[kind][res.taus[0]], res.period,
                            fmt_time(res.taus[0], tr.time_unit) if len(res.taus) > 1 else None)
        elif tr.sample_period > 1:
            ax.text(0.995, 0.97, "distinct sampled buckets × %s" % fmt_bytes(res.bucket), transform=ax.transAxes,
                    ha="right", va="top", fontsize=7, color="0.35")
    axes[-1][0].set_xlabel(tax.label())
    axes[-1][0].set_xlim(0, tax(span))
    axes[0][0].set_title("%s over time: %s\nbucket %s, evaluated every %s%s; numbered boxes = detected "
                         "peaks (shaded: their extent)" % (tr.words["series_title"], trace_title(tr), fmt_bytes(res.bucket),
                                                          fmt_time(res.interval, tr.time_unit), title_extra))
    save(fig, out)


def location(nc):
    """'quicksort (dbquery.c:100)' for a named count from the library."""
    if nc is None:
        return "no ip recorded"
    name = nc["name"] or "%#x" % nc["addr"]
    if nc["file"]:
        return "%s (%s:%d)" % (name, nc["file"], nc["line"])
    return name


def peak_rows(res):
    rows = []
    for num, p in enumerate(res.peaks):
        rows.append({"number": num, "index": p["index"], "time": p["time"], "wss_buckets": p["value"],
                     "from": int(res.times[p["first"]]), "to": int(res.times[p["last"]]),
                     "location": location(p["locations"][0] if p["locations"] else None),
                     "data_mapping": p["top_mapping"]})
    return rows


def format_peaks(tr, res, rows):
    r0 = res.reps[0]
    lines = ["peaks (τ = %s, bucket %s): %d detected%s" % (
        fmt_time(res.taus[0], tr.time_unit), fmt_bytes(res.bucket), r0["peaks_found"],
        ", the %d largest listed" % len(rows) if r0["peaks_found"] > len(rows) else "")]
    if not rows:
        lines.append("  none detected")
    for r in rows:
        span = "" if r["from"] == r["to"] else " (peak from %s to %s)" % (
            fmt_time(r["from"], tr.time_unit), fmt_time(r["to"], tr.time_unit))
        lines.append("  [%d] %s %s at %s%s: %s%s" % (
            r["number"], tr.words["wss"], fmt_bytes(r["wss_buckets"] * res.bucket), fmt_time(r["time"], tr.time_unit), span,
            r["location"], "; data mostly in %s" % r["data_mapping"] if r["data_mapping"] else ""))
    return "\n".join(lines)


def isolated(y, steps=None):
    """The values a line draws nothing of.  A plain line: those with no
    value on either side (NaN, a blind window, or the end).  Steps
    ("steps-post"): a value goes on flat to the next evaluation, so only a
    last one with no value before it (a recording shorter than the
    interval: one evaluation)."""
    ok = ~np.isnan(y)
    before = np.concatenate([[False], ok[:-1]])
    after = np.arange(y.size) < y.size - 1 if steps else np.concatenate([ok[1:], [False]])
    return ok & ~before & ~after


def mark_isolated(ax, x, y, steps, colour):
    """A marker on each value the line (drawstyle steps) draws nothing of."""
    iso = isolated(y, steps)
    if iso.any():
        ax.plot(x[iso], y[iso], "o", ms=3.5, color=colour, clip_on=False)


def draw_estimate(ax, x, seen, est, bucket, colour, steps, tau, unit):
    """Seen (thin, dashed) and estimated WSS (solid) with its interval as a
    band; windows the library flags unreliable get a red cross.  Returns the
    largest value drawn."""
    e, lo, hi = (est[k] * bucket for k in ("est", "lo", "hi"))
    label = "τ = %s" % fmt_time(tau, unit)
    ax.plot(x, seen, lw=0.9, ls="--", color=colour, alpha=0.7, drawstyle=steps, label=label + ", seen")
    ax.fill_between(x, lo, hi, color=colour, alpha=0.18, lw=0, step="post" if steps else None,
                    label=label + ", interval")
    ax.plot(x, e, lw=1.2, color=colour, drawstyle=steps, label=label + ", estimated")
    mark_isolated(ax, x, e, steps, colour)
    bad = est["flags"] != 0
    if bad.any():
        ax.plot(x[bad], e[bad], "x", color="red", ms=4, mew=1.0)
    return float(max(hi.max() if hi.size else 1, seen.max() if seen.size else 1))


def note_unreliable(ax, est, period, tau_text):
    """The sampling period, and why windows are flagged (red crosses)."""
    from .lib import (EST_FEW_SAMPLES, EST_MOSTLY_UNSEEN, EST_ALIASED, EST_RUN_TAIL, EST_TAIL_INSNS,
                      EST_ROUND_PERIOD, EST_NOT_REFINED, EST_MIN_SAMPLES)
    f = est["rows_flags"]       # the library's rows; the gaps (no sample) have too few samples
    # "Chao1, gaps": both, their overlap counted once (engine/wss_est.h); no longer than this
    # or it runs under the legend
    text = ("one access in %.0f sampled: estimated = seen + unseen (Chao1, gaps between seen buckets), "
            "band = interval (docs/accuracy.md)" % period)
    if est["unreliable"]:
        few = int(((f & EST_FEW_SAMPLES) != 0).sum()) + est["gaps"]
        unseen = int(((f & EST_MOSTLY_UNSEEN) != 0).sum())
        why = []
        if few:
            why.append("%d with < %d samples per window" % (few, EST_MIN_SAMPLES))
        if unseen:
            why.append("%d with most buckets unseen" % unseen)
        for bit, what in ((EST_NOT_REFINED, "Chao1 alone (> 8 M samples)"),
                          (EST_ALIASED, "fixed-period aliasing"), (EST_ROUND_PERIOD, "a fixed round period"),
                          (EST_RUN_TAIL | EST_TAIL_INSNS, "a long tail of rarely touched buckets")):
            k = int(((f & bit) != 0).sum())
            if k:
                why.append("%d with %s" % (k, what))
        text += ("\n× unreliable: %d of %d windows%s (%s):\nuse a longer --window or a smaller sampling period"
                 % (est["unreliable"], est["windows"], " of τ = " + tau_text if tau_text else "", ", ".join(why)))
    ax.text(0.995, 0.97, text, transform=ax.transAxes, ha="right", va="top", fontsize=7,
            color="darkred" if "unreliable" in text else "0.35")


def add_args(p):
    options.add_report_args(p)
    p.add_argument("--peaks", default=None, help="also write the peak list (text) to this file")
    p.add_argument("--csv", default=None,
                   help="also write the series to this CSV file: time (from start), then wss_data and "
                        "wss_code in buckets per τ as drawn (empty in a blind window), and for a pass-based "
                        "source blind per τ (1: the source saw no pass in the window, 0: it did, empty: not "
                        "known)")
    add_filter_args(p)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    sel = make_selection(tr, args)
    res = compute(tr, args, sel)
    if res.blind_state != "known" or not res.nrep:    # every window blind: drawn as such
        need_samples(res.reps[0]["samples"], tr, sel, "wss")
    out = args.output or "wss.png"
    region = res.reps[0].get("region_line")    # the library's "WSS of region ..." line
    # in the title, the line up to its explanation: 'WSS of region "X" (N pages of M, ...)'
    plot(tr, res, out, ("\n" + region.split("): ", 1)[0] + ")") if region else
         (" — " + sel.what) if sel.what else "")
    text = format_peaks(tr, res, peak_rows(res))
    if region:
        text = region + "\n" + text
    print(text, file=sys.stderr)
    if args.peaks:
        with open(args.peaks, "w") as f:
            f.write(text + "\n")
    outs = [out]
    if args.csv:
        write_csv(res, args.csv)
        outs.append(args.csv)
    return outs


def write_csv(res, path):
    """The plotted values: a blind window's WSS is empty (a gap), not 0."""
    def col(v, blind):
        return ["" if b else str(int(x)) for x, b in zip(v.tolist(), blind.tolist())]
    known = res.blind_state == "known"
    cols = [("time", [str(int(t)) for t in res.times.tolist()])]
    for tau in res.taus:
        bl = res.blind[tau]
        cols.append(("wss_data_tau%d" % tau, col(res.data[tau], bl)))
        if tau in res.code:
            cols.append(("wss_code_tau%d" % tau, col(res.code[tau], bl)))
        if res.blind_state != "none":   # a pass-based source's trace: which windows it saw
            cols.append(("blind_tau%d" % tau, [str(int(b)) if known else "" for b in bl.tolist()]))
    with open(path, "w") as f:
        if res.reps[0].get("region_line"):     # a comment line first: what the rows count
            f.write("# %s\n" % res.reps[0]["region_line"])
        f.write(",".join(c[0] for c in cols) + "\n")
        for row in zip(*(c[1] for c in cols)):
            f.write(",".join(row) + "\n")
