"""plotting.save draws a figure once (the tight box taken from the figure as
it stands) and makes ticks only for the locations in view (InView): the
PNG must be the one matplotlib's own savefig(bbox_inches="tight") writes,
pixel for pixel, for every figure of a report (heatmap, wss, hot, regions,
compare; log and linear axes, colorbar, twin axes, legends), on a trace of
one sample and on one of two processes over three mappings."""
import fcntl
import os
import struct
import termios
import time

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image
from test_verbs import ADDRS, args, known
from tracegen import write_trace

from memtrace_analyze import painter, plotting, report
from memtrace_analyze.lib import Trace


def matplotlib_save(fig, path):
    """What plotting.save did before: matplotlib's own tight box (a draw
    without output, then the draw written), every tick its locators give and
    matplotlib's PNG writer (Pillow) instead of plotting.Canvas's."""
    FigureCanvasAgg(fig)
    fig.savefig(path, bbox_inches="tight", pil_kwargs={"compress_level": 1})
    return path


def pixels(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA"))


def both(tr, tmp, monkeypatch, other=None):
    """{figure: (ours, matplotlib's)} PNG pixels of report.build on tr."""
    _, files, _ = report.build(tr, str(tmp / "ours"), args(), other=other)
    with monkeypatch.context() as m:
        m.setattr(plotting, "save", matplotlib_save)
        m.setitem(plotting.rcParams, "axes.titley", None)     # matplotlib's own title placement
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
    fig, ax = plotting.subplots()
    ax.set_yscale("log")
    ax.set_ylim(0.08, 12.6)
    inner = ax.yaxis.get_minor_locator()
    every = list(inner())
    plotting.ticks_in_view(fig)
    kept = list(ax.yaxis.get_minor_locator()())
    assert kept == [v for v in every if 0.08 <= v <= 12.6]
    assert 0 < len(kept) < len(every)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _log(path, i):
    """Appends 'i pid' to path: who made call i."""
    with open(path, "a") as f:
        f.write("%d %d\n" % (i, os.getpid()))


def _fail_in_child(path, parent):
    """Raises in a forked worker only: the caller makes it again and it works."""
    if os.getpid() != parent:
        raise RuntimeError("worker")
    _write(path, "parent")


def _pending(p):
    """Bytes (calls) left in the painter's pipe."""
    return struct.unpack("i", fcntl.ioctl(p.todo, termios.FIONREAD, b"\0\0\0\0"))[0]


def _until_taken(p):
    deadline = time.monotonic() + 30
    while _pending(p) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _pending(p), "the workers took nothing in 30 s"


def test_painter_makes_every_call_once(tmp):
    log = str(tmp / "log")
    for jobs in (1, 2, 4):
        open(log, "w").close()
        p = painter.Painter(jobs=jobs)
        for i in range(20):
            p.add(_log, log, i)
        p.start()
        assert len(p.workers) == jobs - 1
        p.finish()
        rows = [ln.split() for ln in open(log).read().splitlines()]
        assert sorted(int(i) for i, _ in rows) == list(range(20)), jobs
        if jobs == 1:
            assert {int(pid) for _, pid in rows} == {os.getpid()}
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)      # every worker reaped


def _die_in_child(path, parent):
    """A worker dies in it (no exception, no exit status 0)."""
    if os.getpid() != parent:
        os._exit(3)
    _write(path, "parent")


def test_painter_redraws_what_a_worker_did_not_finish(tmp):
    for call in (_fail_in_child, _die_in_child):
        p = painter.Painter(jobs=2)
        p.add(call, str(tmp / call.__name__), os.getpid())
        p.add(_write, str(tmp / "after"), "whoever")    # the caller's: the worker stopped
        p.start()
        deadline = time.monotonic() + 30
        while _pending(p) == 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _pending(p) == 1, "the worker took nothing in 30 s"
        p.finish()
        assert open(tmp / call.__name__).read() == "parent"
        assert open(tmp / "after").read() == "whoever"


def test_painter_raises_what_the_drawing_raises(tmp):
    def broken(path):
        raise ValueError("no figure for %s" % path)
    for jobs in (1, 2):
        p = painter.Painter(jobs=jobs)
        p.add(broken, "x.png")
        p.start()
        if jobs == 2:
            _until_taken(p)
        with pytest.raises(ValueError, match="x.png"):
            p.finish()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_report_figures_same_with_and_without_children(tmp, monkeypatch):
    tr = known(tmp)
    _, files, _ = report.build(tr, str(tmp / "par"), args())
    monkeypatch.setenv("MEMTRACE_ANALYZE_JOBS", "1")
    _, files1, _ = report.build(tr, str(tmp / "seq"), args())
    assert sorted(files) == sorted(files1) and "hot.png" in files and "regions.png" in files
    for f in files:
        assert (pixels(os.path.join(tmp, "par", f)) == pixels(os.path.join(tmp, "seq", f))).all(), f
