"""plotting.save draws a figure once (the tight box taken from the figure as
it stands) and makes ticks only for the locations in view (InView): the
PNG must be the one matplotlib's own savefig(bbox_inches="tight") writes,
pixel for pixel, for every figure of a report (heatmap, wss, hot, regions,
compare; log and linear axes, colorbar, twin axes, legends), on a trace of
one sample and on one of two processes over three mappings."""
import os

import numpy as np
from PIL import Image
from test_verbs import ADDRS, args, known
from tracegen import write_trace

from memtrace_analyze import plotting, report
from memtrace_analyze.lib import Trace


def matplotlib_save(fig, path):
    """What plotting.save did before: matplotlib's own tight box (a draw
    without output, then the draw written) and every tick its locators give."""
    fig.savefig(path, bbox_inches="tight", pil_kwargs={"compress_level": 1})
    plotting.plt.close(fig)
    return path


def pixels(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA"))


def both(tr, tmp, monkeypatch, other=None):
    """{figure: (ours, matplotlib's)} PNG pixels of report.build on tr."""
    _, files, _ = report.build(tr, str(tmp / "ours"), args(), other=other)
    with monkeypatch.context() as m:
        m.setattr(plotting, "save", matplotlib_save)
        m.setitem(plotting.plt.rcParams, "axes.titley", None)     # matplotlib's own title placement
        _, files2, _ = report.build(tr, str(tmp / "ref"), args(), other=other)
    assert sorted(files) == sorted(files2) and len(files) >= 4
    return {f: (pixels(os.path.join(tmp, "ours", f)), pixels(os.path.join(tmp, "ref", f))) for f in files}


def assert_same(figs):
    for name, (a, b) in figs.items():
        assert a.shape == b.shape, (name, a.shape, b.shape)
        assert (a == b).all(), (name, int((a != b).any(axis=-1).sum()), "pixels differ")


def test_one_sample_figures_as_matplotlib_draws_them(tmp, monkeypatch):
    tr = known(tmp, addrs=[0x7f0000001000])
    assert_same(both(tr, tmp, monkeypatch))


def test_two_process_figures_as_matplotlib_draws_them(tmp, monkeypatch):
    # two processes, counts over three decades (log axes with many minor ticks)
    rng = np.random.default_rng(7)
    n = 4000
    base = np.array(ADDRS, dtype=np.uint64)
    addr = base[np.minimum(rng.geometric(0.3, n) - 1, base.size - 1)] + \
        rng.integers(0, 64, n).astype(np.uint64) * 4096
    pid = np.where(rng.random(n) < 0.3, 4243, 4242).astype(np.uint32)
    p = write_trace(str(tmp / "two.mtrace"), np.arange(1, n + 1), addr, pid=pid)
    figs = both(Trace(p), tmp, monkeypatch, other=known(tmp, "o.mtrace"))
    assert "compare.png" in figs
    assert_same(figs)


def test_in_view_drops_only_ticks_outside_the_view():
    fig, ax = plotting.plt.subplots()
    ax.set_yscale("log")
    ax.set_ylim(0.08, 12.6)
    inner = ax.yaxis.get_minor_locator()
    every = list(inner())
    plotting.ticks_in_view(fig)
    kept = list(ax.yaxis.get_minor_locator()())
    plotting.plt.close(fig)
    assert kept == [v for v in every if 0.08 <= v <= 12.6]
    assert 0 < len(kept) < len(every)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _fail_in_child(path, parent):
    """Raises in a forked child only: the caller draws it again and it works."""
    if os.getpid() != parent:
        raise RuntimeError("child")
    _write(path, "parent")


def test_painter_draws_in_children_and_redraws_what_failed(tmp):
    p = plotting.Painter(jobs=3)
    for i in range(4):
        p.draw(_write, str(tmp / ("f%d" % i)), "child %d" % i)
    p.draw(_fail_in_child, str(tmp / "again"), os.getpid())
    assert len(p.running) <= 2
    p.wait()
    assert not p.running
    assert [open(tmp / ("f%d" % i)).read() for i in range(4)] == ["child %d" % i for i in range(4)]
    assert open(tmp / "again").read() == "parent"


def test_painter_raises_what_the_drawing_raises(tmp):
    def broken(path):
        raise ValueError("no figure for %s" % path)
    for jobs in (1, 2):
        p = plotting.Painter(jobs=jobs)
        try:
            p.draw(broken, "x.png")
            p.wait()
        except ValueError as e:
            assert "x.png" in str(e)
        else:
            raise AssertionError("jobs=%d: no error" % jobs)


def test_report_figures_same_with_and_without_children(tmp, monkeypatch):
    tr = known(tmp)
    _, files, _ = report.build(tr, str(tmp / "par"), args())
    monkeypatch.setenv("MEMTRACE_ANALYZE_JOBS", "1")
    _, files1, _ = report.build(tr, str(tmp / "seq"), args())
    assert sorted(files) == sorted(files1) and "hot.png" in files and "regions.png" in files
    for f in files:
        assert (pixels(os.path.join(tmp, "par", f)) == pixels(os.path.join(tmp, "seq", f))).all(), f
