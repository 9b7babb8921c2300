"""compare: two traces side by side (paper 002 section 4.4, Figs. 7 and 8).

    memtrace-analyze compare A.mtrace B.mtrace -o compare.png [--bucket 4K] [--top 12]
                     [--span PATTERN] [--by-span]

Every number comes from the library (memtrace_compare_compute, the same
rows as `memtracectl compare`): regions are matched by mapping label (name +
permissions, with an ordinal among equal labels in address order), so
anonymous mappings that ASLR puts elsewhere in B still pair up as long as the
program maps them in the same order.  Per region: accessed volume (samples x
bucket size, the paper's measure; B scaled by period_B / period_A when the
sample periods differ) and touched volume (distinct buckets x bucket size),
with the change from A to B in percent.  Span labels (record --mark: a
query's text) are matched the same way: spans, distinct bytes touched in all
of a label's spans and per span.  The figure shows both heatmaps with one
colour scale above a bar chart of the accessed volume per region, or with
--by-span of the bytes touched per span label.  --span PATTERN keeps, on
both sides, only the samples inside spans whose label contains PATTERN.
"""

import sys

import numpy as np

from . import heatmap as hm
from . import lib, libcompare, options
from .select import add_filter_args, make_selection
from .units import fmt_bytes


def fmt_pct(p):
    return "new" if p is None else "%+.1f%%" % p


def compute(tra, trb, bucket, sel_a, sel_b):
    """The library's comparison (libcompare.compare): rows per region and
    per span label, both reports, the bucket and B's scale."""
    return libcompare.compare(tra.path, trb.path, bucket=bucket, sel_a=sel_a, sel_b=sel_b)


def estimate_line(rep_a, rep_b, tra, trb, bucket):
    """For sampled traces (1 in N > 1): touched volume counts the buckets seen,
    a floor; the library's whole-run estimate with its interval beside it."""
    out = []
    for name, rep, tr in (("A", rep_a, tra), ("B", rep_b, trb)):
        e = rep["data_est"]
        if (tr.sample_period or 1) > 1 and tr.words["sample_class"] == "sampled-access":
            out.append("%s: 1 in %d sampled: %s touched seen, estimated %s [%s-%s]" % (
                name, tr.sample_period, fmt_bytes(rep["data"]["total"] * bucket), fmt_bytes(e["total"] * bucket),
                fmt_bytes(e["total_lo"] * bucket), fmt_bytes(e["total_hi"] * bucket)))
    if out:
        out.append("touched = distinct buckets seen: a floor where few samples per bucket (docs/accuracy.md)")
    return out


def format_table(rows, tot, names):
    lines = ["A = %s, B = %s" % names,
             "%-34s %12s %12s %9s %11s %11s %9s" % ("region", "A volume", "B volume", "change",
                                                   "A touched", "B touched", "change")]
    for r in [r for r in rows if r["a_samples"] or r["b_samples"]] + [tot]:   # not the idle regions
        lines.append("%-34s %12s %12s %9s %11s %11s %9s" % (
            r["key"][:34], fmt_bytes(r["a_volume"]), fmt_bytes(r["b_volume"]), fmt_pct(r["volume_change"]),
            fmt_bytes(r["a_touched"]), fmt_bytes(r["b_touched"]), fmt_pct(r["touched_change"])))
    return "\n".join(lines)


def format_span_table(rows, tot):
    """Per span label: spans, bytes touched in all of them and per span (mean), A vs B."""
    lines = ["%-34s %6s %6s %11s %11s %9s %11s %11s %9s" % ("span label", "A n", "B n", "A touched", "B touched",
                                                        "change", "A /span", "B /span", "change")]
    for r in rows + [tot]:
        lines.append("%-34s %6d %6d %11s %11s %9s %11s %11s %9s" % (
            " ".join(r["key"].split())[:34], r["a_spans"], r["b_spans"], fmt_bytes(r["a_touched"]),
            fmt_bytes(r["b_touched"]), fmt_pct(r["touched_change"]), fmt_bytes(r["a_avg_touched"]),
            fmt_bytes(r["b_avg_touched"]), fmt_pct(r["avg_touched_change"])))
    return "\n".join(lines)


def _panel_title(which, data, view):
    """'A: name', the heatmap's bucket, bin and samples, then what it shows
    (the selection; processes overlaid), a line each."""
    return "%s: %s\n%s%s" % (which, view.tr.name, hm.subtitle(data, view.tr, sep="\n"),
                             "\n" + view.what if view.what else "")


def _clear_of(left, right, gap_px=8):
    """Moves the right heatmap's left edge (its twin's too) right until its
    range names clear the left one's range starts, gap_px between them (at
    most 70 % of its width): the axes' spacing is fixed, the labels' widths
    are not."""
    fig = right.figure
    r = fig.canvas.get_renderer()
    starts = [t.get_window_extent(r).x1 for t in (left.sec.get_yticklabels() if left.sec else []) if t.get_text()]
    names = [t.get_window_extent(r).x0 for t in right.get_yticklabels() if t.get_text()]
    if not starts or not names or min(names) - max(starts) >= gap_px:
        return
    box = right.get_position()
    dx = min((max(starts) + gap_px - min(names)) / fig.bbox.width, 0.7 * box.width)
    right.set_position([box.x0 + dx, box.y0, box.width - dx, box.height])


