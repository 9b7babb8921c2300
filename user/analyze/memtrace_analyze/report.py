"""report: every figure and the summary into one folder with index.html.

    memtrace-analyze report TRACE -o OUTDIR [--bucket 4K] [--window ...] [--interval ...]
        [--compare OTHER.mtrace]

Writes OUTDIR/heatmap.png, wss.png, hot.png, regions.png (and compare.png
with --compare), summary.txt, summary.json and index.html.  A trace without
samples still gets an index.html with its summary and a clear note.
"""

import html
import json
import os
import sys

from . import compare as cmpmod
from . import heatmap as hm
from . import hot as hotmod
from . import info as infomod
from . import lib, options
from . import regions as rg
from . import wss as wssmod
from .select import Addresses, add_filter_args, make_selection
from .units import fmt_bytes, fmt_count, fmt_time

CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1400px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; }
th { text-align: left; background: #f4f4f4; } td.n { text-align: right; font-family: monospace; }
pre { background: #f7f7f7; padding: 0.6em; font-size: 0.85em; overflow-x: auto; }
img { max-width: 100%; border: 1px solid #ddd; } .note { color: #a40; } figcaption { font-size: 0.85em; color: #555; }
"""


def _table(headers, rows, numeric=()):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(h) for h in headers)]
    for r in rows:
        out.append("<tr>%s</tr>" % "".join(
            '<td%s>%s</td>' % (' class="n"' if i in numeric else "", html.escape(str(c))) for i, c in enumerate(r)))
    out.append("</table>")
    return "\n".join(out)


def _figure(name, caption):
    return '<figure><a href="%s"><img src="%s" alt="%s"></a><figcaption>%s</figcaption></figure>' % (
        name, name, html.escape(caption), html.escape(caption))


def build(tr, outdir, args, other=None):
    """Writes every figure, summary.{txt,json} and index.html; returns
    (index path, files, summary dict)."""
    os.makedirs(outdir, exist_ok=True)
    sel = make_selection(tr, args)
    parts = []
    files = []
    u = tr.time_unit
    res = None
    # record --aggregate: per-interval bucket counts, no samples: no heatmap, regions, comparison
    agg = tr.meta("aggregate") is not None
    if tr.n:
        res = wssmod.compute(tr, args, sel, hotmod.FLAGS | (0 if agg else lib.REPORT_REGIONS),
                             options.top(args, 20))
    rep = res.reps[0] if res else None
    s = infomod.summarize(tr, res)
    summary_text = infomod.format_summary(s, tr)
    title = "memtrace report: %s" % (tr.target_comm or tr.name)
    w = tr.words
    parts.append("<h1>%s</h1>" % html.escape(title))
    parts.append("<pre>%s</pre>" % html.escape(summary_text))
    if sel.what:
        parts.append('<p class="note">Figures show a selection: %s</p>' % html.escape(sel.what))
    if rep and rep.get("region_line"):
        parts.append('<p class="note">%s</p>' % html.escape(rep["region_line"]))
    if not rep or not rep["samples"]:
        parts.append('<p class="note">The trace holds no samples%s: there is nothing to plot. '
                     'Check the recording (event, period, whether the target ran).</p>'
                     % (" in the selection" if sel.what else ""))
    else:
        bucket = rep["bucket"]
        view = None if agg else hm.View(tr, sel)
        # hot's address axis as the heatmap's (spaces.py)
        mode, layout, what = hotmod.axis_of(tr, sel, rep) if agg else (view.mode, view.layout, view.what)
        addrs = Addresses(rep, sel.pid or tr.info.target_pid)      # keys -> addresses in their process
        regs = [] if agg else rg.from_report(rep, tr.sample_period, addrs)
        # the figures from the numbers above: hot, regions and WSS taken by
        # workers (and this process, once done) while this process draws the
        # heatmap, the longest (painter.Painter)
        from .painter import Painter
        painter = Painter()
        painter.add(hotmod.plot, layout, tr, rep, os.path.join(outdir, "hot.png"), what, sel.clip, mode=mode)
        if not agg:
            painter.add(rg.plot, tr, regs, os.path.join(outdir, "regions.png"))
        painter.add(wssmod.plot, tr, res, os.path.join(outdir, "wss.png"))
        painter.start()
        try:
            hd = None if agg else hm.plot(view, os.path.join(outdir, "heatmap.png"), bucket)
        finally:
            painter.finish()

        if agg:
            parts.append('<p class="note">An aggregated trace (record --aggregate): counts per bucket '
                         'and interval, no per-sample data; no heatmap, regions or comparison.</p>')
        else:
            files.append("heatmap.png")
            parts.append("<h2>%s over time</h2>" % html.escape(w["activity"]))
            parts.append("<p>%s: %s.</p>" % (html.escape(w["sample_class"]), html.escape(w["measure"])))
            parts.append(_figure("heatmap.png", "x = time, y = address (occupied ranges only; red dashed lines "
                                 "mark cut-out gaps), colour = %s per %s bucket per time bin of %s (log scale; "
                                 "where cells outnumber pixels, a pixel shows the busiest of them: the title "
                                 "says how many)." % (w["samples"], fmt_bytes(hd.axis.bucket), fmt_time(hd.bin_time, u))))

        files.append("wss.png")
        peaks = wssmod.peak_rows(res)
        parts.append("<h2>%s over time</h2>" % html.escape(w["series_title"]))
        parts.append(_figure("wss.png", "distinct %s buckets with %s in (t − τ, t], every %s. "
                             "Numbered boxes are peaks (valgrind-ws peak detection)."
                             % (fmt_bytes(bucket), w["samples"], fmt_time(res.interval, u))))
        if peaks:
            parts.append(_table(["#", w["wss"], "at", "peak from", "to", "code location", "data mostly in"],
                                [[p["number"], fmt_bytes(p["wss_buckets"] * bucket), fmt_time(p["time"], u),
                                  fmt_time(p["from"], u), fmt_time(p["to"], u), p["location"],
                                  p["data_mapping"] or "-"] for p in peaks]))
        else:
            parts.append("<p>No peaks detected.</p>")

        files.append("hot.png")
        top = hotmod.top_table(rep, addrs)
        parts.append("<h2>%s data</h2>" % html.escape(w["hot"]))
        parts.append(_figure("hot.png", "Top: %s per bucket by address. Bottom left: buckets sorted "
                             "by their count. Bottom right: bytes in buckets %s at least k times."
                             % (w["samples"], w["verb"])))
        parts.append(_table(["bucket", "where", w["count"], "share", "%s by (functions)" % w["verb"],
                             "top instruction"],
                            [[addrs.text(r["addr"]), r["where"], r["samples"], "%.2f%%" % (100 * r["share"]),
                              r["by"] or "(no ip recorded)", r["instruction"] or "-"] for r in top],
                            numeric=(2, 3)))

        if not agg:
            files.append("regions.png")
            parts.append("<h2>Regions (mappings)</h2>")
            parts.append(_figure("regions.png", "%s and touched volume per mapping." % w["samples"].capitalize()))
            total = sum(r.samples for r in regs) or 1
            est = "est. accesses" if w["sample_class"] == "sampled-access" else w["samples"]
            parts.append(_table(["region", "address range", "samples", "share", est, "touched",
                                 "%s volume" % w["verb"]],
                                [[r.key, r.range_text, r.samples,
                                  "%.2f%%" % (100.0 * r.samples / total), fmt_count(r.est_accesses),
                                  fmt_bytes(r.touched), fmt_bytes(r.volume)] for r in regs], numeric=(2, 3, 4, 5, 6)))
        s["peaks"] = peaks
        s["regions"] = [r.as_dict() for r in regs]
        s["hot"] = top
        if other is not None and not agg:
            sb = make_selection(other, args)
            res = cmpmod.compute(tr, other, bucket, sel, sb)
            if res["b"]["samples"]:
                rows, tot, scale = res["regions"], res["regions_total"], res["scale"]
                cmpmod.plot(view, hm.View(other, sb), os.path.join(outdir, "compare.png"), bucket, rows, tot, scale)
                files.append("compare.png")
                parts.append("<h2>Comparison with %s</h2>" % html.escape(other.name))
                parts.append(_figure("compare.png", "Both traces with one colour scale; %s volume per region "
                                     "and its change in percent." % w["verb"]))
                parts.append("<pre>%s</pre>" % html.escape(cmpmod.format_table(rows, tot, (tr.name, other.name))))
                s["compare"] = {"rows": rows, "total": tot}
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(summary_text + "\n")
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(s, f, indent=1, default=str)
    page = ("<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head>"
            "<body>%s<p style=\"color:#888;font-size:0.8em\">written by memtrace-analyze report; "
            "summary.json holds the same numbers</p></body></html>") % (html.escape(title), CSS, "\n".join(parts))
    index = os.path.join(outdir, "index.html")
    with open(index, "w") as f:
        f.write(page)
    return index, files, s


def add_args(p):
    options.add_report_args(p, top=20)
    p.add_argument("--compare", metavar="TRACE", help="also compare with this trace (B)")
    add_filter_args(p)


def run(args, traces):
    tr = traces[0]
    other = lib.Trace(args.compare) if args.compare else None
    outdir = args.output or "report"
    index, files, s = build(tr, outdir, args, other)
    if not s["samples"]:
        print("memtrace-analyze: %s: the trace holds no samples; wrote the summary only" % tr.name, file=sys.stderr)
    return [index]
