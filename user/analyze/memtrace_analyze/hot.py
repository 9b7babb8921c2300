"""hot: where the accesses go (paper 002, Figs. 4, 5a, 6).

    memtrace-analyze hot TRACE -o hot.png [--bucket 4K] [--range LO-HI | --mapping NAME] [--top 20]

Three panels: (1) sampled accesses per bucket sorted by address (compacted
address axis as in the heatmap); (2) buckets sorted by access count, x =
cumulative volume; (3) hot working-set size: bytes in buckets accessed at
least k times, against k.  Every count, the curve and the hot table (names,
"accessed by" = function shares) come from memtrace_report_compute.
"""

import sys

import numpy as np

from . import lib, options, spaces
from .binning import build_axis
from .select import Addresses, add_filter_args, make_selection
from .units import fmt_bytes, fmt_count

FLAGS = lib.REPORT_ALL_BUCKETS | lib.REPORT_FULL_CURVE


def accessed_by(h, n=3):
    """'quicksort 71%, main 29%': the functions' shares of the bucket's
    samples that carry an instruction pointer (as memtracectl report)."""
    if not h["with_ip"] or not h["functions"]:
        return ""
    return ", ".join("%s %.0f%%" % (f["name"] or "%#x" % f["addr"], 100.0 * f["count"] / h["with_ip"])
                     for f in h["functions"][:n])


def top_instruction(h):
    """'quicksort+0x12 (dbquery.c:100) 64%': the instruction with the most
    of the bucket's samples, or ''."""
    if not h["with_ip"] or not h["ips"]:
        return ""
    i = h["ips"][0]
    loc = i["name"] or "%#x" % i["addr"]
    if i["file"]:
        loc += " (%s:%d)" % (i["file"], i["line"])
    return "%s %.0f%%" % (loc, 100.0 * i["count"] / h["with_ip"])


def top_table(rep, addrs=None):
    """addrs: select.Addresses, for the bucket's address in its process
    (pid, address; addr is the report's key)."""
    total = rep["samples"] or 1
    rows = []
    for h in rep["hot_data"]:
        where = h["where"] + (" " + h["object"] if h["object"] else "")    # as memtracectl report
        pid, address = addrs.decode(h["addr"]) if addrs else (0, h["addr"])
        rows.append({"addr": h["addr"], "pid": pid, "address": address, "samples": h["count"],
                     "share": h["count"] / total, "where": where,
                     "by": accessed_by(h), "instruction": top_instruction(h)})
    return rows


