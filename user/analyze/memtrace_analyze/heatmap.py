"""heatmap: x = time, y = address (compacted to the occupied ranges),
colour = samples per bucket and time bin (log scale), named by the trace's
sample class (sampled accesses, accesses, page faults: lib.Trace.words).

    memtrace-analyze heatmap TRACE -o heatmap.png [--bucket 4K] [--width 1000]
        [--max-rows 1024] [--range LO-HI] [--mapping NAME] [--time-range A-B]
        [--sites]

--sites (a trace recorded with --allocs): the ranges are named by the
allocation sites of the blocks there (memtrace_sites_compute), and each
block is outlined over its lifetime in its site's colour.

The library decodes the time and addr columns (filtered) into numpy arrays
and bins them (memtrace_bin_*, include/memtrace/heatmap.h); the figure is
drawn here.  Range labels come from
memtrace_resolver_layout (the mapping that owns each address).  Without
--pid, up to 64 processes (with MAPS) lie side by side: the y axis holds
address-space keys (memtrace_resolver_keys), each process's private memory
apart, a shared page once; more processes are overlaid, each at its own
addresses (spaces.py).  Cells beyond the pixels are merged (_fit_to_pixels)
and coloured here (_colours) before matplotlib sees them.
"""

import numpy as np

from . import lib, spaces
from .binning import build_axis, heatmap_counts
from .select import add_filter_args, make_selection, time_span
from .units import TimeAxis, fmt_bytes, fmt_time

COLUMNS = ("time", "addr")      # sample columns this verb decodes
MIN_RANGE_FRACTION = 0.025   # every address range gets at least this much height
GAP_FONT = 6.5               # points, the "gap ... cut" labels


class HeatmapData:
    """The binned matrix and its axes (what the figure shows)."""

    def __init__(self, counts, axis, t0, t1, ncols, n_in):
        self.counts, self.axis, self.t0, self.t1, self.ncols, self.n_in = counts, axis, t0, t1, ncols, n_in

    @property
    def bin_time(self):
        return (self.t1 - self.t0) / self.ncols


class View:
    """A trace, its selection, the decoded (time, addr) columns and the
    address layout that names the ranges."""

    def __init__(self, tr, sel, cols=None, layout=None):
        self.tr, self.sel = tr, sel
        self._keys = None       # the Resolver whose keys the addr column holds
        self.cols = tr.read(COLUMNS + ("pid",), sel) if cols is None else cols
        self.t0, self.t1 = time_span(tr, sel)
        self.clip = sel.clip
        self.what = sel.what
        # the address axis (spaces.py): one process's addresses, a few
        # processes side by side (keys), or many overlaid
        pids = np.unique(self.cols["pid"]) if "pid" in self.cols else None
        self.nprocs = int(pids.size) if pids is not None else 1
        primary = pids is None or pids.size == 0 or (pids.size == 1 and int(pids[0]) == tr.info.target_pid)
        self.mode = spaces.mode(bool(tr.info.maps), self.nprocs, sel.pid, primary) if layout is None else "addr"
        if layout is None:
            if self.mode == "keys":     # as report buckets them: the target's addresses, the others' tagged
                r = lib.Resolver(tr.path, labels=sel.labels)
                self.cols["addr"] = r.keys(self.cols["pid"], self.cols["addr"], inplace=True)
                layout = r.layout(lib.LAYOUT_KEYS)
                self._keys = r      # addr_text decodes the keys
            else:
                layout = spaces.layout(tr, sel, self.mode)
        self.what = spaces.with_note(self.what, self.mode, self.nprocs)
        self.layout_is_addr = self.mode != "keys"
        self.layout = layout
        self.site_blocks = None     # set_sites()
        self.blind = None           # set_blind(): the report's blind windows

    def set_blind(self):
        """A pass-based source's blind windows (memtrace_report_compute's, at
        its default window of at least one pass period): drawn hatched."""
        if not (self.tr.meta("passes") or self.tr.passes()):
            return
        r = lib.report(self.tr.path, top=1, sel=self.sel, flags=lib.REPORT_NO_SOURCE)
        b = r["blind"]
        if b["state"] == "known" and b["runs"]:
            self.blind = dict(b, window=r["window"],
                              spans=[(max(f - r["window"], 0), l) for f, l in b["runs"]])

    def set_sites(self, s):
        """Names the ranges by allocation site: s from sites.sites()."""
        b = s["blocks"]
        keep = np.ones(b["key_start"].size, bool)
        start, end = b["key_start"].copy(), b["key_end"].copy()
        if self.sel.pid or self.layout_is_addr:
            if self.mode != "overlay":
                keep = b["pid"] == (self.sel.pid or self.tr.info.target_pid)
            start = spaces.overlay_addresses(b["key_start"])
            end = end - (b["key_start"] - start)
        names = [x["name"] for x in s["sites"]]
        self.site_names = names
        self.site_blocks = [(int(a), int(e), int(t0), int(t1), int(k))
                            for a, e, t0, t1, k, ok in zip(start, end, b["t0"], b["t1"], b["site"], keep) if ok]
        self.layout = _site_layout(self.site_blocks, names, self.layout)

    def addr_text(self, a):
        """An address of the y axis as its process sees it: "0x7f..."; with
        address-space keys (several processes) a key is decoded, and another
        process than the target gets its pid: "pid 1234 0x7f..."."""
        if self._keys is None:
            return "%#x" % a
        pid, addr, _ = self._keys.decode(a)
        if pid and pid != self.tr.info.target_pid:
            return "pid %d %#x" % (pid, addr)
        return "%#x" % addr

    @property
    def n(self):
        return int(self.cols["time"].size)


