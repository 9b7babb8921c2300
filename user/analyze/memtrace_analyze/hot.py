"""hot: where the accesses go (paper 002, Figs. 4, 5a, 6).

    memtrace-analyze hot TRACE -o hot.png [--bucket 4K] [--range LO-HI | --mapping NAME] [--top 20]

Three panels: (1) sampled accesses per bucket sorted by address (compacted
address axis as in the heatmap); (2) buckets sorted by access count, x =
cumulative volume; (3) hot working-set size: bytes in buckets accessed at
least k times, against k.
"""

import numpy as np

from .binning import build_axis, log2_exact
from .select import add_filter_args, make_view
from .units import fmt_bytes, fmt_count, parse_size


class HotResult:
    def __init__(self, keys, counts, shift):
        self.keys, self.counts, self.shift = keys, counts, shift   # unique buckets, samples each

    @property
    def bucket(self):
        return 1 << self.shift

    def hot_wss(self):
        """(k, bytes accessed >= k times) for every distinct count k."""
        if self.counts.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        c = np.sort(self.counts)
        ks = np.unique(c)
        ge = c.size - np.searchsorted(c, ks, side="left")
        return ks, ge * self.bucket

    def top(self, n):
        o = np.argsort(-self.counts, kind="stable")[:n]
        return [(int(self.keys[i]) << self.shift, int(self.counts[i])) for i in o]


def bucket_counts(addr, bucket):
    shift = log2_exact(int(bucket))
    k, c = np.unique(addr >> np.uint64(shift), return_counts=True)
    return HotResult(k, c, shift)


def top_table(tr, res, n=20):
    """The n hottest buckets: address, samples, share and where: mapping +
    file offset (or the occupied range when the trace has no MAPS), plus the
    data object most of the bucket's samples fell into when the executable
    is readable; and, when
    the trace has instruction pointers, "by": the instruction that accessed
    the bucket most (symbolised) with its share of the bucket's samples."""
    from .regions import pseudo_maps
    from .symbols import DataSymbols
    from .wss import symbolize
    rows = []
    total = int(res.counts.sum()) or 1
    ms = tr.maps if len(tr.maps) or not tr.n else pseudo_maps(tr)
    syms = DataSymbols(tr)
    top = res.top(n)
    addrs, ips = {}, {}
    if top and (syms.names or tr.ip is not None):
        keys = tr.addr >> np.uint64(res.shift)
        want = np.array([a >> res.shift for a, _ in top], dtype=np.uint64)
        sel = np.isin(keys, want)
        ka, aa = keys[sel], tr.addr[sel]
        ia = tr.ip[sel] if tr.ip is not None else None
        for k in want.tolist():
            mine = ka == np.uint64(k)
            addrs[k] = aa[mine]
            if ia is not None:
                v, c = np.unique(ia[mine], return_counts=True)
                c[v == 0] = 0                  # samples without an ip
                if c.size and c.max() > 0:
                    j = int(np.argmax(c))
                    ips[k] = (int(v[j]), int(c[j]) / max(int(c[v != 0].sum()), 1))
    names = symbolize(tr, [ip for ip, _ in ips.values()]) if ips else {}
    for a, c in top:
        m = ms.find(a)
        # file offset for file mappings, as perf and `memtracectl report` print them
        where = "%s+%#x" % (m.short, a - m.start + m.offset) if m else "unmapped"
        sym = syms.hottest(addrs[a >> res.shift]) if syms.names and addrs else ""
        if sym:
            where += " (%s)" % sym
        row = {"addr": a, "samples": c, "share": c / total, "where": where}
        if (a >> res.shift) in ips:
            ip, share = ips[a >> res.shift]
            row["by"] = "%s %.0f%%" % (names.get(ip, "%#x" % ip), 100 * share)
        rows.append(row)
    return rows


