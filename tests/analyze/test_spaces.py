"""Many processes on one address axis (spaces.py).  Side by side, 3000
PostgreSQL-like backends of three ranges each did not fit the heatmap's
rows: the bucket grew to 1 PiB, merging hundreds of processes per row,
and ranges were named by key ('pid 3248 0x0').  Past OVERLAY_PROCESSES
(and for any trace without MAPS) every process is drawn at its own
addresses on one axis, counts added, and the figures say so.  Checked
against the trace as written: every sample on the axis, the rows at the
bucket asked for, the ranges the MAPS name."""
import numpy as np
from test_verbs import args

from memtrace_analyze import heatmap, hot, lib, spaces
from memtrace_analyze.lib import Writer
from memtrace_analyze.select import make_selection

MAPS = ("55d000000000-55d000a00000 r-xp 00000000 08:01 42 /usr/lib/postgresql/15/bin/postgres\n"
        "7f3000000000-7f3020000000 rw-s 00000000 00:01 7 /dev/zero (deleted)\n"
        "7f4000000000-7f4000400000 rw-p 00000000 00:00 0 [heap]\n")
PER = 20


def backends(path, n, maps=True, first=0):
    """n processes (pids 1000...), PER samples each (from process first
    on; first=1: the target has none): 70 % in the shared segment, the rest
    in the process's own heap at the same address."""
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "synthetic", "event": "loads",
         "sample_period": 1, "clock": "monotonic", "time_unit": "ns", "start_time": 0, "bucket_default": 4096,
         "target_pid": 1000, "target_comm": "postgres", "command": "test"}
    w = Writer(path, h)
    for i in range(n):
        if maps:
            w.maps(i, 1000 + i, MAPS)
        w.thread(i, 1000 + i, 1000 + i, "postgres")
    rng = np.random.default_rng(n)
    n -= first
    t = np.arange(n * PER, dtype=np.uint64) * 1000
    pids = np.repeat(np.arange(1000 + first, 1000 + first + n, dtype=np.uint32), PER)
    shared = np.uint64(0x7f3000000000) + rng.integers(0, 0x20000, n * PER).astype(np.uint64) * np.uint64(4096)
    heap = np.uint64(0x7f4000000000) + rng.integers(0, 0x400, n * PER).astype(np.uint64) * np.uint64(4096)
    addr = np.where(rng.random(n * PER) < 0.7, shared, heap).astype(np.uint64)
    w.samples(time=t, addr=addr, pid=pids, tid=pids, cpu=np.zeros(n * PER, np.uint32), ip=None)
    w.close({"end_reason": "target-exited", "end_time": int(t[-1]), "samples": n * PER, "lost": 0,
             "throttled": 0, "dropped": 0})
    return lib.Trace(path), addr


def test_mode_rule():
    assert spaces.mode(True, 1) == spaces.mode(False, 1) == "addr"
    assert spaces.mode(True, 500, pid=1234) == "addr"
    assert spaces.mode(True, 2) == spaces.mode(True, spaces.OVERLAY_PROCESSES) == "keys"
    assert spaces.mode(True, spaces.OVERLAY_PROCESSES + 1) == "overlay"
    assert spaces.mode(False, 2) == "overlay"      # no MAPS: the tags would be the only names
    # one process that is not the primary: its keys carry a tag
    assert spaces.mode(True, 1, primary=False) == "keys"
    assert spaces.mode(False, 1, primary=False) == "overlay" and spaces.note("overlay", 1) == ""


def test_overlay_helpers():
    k = np.array([0x7f00_0000_1000, (3 << 48) | 0x7f00_0000_1000, (1 << 63) | 0xffff_8000_0000_0000 & ~(1 << 63),
                  (5 << 48) | 0x1000], dtype=np.uint64)
    k[2] = np.uint64(0xffff_8000_0000_1000)     # a kernel address: bit 63, no tag
    assert spaces.overlay_addresses(k).tolist() == [0x7f00_0000_1000, 0x7f00_0000_1000, 0xffff_8000_0000_1000, 0x1000]
    assert spaces.key_spaces(k) == (3, False)
    assert spaces.key_spaces(k[:1]) == (1, True) and spaces.key_spaces(k[1:2]) == (1, False)
    lay = spaces.overlay_layout([(0x1000, 0x5000, "postgres", "r-xp"), ((2 << 48) | 0x1000, (2 << 48) | 0x5000,
                                  "pid 77 postgres", "r-xp"), ((2 << 48) | 0x3000, (2 << 48) | 0x9000,
                                                               "pid 77 [heap]", "rw-p")])
    assert lay == [(0x1000, 0x5000, "postgres", "r-xp"), (0x5000, 0x9000, "[heap]", "rw-p")]