def bin_view(view, bucket=4096, ncols=1000, max_rows=1024, gap=None):
    addr, time = view.cols["addr"], view.cols["time"]
    axis = build_axis(addr, bucket, max_rows=max_rows, gap=gap, clip=view.clip)
    counts = heatmap_counts(axis, addr, time, view.t0, view.t1, ncols, check=view.clip is not None)
    return HeatmapData(counts, axis, view.t0, view.t1, ncols, view.n)


def _groups(layout, lo, hi):
    """(lo, hi, name) of the layout ranges inside [lo, hi), adjacent ranges
    of one name merged; stretches no range covers are 'unmapped'.  A trace
    without MAPS chunks gets the start address as the name."""
    if not layout:
        return [[lo, hi, "%#x" % lo]]
    out = []
    cur = lo
    for (start, end, name, _perms) in layout:
        if end <= lo or start >= hi:
            continue
        a, b = max(start, lo), min(end, hi)
        if a > cur:
            out.append([cur, a, "unmapped"])
        if out and out[-1][2] == name and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b, name])
        cur = max(cur, b)
    if cur < hi:
        out.append([cur, hi, "unmapped"])
    return out


def _site_layout(blocks, names, layout):
    """The layout with the address ranges of recorded blocks named by their
    sites ("A / B" where blocks of several sites held the same addresses at
    different times); the rest keeps its mapping names."""
    edges = sorted({a for b in blocks for a in b[:2]})
    pieces = []
    for lo, hi in zip(edges, edges[1:]):
        sites = sorted({b[4] for b in blocks if b[0] < hi and b[1] > lo})
        if sites:
            name = " / ".join(names[k] for k in sites)
            if pieces and pieces[-1][2] == name and pieces[-1][1] == lo:
                pieces[-1][1] = hi
            else:
                pieces.append([lo, hi, name, "site"])
    out = []
    for (start, end, name, perms) in layout:     # mappings minus the site ranges
        cur = start
        for (a, b, _n, _p) in pieces:
            if b <= cur or a >= end:
                continue
            if a > cur:
                out.append((cur, a, name, perms))
            cur = max(cur, b)
        if cur < end:
            out.append((cur, end, name, perms))
    out += [tuple(p) for p in pieces]
    return sorted(out)


