"""The heatmap's words never overlap: on a trace whose samples lie in many
address ranges with cut-out gaps between them, no two "gap ... cut" labels,
no two range names (left) and no two range-start addresses (right) share a
pixel once the figure is drawn (matplotlib's get_window_extent), and the
gap labels together still account for every gap the trace has (their count
and bytes, against the layout the test built)."""
import re

import numpy as np

from memtrace_analyze import heatmap
from memtrace_analyze.lib import Trace
from memtrace_analyze.plotting import subplots
from memtrace_analyze.select import make_selection
from memtrace_analyze.units import fmt_bytes
from tracegen import write_trace

GRANULE = 1 << 16       # the heatmap's occupied-granule size (binning.GRANULE_SHIFT)


class Args:
    range = mapping = time_range = pid = tid = span = labels = None


def _many_gaps(tmp, nranges, seed=3):
    """Samples in nranges granules, each one granule long, separated by gaps
    of 2..500 MiB (all above the 1 MiB cut): returns (path, gaps in bytes,
    in address order)."""
    rng = np.random.default_rng(seed)
    base, starts = 0x10000000, []
    for _ in range(nranges):
        starts.append(base)
        base += GRANULE + int(rng.integers(32, 8000)) * GRANULE
    gaps = [b - (a + GRANULE) for a, b in zip(starts, starts[1:])]
    per = 40
    addr = np.concatenate([s + rng.integers(0, GRANULE, per) for s in starts]).astype(np.uint64)
    time = np.arange(addr.size, dtype=np.uint64) * 10
    rng.shuffle(addr)
    return write_trace(str(tmp / "gaps.mtrace"), time, addr, maps=None), gaps


def _draw(path):
    tr = Trace(path)
    view = heatmap.View(tr, make_selection(tr, Args()))
    data = heatmap.bin_view(view, 4096, 200)
    fig, ax = subplots(figsize=(12, 7))     # as heatmap.plot
    heatmap.draw(ax, data, view, title="t")
    fig.canvas.draw()
    return fig, ax, data


def _boxes(texts, renderer):
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_visible() and t.get_text()]


def _assert_apart(boxes, what):
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i][1], boxes[j][1]
            overlap = a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1
            assert not overlap, "%s overlap: %r %s and %r %s" % (what, boxes[i][0], a, boxes[j][0], b)


def _gap_boxes(ax, r):
    """The gap labels' own extents, their white boxes included."""
    out = []
    for t in ax.texts:
        bb = t.get_bbox_patch().get_window_extent(r) if t.get_bbox_patch() else t.get_window_extent(r)
        out.append((t.get_text(), bb))
    return out


def test_many_gaps_labels_never_overlap_and_account_for_every_gap(tmp):
    path, gaps = _many_gaps(tmp, 120)
    fig, ax, data = _draw(path)
    r = fig.canvas.get_renderer()
    # the axis cut exactly the gaps the test made (one range per granule)
    assert len(data.axis.ranges) == len(gaps) + 1
    labels = _gap_boxes(ax, r)
    assert 1 < len(labels) < len(gaps), "expected merged labels, got %d for %d gaps" % (len(labels), len(gaps))
    _assert_apart(labels, "gap labels")
    sec = [a for a in fig.axes if a is not ax and a.get_shared_x_axes().joined(a, ax)][0]
    left = _boxes(ax.get_yticklabels(), r)
    right = _boxes(sec.get_yticklabels(), r)
    assert left and right
    _assert_apart(left, "range names")
    _assert_apart(right, "range starts")
    # the right side's words stay clear of the colour bar
    cbar = [a for a in fig.axes if a is not ax and a is not sec][0].get_window_extent(r)
    _assert_apart(right + _boxes([sec.yaxis.label], r) + [("colour bar", cbar)], "right side")
    # every gap is in exactly one label: counts and bytes add up
    n, total = 0, 0
    for text, _ in labels:
        m = re.fullmatch(r"gap (.+) cut", text)
        if m:
            n += 1
            total += _parse(m.group(1))
            continue
        m = re.fullmatch(r"(\d+) gaps cut: (.+) \(largest (.+)\)", text)
        assert m, text
        n += int(m.group(1))
        total += _parse(m.group(2))
    assert n == len(gaps)
    assert abs(total - sum(gaps)) <= 0.05 * sum(gaps) + len(labels) * 0.05 * max(gaps)
    # the largest gap is always named on its own (it has the first claim)
    assert "gap %s cut" % fmt_bytes(max(gaps)) in [t for t, _ in labels] or \
        any("(largest %s)" % fmt_bytes(max(gaps)) in t for t, _ in labels)
    assert "%d gaps cut out, %s in all" % (len(gaps), fmt_bytes(sum(gaps))) in ax.get_ylabel()


def test_few_gaps_each_labelled(tmp):
    path, gaps = _many_gaps(tmp, 4, seed=5)
    fig, ax, _ = _draw(path)
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted("gap %s cut" % fmt_bytes(g) for g in gaps)


def _parse(text):
    num, unit = text.split()
    return float(num) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]


def test_range_starts_and_their_label_clear_of_the_colour_bar(tmp):
    # one range of 117 MiB at 0x7f0000000000, no MAPS (crafted-procs-10k's
    # shape): four 14-character range starts and "address (range starts)"
    # on the right, where the colour bar's pad (a guess by characters) put
    # the bar over the label
    n = 30000
    addr = (0x7f0000000000 + np.arange(n, dtype=np.uint64) * 4096).astype(np.uint64)
    path = write_trace(str(tmp / "one.mtrace"), np.arange(n, dtype=np.uint64) * 1000, addr, maps=None)
    tr = Trace(path)
    view = heatmap.View(tr, make_selection(tr, Args()))
    fig, ax = subplots(figsize=(12, 7))     # as heatmap.plot
    heatmap.draw(ax, heatmap.bin_view(view, 4096, 1000), view, title="t")
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    sec = [a for a in fig.axes if a is not ax and a.get_shared_x_axes().joined(a, ax)][0]
    cbar = [a for a in fig.axes if a is not ax and a is not sec][0].get_window_extent(r)
    texts = [t for t in sec.get_yticklabels() if t.get_text()] + [sec.yaxis.label]
    assert sec.yaxis.label.get_text() == "address (range starts)" and len(texts) > 2
    for t in texts:
        assert t.get_window_extent(r).x1 < cbar.x0, (t.get_text(), t.get_window_extent(r), cbar)
