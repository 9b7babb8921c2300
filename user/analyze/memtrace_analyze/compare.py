"""compare: two traces side by side (paper 002 section 4.4, Figs. 7 and 8).

    memtrace-analyze compare A.mtrace B.mtrace -o compare.png [--bucket 4K] [--top 12]

Regions are matched by mapping label (name + permissions, with an ordinal
among equal labels in address order), so anonymous mappings that ASLR puts
elsewhere in B still pair up as long as the program maps them in the same
order.  Per region: accessed volume (samples x bucket size, the paper's
measure; B scaled by period_B / period_A when the sample periods differ) and
touched volume (distinct buckets x bucket size), with the change from A to
B in percent.  The figure shows both heatmaps with one colour scale above a
bar chart of the accessed volume per region.
"""

import sys

import numpy as np

from . import heatmap as hm
from . import options
from . import regions as rg
from .select import add_filter_args, make_selection
from .units import fmt_bytes


def pct(a, b):
    if a == 0:
        return None if b else 0.0
    return 100.0 * (b - a) / a


def fmt_pct(p):
    return "new" if p is None else "%+.1f%%" % p


def compute(regs_a, regs_b, period_a, period_b):
    """Rows per region label of the two reports' regions (the library's
    labels, ' #2' etc. among equal ones), B scaled by period_B / period_A."""
    ra = {r.key: r for r in regs_a}
    rb = {r.key: r for r in regs_b}
    scale = period_b / period_a
    rows = []
    for key in list(ra) + [k for k in rb if k not in ra]:
        a, b = ra.get(key), rb.get(key)
        va = a.volume if a else 0
        vb = (b.volume * scale) if b else 0
        ta = a.touched if a else 0
        tb = b.touched if b else 0
        rows.append({"key": key, "a_volume": va, "b_volume": vb, "volume_change": pct(va, vb),
                     "a_touched": ta, "b_touched": tb, "touched_change": pct(ta, tb),
                     "a_samples": a.samples if a else 0, "b_samples": b.samples if b else 0})
    rows.sort(key=lambda r: -max(r["a_volume"], r["b_volume"]))
    tot = {"key": "total"}
    for k in ("a_volume", "b_volume", "a_touched", "b_touched", "a_samples", "b_samples"):
        tot[k] = sum(r[k] for r in rows)
    tot["volume_change"] = pct(tot["a_volume"], tot["b_volume"])
    tot["touched_change"] = pct(tot["a_touched"], tot["b_touched"])
    return rows, tot, scale


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
    for r in rows + [tot]:
        lines.append("%-34s %12s %12s %9s %11s %11s %9s" % (
            r["key"][:34], fmt_bytes(r["a_volume"]), fmt_bytes(r["b_volume"]), fmt_pct(r["volume_change"]),
            fmt_bytes(r["a_touched"]), fmt_bytes(r["b_touched"]), fmt_pct(r["touched_change"])))
    return "\n".join(lines)


def plot(va, vb, out, bucket, rows, tot, scale, top=12, ncols=600, max_rows=768, notes=()):
    from .plotting import byte_axis, cap, plt, save, trace_title
    da = hm.bin_view(va, bucket, ncols, max_rows)
    db = hm.bin_view(vb, bucket, ncols, max_rows)
    vmax = max(int(da.counts.max()) if da.counts.size else 1, int(db.counts.max()) if db.counts.size else 1)
    fig = plt.figure(figsize=(15, 11))
    gs = fig.add_gridspec(2, 2, height_ratios=[1.25, 1], hspace=0.42, wspace=0.55)
    a1 = fig.add_subplot(gs[0, 0])
    a2 = fig.add_subplot(gs[0, 1])
    hm.draw(a1, da, va, title="A: %s\n%s" % (va.tr.name, hm.subtitle(da, va.tr, sep="\n")), vmax=vmax, cbar=False,
            right_label=False)
    b = a2
    img = hm.draw(a2, db, vb, title="B: %s\n%s" % (vb.tr.name, hm.subtitle(db, vb.tr, sep="\n")), vmax=vmax,
                  cbar=False, right_label=False)
    a2.set_ylabel("")
    if img is not None:
        cb = fig.colorbar(img, ax=[a1, b], fraction=0.025, pad=0.08)
        cb.set_label("%s per bucket per time bin (log, same scale)" % va.tr.words["samples"])
        hm._plain_log_ticks(cb)
    a3 = fig.add_subplot(gs[1, :])
    shown = rows[:top]
    x = np.arange(len(shown))
    w = 0.38
    av = [r["a_volume"] for r in shown]
    bv = [r["b_volume"] for r in shown]
    a3.bar(x - w / 2, av, w, label="A: %s" % va.tr.name, color="#1f77b4")
    a3.bar(x + w / 2, bv, w, label="B: %s%s" % (vb.tr.name, " (× %.3g for its sample period)" % scale
                                               if scale != 1 else ""), color="#ff7f0e")
    ymax = max(av + bv + [1])
    for xi, r in zip(x, shown):
        p = r["volume_change"]
        a3.text(xi, max(r["a_volume"], r["b_volume"]) + ymax * 0.02, fmt_pct(p), ha="center", fontsize=8,
                color="#2ca02c" if (p is not None and p < 0) else "#d62728" if p else "black")
    a3.set_xticks(x)
    a3.set_xticklabels([r["key"] for r in shown], rotation=20, ha="right", fontsize=8)
    byte_axis(a3.yaxis, ymax * 1.15, nticks=5)
    a3.set_ylim(0, ymax * 1.15)
    verb = va.tr.words["verb"]
    a3.set_ylabel("%s volume (samples × %s)" % (verb, fmt_bytes(bucket)))
    a3.set_title("%s volume per region, change B vs A in percent (total %s)" % (cap(verb), fmt_pct(tot["volume_change"])),
                 fontsize=10)
    a3.legend(fontsize=8)
    a3.grid(True, axis="y", alpha=0.3)
    if notes:   # sampled traces: touched is a floor, the estimate beside it
        fig.text(0.5, 0.005, "; ".join(notes[:-1]) + "\n" + notes[-1], ha="center", va="bottom", fontsize=8,
                 color="0.25")
    ta, tb = trace_title(va.tr), trace_title(vb.tr)
    fig.suptitle("Comparison of two traces: %s" % ta if ta == tb else
                 "Comparison of two traces — A: %s; B: %s" % (ta, tb), fontsize=12)
    save(fig, out)


def add_args(p):
    options.add_report_args(p, windows=False, top=12)
    add_filter_args(p)


def run(args, traces):
    from .cli import need_samples
    tra, trb = traces
    sa, sb = make_selection(tra, args), make_selection(trb, args)
    if not getattr(args, "bucket", None):
        args.bucket = str(tra.bucket_default)        # one bucket size for both (A's)
    rep_a, regs_a = rg.compute(tra, args, sa)
    rep_b, regs_b = rg.compute(trb, args, sb)
    need_samples(rep_a["samples"], tra, sa, "compare")
    need_samples(rep_b["samples"], trb, sb, "compare")
    bucket = rep_a["bucket"]
    rows, tot, scale = compute(regs_a, regs_b, tra.sample_period, trb.sample_period)
    out = args.output or "compare.png"
    notes = estimate_line(rep_a, rep_b, tra, trb, bucket)
    plot(hm.View(tra, sa), hm.View(trb, sb), out, bucket, rows, tot, scale, options.top(args, 12), notes=notes)
    print(format_table(rows, tot, (tra.name, trb.name)), file=sys.stderr)
    for line in notes:
        print(line, file=sys.stderr)
    return [out]


__all__ = ["compute", "plot", "run"]