def _draw_blocks(ax, data, view, tax, spans):
    """Outlines each recorded block over its lifetime, one colour per site;
    spans: (lo, hi, y, h) of the drawn address ranges."""
    import matplotlib.patches as mpatches
    from .plotting import get_cmap

    cmap = get_cmap("tab10")
    used = {}
    st = view.tr.start_time
    for (a, e, t0, t1, k) in view.site_blocks:
        t1 = min(t1, data.t1)
        if t1 <= data.t0 or t0 >= data.t1:
            continue
        for (lo, hi, y, h) in spans:
            if a < hi and e > lo:
                ya = y + (max(a, lo) - lo) / (hi - lo) * h
                yb = y + (min(e, hi) - lo) / (hi - lo) * h
                x0, x1 = tax(max(t0, data.t0) - st), tax(t1 - st)
                ax.add_patch(mpatches.Rectangle((x0, ya), x1 - x0, yb - ya, fill=False,
                                                ec=cmap(k % 10), lw=1.2))
                used[k] = cmap(k % 10)
    handles = [mpatches.Patch(fill=False, ec=c, label=view.site_names[k]) for k, c in sorted(used.items())[:10]]
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3, fontsize=7,
                  title="allocation sites (blocks outlined over their lifetime)", title_fontsize=7)


def _spread(ys, prio, sep):
    """Which of the positions ys (data units) get a label: the one of
    highest priority first, then every next one at least sep away from all
    kept (labels of one line, centred on their y and at most sep tall,
    therefore never overlap).  Returns (kept indices in y order, owner):
    owner[i] = the kept index nearest to ys[i] (a dropped position joins the
    label next to it, so each label stands for a run of neighbours)."""
    kept = []
    for i in sorted(range(len(ys)), key=lambda i: prio[i]):
        if all(abs(ys[i] - ys[k]) >= sep for k in kept):
            kept.append(i)
    kept.sort(key=lambda i: ys[i])
    owner = []
    for y in ys:
        owner.append(min(kept, key=lambda k: (abs(ys[k] - y), ys[k])) if kept else None)
    return kept, owner


def _text_sep(ax, fontsize, pad=0.0):
    """The height of one line of text at fontsize (points, plus pad points
    of box padding on each side) in ax's y data units, with one pixel to
    spare: the least distance between two labels that keeps them apart."""
    px = (fontsize * 1.25 + 2 * pad) * ax.figure.dpi / 72.0 + 1.0
    h = max(ax.get_window_extent().height, 1.0)
    lo, hi = ax.get_ylim()
    return px / h * (hi - lo)


def gap_labels(gaps, sep):
    """The labels of the cut-out gaps: gaps [(y, bytes)] of the range
    boundaries.  Larger gaps win the place; a gap too close to a kept label
    is merged into the nearest one, which then reads "N gaps cut: TOTAL
    (largest L)".  Returns [(y, text)]."""
    ys = [g[0] for g in gaps]
    kept, owner = _spread(ys, [(-g[1], g[0]) for g in gaps], sep)
    out = []
    for k in kept:
        mine = [gaps[i][1] for i in range(len(gaps)) if owner[i] == k]
        if len(mine) == 1:
            out.append((ys[k], "gap %s cut" % fmt_bytes(mine[0])))
        else:
            out.append((ys[k], "%d gaps cut: %s (largest %s)" % (len(mine), fmt_bytes(sum(mine)),
                                                                   fmt_bytes(max(mine)))))
    return out


def _thin_labels(cands, total, min_sep=0.03):
    """Keeps the labels of the largest groups at least min_sep x total apart, mappings
    before unmapped stretches (an occupied range is padded to whole rows, so
    the padding can be larger than the mapping the samples are in)."""
    kept, _ = _spread([c[0] for c in cands], [(c[2].startswith("unmapped ("), -c[1]) for c in cands],
                      min_sep * total)
    return [cands[k][0] for k in kept], [cands[k][2] for k in kept]


class Drawn:
    """A heatmap drawn into ax but for its cells, and what fit() needs to
    draw them once the axes has its final size.  mappable: the norm and
    colours (for a colour bar where there are blocks); img: the last image,
    once fit() drew them."""

    def __init__(self, ax, blocks, ytotal, title, cmap, norm):
        from matplotlib.cm import ScalarMappable
        self.ax, self.blocks, self.ytotal, self.title = ax, blocks, ytotal, title
        self.mappable = ScalarMappable(norm=norm, cmap=cmap)
        self.img = None
        self.sec = None     # the twin axes of the range starts on the right

    def fit(self):
        """The cells, merged down to the pixels (_fit_to_pixels) and only
        then given to matplotlib (a full-size copy of a 938 x 1000 heatmap
        cost 9 MB); the title says where cells were merged."""
        cells, rows_px, cols_px = _fit_to_pixels(self.ax, self.blocks, self.ytotal)
        cmap, norm = self.mappable.cmap, self.mappable.norm
        for c, (_, extent, _) in zip(cells, self.blocks):
            self.img = self.ax.imshow(_colours(c, cmap, norm), origin="lower", aspect="auto", extent=extent,
                                      interpolation="nearest")
        if self.title and (rows_px > 1 or cols_px > 1):
            self.ax.set_title(self.title + "\n" + merged_note(rows_px, cols_px))