def plot(va, vb, out, bucket, rows, tot, scale, top=12, ncols=600, max_rows=768, notes=(), by_span=False):
    from .plotting import byte_axis, cap, figure, save, trace_title
    da = hm.bin_view(va, bucket, ncols, max_rows)
    db = hm.bin_view(vb, bucket, ncols, max_rows)
    vmax = max(int(da.counts.max()) if da.counts.size else 1, int(db.counts.max()) if db.counts.size else 1)
    fig = figure(figsize=(15, 11))
    gs = fig.add_gridspec(2, 2, height_ratios=[1.25, 1], hspace=0.42, wspace=0.55)
    a1 = fig.add_subplot(gs[0, 0])
    a2 = fig.add_subplot(gs[0, 1])
    d1 = hm.draw(a1, da, va, title=_panel_title("A", da, va), vmax=vmax, cbar=False, right_label=False, fit=False)
    d2 = hm.draw(a2, db, vb, title=_panel_title("B", db, vb), vmax=vmax, cbar=False, right_label=False, fit=False)
    a2.set_ylabel("")
    if d2.blocks:
        cb = fig.colorbar(d2.mappable, ax=[a1, a2], fraction=0.025, pad=0.08)
        cb.set_label("%s per bucket per time bin (log, same scale)" % va.tr.words["samples"])
        hm._plain_log_ticks(cb)
    _clear_of(d1, a2)
    d1.fit()        # the axes' final sizes: after the colorbar took its share
    d2.fit()
    a3 = fig.add_subplot(gs[1, :])
    shown = rows[:top]
    x = np.arange(len(shown))
    w = 0.38
    field, change = ("a_touched", "b_touched"), "touched_change"
    if not by_span:
        field, change = ("a_volume", "b_volume"), "volume_change"
    av = [r[field[0]] for r in shown]
    bv = [r[field[1]] for r in shown]
    a3.bar(x - w / 2, av, w, label="A: %s" % va.tr.name, color="#1f77b4")
    a3.bar(x + w / 2, bv, w, label="B: %s%s" % (vb.tr.name, " (× %.3g for its sample period)" % scale
                                               if scale != 1 else ""), color="#ff7f0e")
    ymax = max(av + bv + [1])
    for xi, r in zip(x, shown):
        p = r[change]
        a3.text(xi, max(r[field[0]], r[field[1]]) + ymax * 0.02, fmt_pct(p), ha="center", fontsize=8,
                color="#2ca02c" if (p is not None and p < 0) else "#d62728" if p else "black")
    a3.set_xticks(x)
    a3.set_xticklabels([" ".join(r["key"].split())[:40] for r in shown], rotation=20, ha="right", fontsize=8)
    byte_axis(a3.yaxis, ymax * 1.15, nticks=5)
    a3.set_ylim(0, ymax * 1.15)
    verb = va.tr.words["verb"]
    if by_span:
        a3.set_ylabel("touched (distinct buckets × %s)" % fmt_bytes(bucket))
        a3.set_title("Bytes touched per span label, change B vs A in percent (total %s)"
                     % fmt_pct(tot["touched_change"]), fontsize=10)
    else:
        a3.set_ylabel("%s volume (samples × %s)" % (verb, fmt_bytes(bucket)))
        a3.set_title("%s volume per region, change B vs A in percent (total %s)"
                     % (cap(verb), fmt_pct(tot["volume_change"])), fontsize=10)
    a3.legend(fontsize=8)
    a3.grid(True, axis="y", alpha=0.3)
    if notes:   # sampled traces: touched is a floor, the estimate beside it
        fig.text(0.5, 0.005, "; ".join(notes[:-1]) + "\n" + notes[-1], ha="center", va="bottom", fontsize=8,
                 color="0.25")
    ta, tb = trace_title(va.tr), trace_title(vb.tr)
    # above the panels' titles, however many lines they have (a selection,
    # processes overlaid, cells merged)
    r = fig.canvas.get_renderer()
    top = max(a1.title.get_window_extent(r).y1, a2.title.get_window_extent(r).y1)
    fig.suptitle("Comparison of two traces: %s" % ta if ta == tb else
                 "Comparison of two traces — A: %s; B: %s" % (ta, tb), fontsize=12,
                 y=max(0.98, (top + 6) / fig.bbox.height), va="bottom")
    save(fig, out)


def add_args(p):
    options.add_report_args(p, windows=False, top=12)
    add_filter_args(p)
    p.add_argument("--by-span", action="store_true",
                   help="bars per span label (record --mark): bytes touched in A and B; and the span table")


def run(args, traces):
    from .cli import need_samples
    tra, trb = traces
    sa, sb = make_selection(tra, args), make_selection(trb, args)
    res = compute(tra, trb, options.bucket(args), sa, sb)
    rep_a, rep_b = res["a"], res["b"]
    need_samples(rep_a["samples"], tra, sa, "compare")
    need_samples(rep_b["samples"], trb, sb, "compare")
    bucket = res["bucket"]
    by_span = getattr(args, "by_span", False)
    if by_span and not res["spans"]:
        raise lib.MemtraceError("--by-span: neither trace has spans (record with --mark)")
    rows, tot = (res["spans"], res["spans_total"]) if by_span else (res["regions"], res["regions_total"])
    out = args.output or "compare.png"
    notes = estimate_line(rep_a, rep_b, tra, trb, bucket)
    plot(hm.View(tra, sa), hm.View(trb, sb), out, bucket, rows, tot, res["scale"], options.top(args, 12),
         notes=notes, by_span=by_span)
    print(format_table(res["regions"], res["regions_total"], (tra.name, trb.name)), file=sys.stderr)
    if res["spans"]:
        print(format_span_table(res["spans"], res["spans_total"]), file=sys.stderr)
    for line in notes:
        print(line, file=sys.stderr)
    return [out]


__all__ = ["compute", "plot", "run"]