def test_many_processes_overlaid_on_the_heatmap(tmp):
    n = spaces.OVERLAY_PROCESSES * 2
    tr, addr = backends(str(tmp / "many.mtrace"), n)
    view = heatmap.View(tr, make_selection(tr, args()))
    assert view.mode == "overlay" and view.nprocs == n
    assert "%d processes overlaid" % n in view.what
    data = heatmap.bin_view(view, 4096, 100)
    assert int(data.counts.sum()) == n * PER                     # every sample on the axis
    assert data.axis.bucket <= 1 << 20, data.axis.bucket         # before: 1 PiB at 3000 processes
    los = [lo for lo, _ in data.axis.ranges]
    assert min(los) <= int(addr.min()) and max(hi for _, hi in data.axis.ranges) > int(addr.max())
    names = {name for lo, hi in data.axis.ranges for _, _, name in heatmap._groups(view.layout, lo, hi)}
    assert names == {"zero", "[heap]"}, names                   # named by MAPS, no 'pid N' nor keys


def test_few_processes_side_by_side(tmp):
    tr, _ = backends(str(tmp / "few.mtrace"), 3)
    view = heatmap.View(tr, make_selection(tr, args()))
    assert view.mode == "keys" and "overlaid" not in (view.what or "")
    data = heatmap.bin_view(view, 4096, 100)
    assert data.axis.bucket <= 1 << 20 and int(data.counts.sum()) == 3 * PER
    names = [name for lo, hi in data.axis.ranges for _, _, name in heatmap._groups(view.layout, lo, hi)]
    # each process's heap apart, the shared segment once (one object: keyed once)
    assert set(names) == {"zero", "[heap]", "pid 1001 [heap]", "pid 1002 [heap]"}, names


def test_hot_overlays_as_the_heatmap(tmp, monkeypatch):
    n = spaces.OVERLAY_PROCESSES + 1
    tr, _ = backends(str(tmp / "hot.mtrace"), n)
    sel = make_selection(tr, args())
    rep = lib.report(tr.path, bucket=4096, top=20, flags=hot.FLAGS, sel=sel)
    m, layout, what = hot.axis_of(tr, sel, rep)
    assert m == "overlay" and "%d processes overlaid" % n in what
    from memtrace_analyze import plotting
    monkeypatch.setattr(plotting, "save", lambda fig, path: None)
    per_row, axis = hot.plot(layout, tr, rep, str(tmp / "h.png"), what, mode=m)
    assert int(per_row.sum()) == n * PER and axis.bucket <= 1 << 20, axis.bucket


def test_compare_says_overlaid_and_its_title_stays_clear(tmp, monkeypatch):
    n = spaces.OVERLAY_PROCESSES + 1
    views = []
    for k in "ab":
        tr, _ = backends(str(tmp / ("%s.mtrace" % k)), n)
        views.append(heatmap.View(tr, make_selection(tr, args())))
    from memtrace_analyze import compare, plotting
    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, path: figs.append(fig))
    compare.plot(views[0], views[1], str(tmp / "c.png"), 4096, [], {"volume_change": 0}, 1)
    fig, = figs
    fig.set_dpi(plotting.save_dpi(fig))     # measured as saved
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2
    for ax in panels:
        assert "%d processes overlaid" % n in ax.get_title(), ax.get_title()
    # five lines of panel title: the figure's title above them, not over them
    assert fig._suptitle.get_window_extent(r).y0 > max(ax.title.get_window_extent(r).y1 for ax in panels)


def test_one_process_not_the_target(tmp):
    # samples of a child only: its keys carry a tag, so its own layout names them
    tr, _ = backends(str(tmp / "child.mtrace"), 2, first=1)
    sel = make_selection(tr, args())
    view = heatmap.View(tr, sel)
    assert view.nprocs == 1 and view.mode == "keys" and "overlaid" not in (view.what or "")
    data = heatmap.bin_view(view, 4096, 100)
    names = {name for lo, hi in data.axis.ranges for _, _, name in heatmap._groups(view.layout, lo, hi)}
    assert "pid 1001 [heap]" in names and "unmapped" not in names, names
    rep = lib.report(tr.path, bucket=4096, top=20, flags=hot.FLAGS, sel=sel)
    assert hot.axis_of(tr, sel, rep)[0] == "keys"