def draw(ax, data, view, title=None, vmax=None, cbar=True, label_ranges=True, right_label=True, fit=True):
    """Draws the heatmap into ax; returns a Drawn.  fit: merge cells down to
    the pixels now (False: the caller still changes the axes' size, and
    calls Drawn.fit after)."""
    import matplotlib.colors as mcolors
    from .plotting import get_cmap

    tr = view.tr
    right = 0       # characters of the longest range start on the right
    # x: time since the trace start, also for a --time-range zoom
    tax = TimeAxis(tr.time_unit, data.t1 - data.t0)
    x0, x1 = tax(data.t0 - tr.start_time), tax(data.t1 - tr.start_time)
    axis = data.axis
    cmap = get_cmap("viridis").copy()
    cmap.set_bad("white", 0.0)     # empty cells show the axes (white) or a blind window's hatching
    vmax = max(int(data.counts.max()) if data.counts.size else 1, 1) if vmax is None else vmax
    norm = mcolors.LogNorm(vmin=1, vmax=max(vmax, 2))
    n = len(axis.ranges)
    rows = [int(axis.row0[i + 1] - axis.row0[i]) for i in range(n)]
    total = max(sum(rows), 1)
    minh = MIN_RANGE_FRACTION * total if n > 1 else 0
    heights = [max(r, minh) for r in rows]
    y = 0.0
    cands, rticks, spans, gaps, blocks = [], [], [], [], []
    cuts, groups = [], []      # y of range boundaries and of label groups: one artist each
    for i, ((lo, hi), r, h) in enumerate(zip(axis.ranges, rows, heights)):
        spans.append((lo, hi, y, h))
        # drawn by Drawn.fit once the axes has its size
        blocks.append((data.counts[axis.row0[i]:axis.row0[i + 1]], [x0, x1, y, y + h], h))
        if i > 0:
            cuts.append(y)
            gaps.append((y, lo - axis.ranges[i - 1][1]))
        if label_ranges:
            for glo, ghi, name in _groups(view.layout, lo, hi):
                ya = y + (glo - lo) / (hi - lo) * h
                yb = y + (ghi - lo) / (hi - lo) * h
                if glo > lo:
                    groups.append(ya)
                cands.append(((ya + yb) / 2, yb - ya, "%s (%s)" % (name, fmt_bytes(ghi - glo))))
            rticks.append((y, (0, -h), view.addr_text(lo)))
            if h >= 0.25 * total and r >= 8:
                # a tall range (or a zoom): addresses inside it too
                for f in (0.25, 0.5, 0.75):
                    a = lo + int((hi - lo) * f) // axis.bucket * axis.bucket
                    rticks.append((y + (a - lo) / (hi - lo) * h, (1, abs(f - 0.5)), view.addr_text(a)))
        y += h
    # as axhline, but one LineCollection for all (one artist per line: seconds of matplotlib
    # on a trace of hundreds of processes)
    if cuts:
        ax.hlines(cuts, 0, 1, transform=ax.get_yaxis_transform(), color="#d62728", lw=0.9, ls=(0, (4, 2)))
    if groups:
        ax.hlines(groups, 0, 1, transform=ax.get_yaxis_transform(), color="0.6", lw=0.5, ls=":")
    if view.site_blocks:
        _draw_blocks(ax, data, view, tax, spans)
    if view.blind:      # windows (t_k - τ, t_k] the source saw no pass in: hatched behind the cells
        for j, (lo, hi) in enumerate(view.blind["spans"]):
            ax.axvspan(tax(lo), tax(hi), facecolor="none", edgecolor="0.6", hatch="///", lw=0, zorder=0.5,
                       label=None if j else "not seen by %s (no %s in the %s window)" % (
                           tr.meta("source", "the source"), view.blind["pass"],
                           fmt_time(view.blind["window"], tr.time_unit)))
        ax.legend(loc="upper right", fontsize=7.5, framealpha=0.9)
    ax.set_xlim(x0, x1)
    ax.set_ylim(0, max(y, 1))
    ax.set_xlabel(tax.label())
    drawn = Drawn(ax, blocks, max(y, 1), title, cmap, norm)
    # labels one line tall, at least one line apart: none overlaps another
    for gy, text in gap_labels(gaps, _text_sep(ax, GAP_FONT, 0.5)):
        ax.text(x0 + (x1 - x0) * 0.005, gy, text, color="#d62728", fontsize=GAP_FONT,
                va="center", ha="left", bbox=dict(fc="white", ec="none", pad=0.5, alpha=0.85))
    if label_ranges and n:
        ticks, labels = _thin_labels(cands, _text_sep(ax, 7.5), 1.0)
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=7.5)
        sec = drawn.sec = ax.twinx()
        sec.set_ylim(ax.get_ylim())
        kept, _ = _spread([t[0] for t in rticks], [t[1] for t in rticks], _text_sep(ax, 6))
        sec.set_yticks([rticks[k][0] for k in kept])
        sec.set_yticklabels([rticks[k][2] for k in kept], fontsize=6)
        right = max([len(rticks[k][2]) for k in kept] or [0])
        sec.tick_params(axis="y", length=3)
        if right_label:
            sec.set_ylabel("address (range starts)", fontsize=8)
    cut = "gaps cut out" if not gaps else "%d gap%s cut out, %s in all" % (
        len(gaps), "s" if len(gaps) > 1 else "", fmt_bytes(sum(g[1] for g in gaps)))
    ax.set_ylabel("address (occupied ranges, %s; bucket %s)%s" % (
        cut, fmt_bytes(axis.bucket), "" if view.layout else "\nno MAPS chunk in the trace: ranges named by address"))
    if title:
        ax.set_title(title)
    if cbar and blocks:
        # room for the range starts ("pid 5307 0x7fff41c30000" is longer than "0x7fff41c30000")
        cb = ax.figure.colorbar(drawn.mappable, ax=ax, pad=0.1 + 0.0065 * max(right - 14, 0), fraction=0.04)
        cb.set_label("%s per bucket per time bin (log)" % tr.words["samples"])
        _plain_log_ticks(cb)
        if drawn.sec is not None:
            _clear_colorbar(drawn.sec, cb.ax)
    if fit:
        drawn.fit()
    return drawn