def plot(view_layout, tr, rep, out, what="", clip=None, max_rows=1024, mode="addr"):
    """view_layout: the layout of the address axis of mode (spaces.py):
    the report's keys as they are, or overlaid."""
    from .heatmap import _groups, _thin_labels
    from .plotting import byte_axis, count_log_axis, figure, save, trace_title

    bucket = rep["bucket"]
    baddr, bcount = rep["bucket_addr"], rep["bucket_count"]
    if mode == "overlay":
        baddr = spaces.overlay_addresses(baddr)
    axis = build_axis(baddr, bucket, max_rows=max_rows * 2, clip=clip)
    rows = axis.rows(baddr)
    ok = rows >= 0
    per_row = np.bincount(rows[ok], weights=bcount[ok].astype(np.float64), minlength=axis.nrows)

    fig = figure(figsize=(12, 8.5))
    gs = fig.add_gridspec(2, 2, height_ratios=[1, 1], hspace=0.62, wspace=0.25)
    ax1 = fig.add_subplot(gs[0, :])
    ax2 = fig.add_subplot(gs[1, 0])
    ax3 = fig.add_subplot(gs[1, 1])

    # (1) by address, ranges side by side with gaps cut out
    # one filled step path, not one bar artist per row (2048 rows: 3 s of matplotlib)
    edges = np.arange(axis.nrows + 1, dtype=np.float64) - 0.5
    ax1.fill_between(edges, np.append(per_row, per_row[-1:]), step="post", color="#1f77b4", linewidth=0)
    cands, cuts, groups = [], [], []
    for i, (lo, hi) in enumerate(axis.ranges):
        r0, r1 = int(axis.row0[i]), int(axis.row0[i + 1])
        if i > 0:
            cuts.append(r0 - 0.5)
        for glo, ghi, name in _groups(view_layout, lo, hi):
            a = r0 + ((glo - lo) >> axis.shift)
            b = r0 + (-(-(ghi - lo) // axis.bucket))
            if glo > lo:
                groups.append(a - 0.5)
            cands.append(((a + min(b, r1)) / 2, b - a, "%s (%s)" % (name, fmt_bytes(ghi - glo))))
    # as axvline, one LineCollection each (one artist per line cost seconds)
    if cuts:
        ax1.vlines(cuts, 0, 1, transform=ax1.get_xaxis_transform(), color="#d62728", lw=0.9, ls=(0, (4, 2)))
    if groups:
        ax1.vlines(groups, 0, 1, transform=ax1.get_xaxis_transform(), color="0.6", lw=0.5, ls=":")
    ticks, labels = _thin_labels(cands, max(axis.nrows, 1), 0.035)
    ax1.set_xticks(ticks)
    ax1.set_xticklabels(labels, fontsize=7, rotation=25, ha="right", rotation_mode="anchor")
    ax1.set_xlim(-0.5, axis.nrows - 0.5)
    count_log_axis(ax1, "y")
    w = tr.words
    ax1.set_ylabel("%s per bucket" % w["samples"])
    b = "bucket %s" % fmt_bytes(axis.bucket)
    if axis.shift != axis.requested_shift:
        b += " (coarsened from %s)" % fmt_bytes(1 << axis.requested_shift)
    ax1.set_title("%s by address (occupied ranges left to right, gaps cut out, %s)" % (w["activity"], b), fontsize=10)
    ax1.set_xlabel("address")

    # (2) by frequency: the buckets sorted by count, drawn from the library's
    # curve at every distinct count k (buckets >= k times end at rank nb):
    # as many points as distinct counts, not one per bucket
    curve = rep["curve"]
    c = np.array([k for k, _, _ in reversed(curve)], dtype=np.float64)
    vol = np.array([nb * bucket for _, nb, _ in reversed(curve)], dtype=np.float64)
    if c.size:
        c, vol = np.concatenate([c[:1], c]), np.concatenate([[0.0], vol])
    ax2.plot(vol, c, drawstyle="steps-pre", color="#ff7f0e")
    ax2.fill_between(vol, c, step="pre", alpha=0.3, color="#ff7f0e")
    count_log_axis(ax2, "y")
    ax2.set_xlabel("%s volume, buckets with the most %s first" % (w["verb"], w["samples"]))
    byte_axis(ax2.xaxis, vol[-1] if vol.size else 1)
    ax2.set_ylabel("%s per bucket" % w["samples"])
    ax2.set_title("Buckets sorted by count of %s (%s buckets)" % (w["samples"], fmt_bytes(bucket)), fontsize=10)
    ax2.grid(True, alpha=0.3)

    # (3) hot working-set size (the library's curve)
    ks = np.array([k for k, _, _ in rep["curve"]], dtype=np.float64)
    ge = np.array([nb * bucket for _, nb, _ in rep["curve"]], dtype=np.float64)
    ax3.plot(ks, ge, drawstyle="steps-post", color="#2ca02c", marker="." if ks.size < 60 else None)
    count_log_axis(ax3, "x")
    ax3.set_xlabel("k (%s per bucket, at least)" % w["samples"])
    ax3.set_ylabel("bytes in buckets %s ≥ k times" % w["verb"])
    byte_axis(ax3.yaxis, ge.max() * 1.05 if ge.size else 1)
    ax3.set_title("%s (total %s)" % (w["curve"], fmt_bytes(rep["data"]["total"] * bucket)), fontsize=10)
    ax3.grid(True, alpha=0.3, which="both")
    ax3.set_ylim(0, ge.max() * 1.05 if ge.size else 1)

    per = tr.sample_period
    note = "" if per <= 1 else " (×%d ≈ all accesses)" % per
    fig.suptitle("%s data: %s\n%d %s%s%s" % (w["hot"], trace_title(tr), rep["samples"], w["samples"], note,
                                                   (" — " + what) if what else ""), fontsize=11)
    save(fig, out)
    return per_row, axis


def format_top(rows, bucket, words):
    lines = ["%s %s data buckets (%s by: functions' shares of the samples with an ip):" % (
        words["hot"], fmt_bytes(bucket), words["verb"]),
             "  %10s %7s  %-18s  %s" % (words["count"], "share", "bucket", "where")]
    for r in rows:
        extra = ""
        if r["by"]:
            extra = "  [%s by %s; top instruction %s]" % (words["verb"], r["by"], r["instruction"])
        lines.append("  %10s %6.2f%%  %#018x  %s%s" % (fmt_count(r["samples"]), 100 * r["share"], r["address"],
                                                      r["where"], extra))
    return "\n".join(lines)


def axis_of(tr, sel, rep):
    """(mode, layout, what) of the by-address panel (spaces.py) from the
    processes the report's keys hold; what: the selection, and the overlay."""
    n, primary = spaces.key_spaces(rep["bucket_addr"])
    m = spaces.mode(bool(tr.info.maps), n, sel.pid, primary)
    return m, spaces.layout(tr, sel, m), spaces.with_note(rep.get("region_line") or sel.what, m, n)


def add_args(p):
    options.add_report_args(p, windows=False, top=20)
    add_filter_args(p)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    sel = make_selection(tr, args)
    rep = options.compute(tr, args, sel, FLAGS)[0]
    need_samples(rep["samples"], tr, sel, "hot")
    out = args.output or "hot.png"
    m, layout, what = axis_of(tr, sel, rep)
    plot(layout, tr, rep, out, what, sel.clip, mode=m)
    if rep.get("region_line"):
        print(rep["region_line"], file=sys.stderr)
    print(format_top(top_table(rep, Addresses(rep, sel.pid or tr.info.target_pid)), rep["bucket"], tr.words), file=sys.stderr)
    return [out]
