"""report: every figure and the summary into one folder with index.html.

    memtrace-analyze report TRACE -o OUTDIR [--bucket 4K] [--tau ...] [--interval ...]
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
from . import regions as rg
from . import wss as wssmod
from .select import View, add_filter_args, make_view
from .trace import read_trace
from .units import fmt_bytes, fmt_count, fmt_time, parse_size

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


def build(tr, outdir, bucket=None, interval=None, taus=None, args=None, other=None):
    os.makedirs(outdir, exist_ok=True)
    view = make_view(tr, args) if args is not None else View(tr)
    sel = view.tr
    bucket = bucket or tr.bucket_default
    wres = None
    parts = []
    files = []
    u = tr.time_unit
    if sel.n:
        last = int(sel.time.max())
        interval = interval or wssmod.nice_interval(max(last - sel.start_time, 1))
        taus = taus or [interval, 10 * interval]
        wres = wssmod.compute(sel, bucket, interval, taus)
    s = infomod.summarize(tr, wres)
    summary_text = infomod.format_summary(s, tr)
    title = "memtrace report: %s" % (tr.header.get("target_comm") or tr.name)
    parts.append("<h1>%s</h1>" % html.escape(title))
    parts.append("<pre>%s</pre>" % html.escape(summary_text))
    if view.what:
        parts.append('<p class="note">Figures show a selection: %s</p>' % html.escape(view.what))
    if not sel.n:
        parts.append('<p class="note">The trace holds no samples%s: there is nothing to plot. '
                     'Check the recording (event, period, whether the target ran).</p>'
                     % (" in the selection" if view.what else ""))
    else:
        hd = hm.plot(view, os.path.join(outdir, "heatmap.png"), bucket)
        files.append("heatmap.png")
        parts.append("<h2>Accesses over time</h2>")
        parts.append(_figure("heatmap.png", "x = time, y = address (occupied ranges only; red dashed lines mark "
                             "cut-out gaps), colour = sampled accesses per %s bucket per time bin of %s (log scale)."
                             % (fmt_bytes(hd.axis.bucket), fmt_time(hd.bin_time, u))))

        wssmod.plot(sel, wres, os.path.join(outdir, "wss.png"))
        files.append("wss.png")
        peaks = wssmod.peak_table(sel, wres)
        parts.append("<h2>Working-set size over time</h2>")
        parts.append(_figure("wss.png", "WS(t, τ): distinct %s buckets sampled in (t − τ, t], every %s. "
                             "Numbered boxes are peaks (valgrind-ws peak detection)."
                             % (fmt_bytes(bucket), fmt_time(wres.interval, u))))
        if peaks:
            parts.append(_table(["#", "kind", "WSS", "at", "peak from", "to", "code location", "data mostly in"],
                                [[p["number"], p["kind"], fmt_bytes(p["wss_buckets"] * bucket),
                                  fmt_time(p["time"] - wres.start, u), fmt_time(p["from"] - wres.start, u),
                                  fmt_time(p["to"] - wres.start, u), p.get("location", "(no ip recorded)"),
                                  "%s (%.0f%%)" % (p["data_mapping"], 100 * p["data_share"])
                                  if "data_mapping" in p else "-"] for p in peaks]))
        else:
            parts.append("<p>No peaks detected.</p>")

        hres, _, _ = hotmod.plot(view, os.path.join(outdir, "hot.png"), bucket)
        files.append("hot.png")
        top = hotmod.top_table(sel, hres, 20)
        parts.append("<h2>Hot data</h2>")
        parts.append(_figure("hot.png", "Top: sampled accesses per bucket by address. Bottom left: buckets sorted "
                             "by access count. Bottom right: bytes in buckets accessed at least k times."))
        parts.append(_table(["bucket", "where", "samples", "share", "mostly accessed by"],
                            [["%#x" % r["addr"], r["where"], r["samples"], "%.2f%%" % (100 * r["share"]),
                              r.get("by", "(no ip recorded)")] for r in top], numeric=(2, 3)))

        regs = rg.compute(sel, bucket)
        rg.plot(sel, regs, os.path.join(outdir, "regions.png"))
        files.append("regions.png")
        parts.append("<h2>Regions (mappings)</h2>")
        parts.append(_figure("regions.png", "Sampled accesses and touched volume per mapping."))
        total = sum(r.samples for r in regs) or 1
        parts.append(_table(["region", "address range", "samples", "share", "est. accesses", "touched",
                             "accessed volume"],
                            [[r.key, "%#x-%#x" % (r.start, r.end) if r.end else "-", r.samples,
                              "%.2f%%" % (100.0 * r.samples / total), fmt_count(r.est_accesses),
                              fmt_bytes(r.touched), fmt_bytes(r.volume)] for r in regs], numeric=(2, 3, 4, 5, 6)))
        s["peaks"] = peaks
        s["regions"] = [r.as_dict() for r in regs]
        s["hot"] = top
        if other is not None:
            vb = make_view(other, args) if args is not None else View(other)
            if vb.tr.n:
                rows, tot, scale = cmpmod.compute(sel, vb.tr, bucket)
                cmpmod.plot(view, vb, os.path.join(outdir, "compare.png"), bucket, rows, tot, scale)
                files.append("compare.png")
                parts.append("<h2>Comparison with %s</h2>" % html.escape(other.name))
                parts.append(_figure("compare.png", "Both traces with one colour scale; accessed volume per region "
                                     "and its change in percent."))
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
    p.add_argument("--bucket", default=None, help="bucket size (default: trace's bucket_default, 4K)")
    p.add_argument("--tau", default=None, help="WSS window(s), comma separated (default: T and 10·T)")
    p.add_argument("--interval", default=None, help="WSS evaluation interval T (default: span/400)")
    p.add_argument("--compare", metavar="TRACE", help="also compare with this trace (B)")
    add_filter_args(p)


def run(args, traces):
    tr = traces[0]
    bucket = parse_size(args.bucket) if args.bucket else None
    _, interval, taus = wssmod.params(tr, args) if (args.tau or args.interval) else (None, None, None)
    other = None
    if args.compare:
        other = read_trace(args.compare, verify_crc=not args.no_crc)
        for w in other.warnings:
            print("memtrace-analyze: warning: %s: %s" % (other.name, w), file=sys.stderr)
    outdir = args.output or "report"
    index, files, s = build(tr, outdir, bucket, interval, taus, args, other)
    if not s["samples"]:
        print("memtrace-analyze: %s: the trace holds no samples; wrote the summary only" % tr.name, file=sys.stderr)
    return [index]