def _clear_colorbar(sec, cax, gap_px=6):
    """Moves the colour bar right until the range starts and their label
    (sec, the twin axes on the right, as laid out at the next draw) end
    gap_px before it: the pad given to colorbar is a guess from the labels'
    length in characters."""
    fig = sec.figure
    r = fig.canvas.get_renderer()
    box = sec.yaxis.get_tightbbox(r)
    if box is None:
        return
    over = box.x1 + gap_px - cax.get_window_extent(r).x0
    if over > 0:
        pos = cax.get_position()
        cax.set_position([pos.x0 + over / fig.bbox.width, pos.y0, pos.width, pos.height])


def merged_note(rows_px, cols_px):
    """What a pixel shows where cells outnumber pixels (_fit_to_pixels):
    'a pixel: the busiest of up to 2 buckets x 3 time bins'."""
    parts = ["%d %s" % (k, name) for k, name in ((rows_px, "buckets"), (cols_px, "time bins")) if k > 1]
    return "a pixel: the busiest of up to " + " x ".join(parts)


def _colours(cells, cmap, norm, rows=64):
    """The cells' colours (rows x columns x 4 bytes): what matplotlib would
    colour them at each pixel, done here once per cell, rows at a time.
    Given counts, matplotlib normalises them at every pixel of the image in
    float64 (a heatmap's worth of pixels is 4.6 MB per copy, several copies
    at once: 18 MB at the peak of a report)."""
    out = np.empty(cells.shape + (4,), dtype=np.uint8)
    for y in range(0, cells.shape[0], rows):
        out[y:y + rows] = cmap(norm(_cells(cells[y:y + rows])), bytes=True)
    return out


def _cells(block):
    """The counts as matplotlib gets them: float32 (half the memory of every
    copy it makes on the way to pixels; counts are exact up to 2^24 and
    drawn on a log scale), empty cells masked."""
    return np.ma.masked_less(block.astype(np.float32), 1)