def plot(view, out, bucket, max_rows=1024):
    from .heatmap import _groups, _thin_labels
    from .plotting import byte_axis, plt, save, trace_title

    tr = view.tr
    res = bucket_counts(tr.addr, bucket)
    axis = build_axis(tr.addr, bucket, max_rows=max_rows * 2, clip=view.clip)
    rows = axis.rows(tr.addr)
    per_row = np.bincount(rows[rows >= 0], minlength=axis.nrows)

    fig = plt.figure(figsize=(12, 8.5))
    gs = fig.add_gridspec(2, 2, height_ratios=[1, 1], hspace=0.62, wspace=0.25)
    ax1 = fig.add_subplot(gs[0, :])
    ax2 = fig.add_subplot(gs[1, 0])
    ax3 = fig.add_subplot(gs[1, 1])

    # (1) by address, ranges side by side with gaps cut out
    x = np.arange(axis.nrows)
    ax1.bar(x, per_row, width=1.0, color="#1f77b4", linewidth=0)
    cands = []
    for i, (lo, hi) in enumerate(axis.ranges):
        r0, r1 = int(axis.row0[i]), int(axis.row0[i + 1])
        if i > 0:
            ax1.axvline(r0 - 0.5, color="#d62728", lw=0.9, ls=(0, (4, 2)))
        for glo, ghi, name in _groups(tr.maps, lo, hi):
            a = r0 + ((glo - lo) >> axis.shift)
            b = r0 + (-(-(ghi - lo) // axis.bucket))
            if glo > lo:
                ax1.axvline(a - 0.5, color="0.6", lw=0.5, ls=":")
            cands.append(((a + min(b, r1)) / 2, b - a, "%s (%s)" % (name, fmt_bytes(ghi - glo))))
    ticks, labels = _thin_labels(cands, max(axis.nrows, 1), 0.035)
    ax1.set_xticks(ticks)
    ax1.set_xticklabels(labels, fontsize=7, rotation=25, ha="right", rotation_mode="anchor")
    ax1.set_xlim(-0.5, axis.nrows - 0.5)
    ax1.set_yscale("log")
    ax1.set_ylabel("sampled accesses per bucket")
    b = "bucket %s" % fmt_bytes(axis.bucket)
    if axis.shift != axis.requested_shift:
        b += " (coarsened from %s)" % fmt_bytes(1 << axis.requested_shift)
    ax1.set_title("Accesses by address (occupied ranges left to right, gaps cut out, %s)" % b, fontsize=10)
    ax1.set_xlabel("address")

    # (2) by frequency
    c = np.sort(res.counts)[::-1]
    vol = np.arange(1, c.size + 1) * res.bucket
    ax2.plot(vol, c, drawstyle="steps-post", color="#ff7f0e")
    ax2.fill_between(vol, c, step="post", alpha=0.3, color="#ff7f0e")
    ax2.set_yscale("log")
    ax2.set_xlabel("accessed volume, hottest buckets first")
    byte_axis(ax2.xaxis, vol[-1] if vol.size else 1)
    ax2.set_ylabel("sampled accesses per bucket")
    ax2.set_title("Buckets sorted by access count (%s buckets)" % fmt_bytes(res.bucket), fontsize=10)
    ax2.grid(True, alpha=0.3)

    # (3) hot working-set size
    ks, ge = res.hot_wss()
    ax3.plot(ks, ge, drawstyle="steps-post", color="#2ca02c", marker="." if ks.size < 60 else None)
    ax3.set_xscale("log")
    ax3.set_xlabel("k (sampled accesses per bucket, at least)")
    ax3.set_ylabel("bytes in buckets accessed ≥ k times")
    byte_axis(ax3.yaxis, ge.max() * 1.05 if ge.size else 1)
    ax3.set_title("Hot working-set size (total %s)" % fmt_bytes(res.counts.size * res.bucket), fontsize=10)
    ax3.grid(True, alpha=0.3, which="both")
    ax3.set_ylim(0, ge.max() * 1.05 if ge.size else 1)

    per = tr.header.get("sample_period", "1")
    note = "" if per in ("1", "") else " (×%s ≈ all accesses)" % per
    fig.suptitle("Hot data: %s\n%d samples%s%s" % (trace_title(tr), tr.n, note,
                                                   (" — " + view.what) if view.what else ""), fontsize=11)
    save(fig, out)
    return res, per_row, axis


def format_top(tr, rows, bucket):
    lines = ["hottest %s buckets:" % fmt_bytes(bucket), "  %10s %7s  %-18s  %s" % ("samples", "share", "bucket", "where")]
    for r in rows:
        lines.append("  %10s %6.2f%%  %#018x  %s%s" % (fmt_count(r["samples"]), 100 * r["share"], r["addr"], r["where"],
                                                      "  [by %s]" % r["by"] if "by" in r else ""))
    return "\n".join(lines)


def add_args(p):
    p.add_argument("--bucket", default=None, help="bucket size (default: trace's bucket_default, 4K)")
    p.add_argument("--top", type=int, default=20, help="hottest buckets listed on stderr (default 20)")
    add_filter_args(p)


def run(args, traces):
    import sys

    from .cli import need_samples
    tr = traces[0]
    view = make_view(tr, args)
    need_samples(view.tr, "hot")
    bucket = parse_size(args.bucket) if args.bucket else tr.bucket_default
    out = args.output or "hot.png"
    res, _, _ = plot(view, out, bucket)
    print(format_top(view.tr, top_table(view.tr, res, args.top), bucket), file=sys.stderr)
    return [out]
