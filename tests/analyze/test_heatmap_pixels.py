"""Every sampled heatmap cell reaches a pixel.  Matplotlib draws each pixel
from the one cell at its centre: with more address rows than the axes has
pixels (938 rows in the ~593 of the default figure), a row that fell
between two pixel centres was never drawn, its samples invisible.  Here a
heatmap of 938 rows holds one sampled cell, row by row over a stretch of
rows, drawn and saved as the verbs do: the cell's colour must be in the PNG
each time, and no image may hold more rows or columns than its pixels."""
import numpy as np
from test_plotting import pixels
from test_verbs import args, known
from tracegen import write_trace

from memtrace_analyze import heatmap
from memtrace_analyze.binning import AddressAxis
from memtrace_analyze.lib import Trace
from memtrace_analyze.plotting import save, save_dpi, subplots
from memtrace_analyze.select import make_selection

ROWS, COLS = 938, 1000
COL = 0x7f0000000000


def draw_one_cell(tmp, view, row, col=500):
    counts = np.zeros((ROWS, COLS), np.int64)
    counts[row, col] = 7
    counts[0, 0] = 1         # a second count: the cell is the top of the scale (yellow)
    axis = AddressAxis([(COL, COL + ROWS * 4096)], 12)
    data = heatmap.HeatmapData(counts, axis, view.t0, view.t1, COLS, 2)
    fig, ax = subplots(figsize=(12, 7))
    heatmap.draw(ax, data, view, title="one cell", cbar=False)
    draw_one_cell.title = ax.get_title()
    scale = save_dpi(fig) / fig.dpi
    box = ax.get_window_extent()
    shapes = [im.get_array().shape[:2] for im in ax.images]
    path = str(tmp / "cell.png")
    save(fig, path)
    px = pixels(path)[:, :, :3].astype(int)
    # viridis' top, (253, 231, 37): nothing else in the figure is yellow
    yellow = (px[:, :, 0] > 200) & (px[:, :, 1] > 180) & (px[:, :, 2] < 100)
    return int(yellow.sum()), shapes, (box.width * scale, box.height * scale)


def test_every_row_of_a_tall_heatmap_reaches_a_pixel(tmp):
    tr = known(tmp)
    view = heatmap.View(tr, make_selection(tr, args()))
    missing = []
    for row in range(400, 416):     # before: 6 of these 16 rows were never drawn
        n, shapes, (w, h) = draw_one_cell(tmp, view, row)
        if n == 0:
            missing.append(row)
        assert all(r <= h and c <= w for r, c in shapes), (shapes, w, h)
    assert missing == []


def test_pooling_keeps_the_largest_count_of_each_group():
    rng = np.random.default_rng(3)
    block = rng.integers(0, 50, (937, 1000))
    pooled = heatmap._pool_max(heatmap._pool_max(block, 593, 0), 990, 1)
    assert pooled.shape == (593, 990)
    # the groups: contiguous, every row and column in exactly one
    rows = (np.arange(593) * 937) // 593
    cols = (np.arange(990) * 1000) // 990
    for i in (0, 1, 300, 592):
        for j in (0, 7, 989):
            r1 = rows[i + 1] if i + 1 < 593 else 937
            c1 = cols[j + 1] if j + 1 < 990 else 1000
            assert pooled[i, j] == block[rows[i]:r1, cols[j]:c1].max()
    assert pooled.max() == block.max() and (pooled > 0).any()


def test_merged_cells_named_in_the_title(tmp):
    tr = known(tmp)
    view = heatmap.View(tr, make_selection(tr, args()))
    fig, ax = subplots(figsize=(12, 7))
    heatmap.draw(ax, heatmap.bin_view(view, 4096, 200), view, title="few")
    assert ax.get_title() == "few"          # 200 bins, a few rows: nothing merged, nothing said
    n, shapes, (w, h) = draw_one_cell(tmp, view, 400)
    rows, cols = -(-ROWS // shapes[0][0]), -(-COLS // shapes[0][1])
    assert rows == 2, (shapes, h)
    assert draw_one_cell.title.endswith("\na pixel: the busiest of up to 2 buckets" +
                                        (" x %d time bins" % cols if cols > 1 else ""))
    assert heatmap.merged_note(1, 3) == "a pixel: the busiest of up to 3 time bins"
    assert heatmap.merged_note(4, 2) == "a pixel: the busiest of up to 4 buckets x 2 time bins"


LONG = "/usr/lib/x86_64-linux-gnu/a-shared-object-with-a-long-name.so.1.2.3"


def test_compare_fits_its_final_axes_and_labels_clear(tmp, monkeypatch):
    """compare draws two heatmaps side by side, then a shared colour bar
    that narrows both: cells are merged to the pixels left after it, and
    B's range names are moved clear of A's range starts."""
    from memtrace_analyze import compare, plotting
    maps = ("7f0000000000-7f0000400000 rw-p 00000000 00:00 0 %s\n"
            "7f1000000000-7f1000800000 rw-p 00000000 00:00 0 %s.data\n" % (LONG, LONG))
    rng = np.random.default_rng(5)
    n = 3000
    addr = np.where(rng.random(n) < 0.5, 0x7f0000000000, 0x7f1000000000) + \
        rng.integers(0, 1024, n).astype(np.uint64) * 4096
    trs = [Trace(write_trace(str(tmp / ("%s.mtrace" % k)), np.arange(1, n + 1), addr.astype(np.uint64), maps=maps))
           for k in "ab"]
    views = [heatmap.View(t, make_selection(t, args())) for t in trs]
    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, path: figs.append(fig))
    compare.plot(views[0], views[1], str(tmp / "c.png"), 4096, [], {"volume_change": 0}, 1)
    fig, = figs
    r = fig.canvas.get_renderer()
    scale = save_dpi(fig) / fig.dpi
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2
    for ax in panels:
        box = ax.get_window_extent()
        for im in ax.images:
            rows, cols = im.get_array().shape[:2]
            assert cols <= box.width * scale and rows <= box.height * scale, (im.get_array().shape, box)
    a, b = sorted(panels, key=lambda ax: ax.get_position().x0)
    starts = [ax for ax in fig.axes if ax is not a and ax.get_position().bounds == a.get_position().bounds]
    right_edge = max(t.get_window_extent(r).x1 for ax in starts for t in ax.get_yticklabels() if t.get_text())
    left_edge = min(t.get_window_extent(r).x0 for t in b.get_yticklabels() if t.get_text())
    assert right_edge < left_edge, (right_edge, left_edge)