def _pool_max(block, n, axis):
    """block's rows (axis 0) or columns (axis 1) in n contiguous groups, each
    the largest of its cells (n < their number)."""
    m = block.shape[axis]
    return np.maximum.reduceat(block, (np.arange(n) * m) // n, axis=axis)


def _fit_to_pixels(ax, blocks, ytotal):
    """The cells of each block, no more than its pixels in both directions.
    Matplotlib draws each pixel from the one cell at its centre (nearest), so
    with more rows than pixels whole rows were never drawn (938 rows in the
    593 pixels of the default figure: 348 rows, samples and all, invisible);
    where there are more, neighbouring rows (columns) are merged, each
    pixel showing the largest count among them: every sampled cell shows, in
    the colour of a real bucket's count.  ax's size as saved (savefig.dpi)
    and after the colorbar took its share.  Returns (cells per block, the
    most rows and time bins merged into one pixel; 1, 1: none)."""
    from .plotting import save_dpi

    scale = save_dpi(ax.figure) / ax.figure.dpi
    box = ax.get_window_extent()
    ncol = max(1, int(box.width * scale))
    rows_px = cols_px = 1
    out = []
    for block, _, h in blocks:
        nrow = max(1, int(box.height * scale * h / ytotal))
        cells = block if block.shape[0] <= nrow else _pool_max(block, nrow, 0)
        cells = cells if cells.shape[1] <= ncol else _pool_max(cells, ncol, 1)
        if cells is not block:
            rows_px = max(rows_px, -(-block.shape[0] // cells.shape[0]))
            cols_px = max(cols_px, -(-block.shape[1] // cells.shape[1]))
        out.append(cells)
    return out, rows_px, cols_px


def _plain_log_ticks(cb):
    from matplotlib.ticker import FuncFormatter
    f = FuncFormatter(lambda v, _: "%g" % v)
    cb.ax.yaxis.set_major_formatter(f)
    cb.ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: "%g" % v if str(int(v))[0] in "25" and v == int(v)
                                                  else ""))


def subtitle(data, tr, what="", sep=", "):
    axis = data.axis
    b = "bucket %s" % fmt_bytes(axis.bucket)
    if axis.shift != axis.requested_shift:
        b += " (coarsened from %s to fit %d rows)" % (fmt_bytes(1 << axis.requested_shift), axis.nrows)
    s = "%s%stime bin %s, %d samples shown" % (b, sep, fmt_time(data.bin_time, tr.time_unit),
                                               int(data.counts.sum()))
    if what:
        s += " — " + what
    return s


def plot(view, out, bucket=4096, ncols=1000, max_rows=1024, gap=None):
    from .plotting import save, subplots, trace_title

    tr = view.tr
    data = bin_view(view, bucket, ncols, max_rows, gap)
    fig, ax = subplots(figsize=(12, 7))
    draw(ax, data, view, title="%s over time: %s\n%s" % (tr.words["activity"], trace_title(tr),
                                                         subtitle(data, tr, view.what)))
    save(fig, out)
    return data


def add_args(p):
    p.add_argument("-b", "--bucket", default=None, help="bucket size (power of two; default: trace's bucket_default, 4K)")
    p.add_argument("--width", type=int, default=1000, help="time bins (default 1000)")
    p.add_argument("--max-rows", type=int, default=1024, help="address rows at most (default 1024)")
    p.add_argument("--gap", default=None, help="cut out unoccupied address stretches above this size (default 1M)")
    p.add_argument("--sites", action="store_true",
                   help="name ranges by allocation site and outline each block (trace recorded with --allocs)")
    add_filter_args(p)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    if args.width <= 0 or args.max_rows <= 0:
        raise lib.MemtraceError("--width and --max-rows must be > 0")
    sel = make_selection(tr, args)
    view = View(tr, sel)
    need_samples(view.n, tr, sel, "heatmap")
    if getattr(args, "sites", False):
        from .sites import sites
        view.set_sites(sites(tr.path, sel=sel))
    bucket = lib.parse_size(args.bucket) if args.bucket else tr.bucket_default
    gap = lib.parse_size(args.gap) if args.gap else None
    out = args.output or "heatmap.png"
    view.set_blind()
    plot(view, out, bucket, args.width, args.max_rows, gap)
    return [out]
