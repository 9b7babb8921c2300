"""Heatmap binning (libmemtrace's memtrace_bin_* over the decoded columns): exact
counts, compaction keeps every sample, filters, PNG."""
import numpy as np
import pytest
from conftest import assert_png
from tracegen import write_trace

from memtrace_analyze import heatmap
from memtrace_analyze.binning import build_axis, count2d, occupied_granules, time_bins
from memtrace_analyze.lib import MemtraceError, Trace
from memtrace_analyze.select import make_selection

HEAP = 0x4c8000
COL = 0x7f0000000000
STACK = 0x7ffffffde000


def test_time_bins_exact():
    t = np.array([0, 9, 10, 19, 20, 99, 100, 101], dtype=np.uint64)
    assert time_bins(t, 0, 100, 10).tolist() == [0, 0, 1, 1, 2, 9, 9, -1]
    assert time_bins(np.array([5], np.uint64), 10, 20, 4).tolist() == [-1]


def test_count2d_exact():
    rows = np.array([0, 0, 1, 2, 2, 2, -1])
    cols = np.array([0, 0, 1, 2, 2, 0, 0])
    m = count2d(rows, cols, 3, 3)
    assert m.tolist() == [[2, 0, 0], [0, 1, 0], [1, 0, 2]]


def test_occupied_granules_collapses_runs():
    a = np.array([5 << 16, (5 << 16) + 1, 7 << 16, 5 << 16, 1 << 16], dtype=np.uint64)
    assert occupied_granules(a, 16).tolist() == [1, 5, 7]


def test_axis_compaction_keeps_every_sample():
    rng = np.random.default_rng(7)
    parts = [HEAP + rng.integers(0, 0x30000, 5000), COL + rng.integers(0, 0x800000, 20000),
             STACK + rng.integers(0, 0x21000, 3000), np.array([0, 0xFFFFFFFFFFFFF000])]
    addr = np.concatenate(parts).astype(np.uint64)
    axis = build_axis(addr, 4096, max_rows=1024)
    rows = axis.rows(addr)
    assert (rows >= 0).all() and (rows < axis.nrows).all()
    assert axis.nrows <= 1024
    # 0, heap, column, stack and the top page: five ranges, gaps cut
    assert len(axis.ranges) == 5
    # rows are monotonic in the address (order preserved across the cut gaps)
    o = np.argsort(addr, kind="stable")
    assert (np.diff(rows[o]) >= 0).all()
    # within a range one row is one bucket
    m = (addr >= COL) & (addr < COL + 0x800000)
    r = rows[m]
    b = (addr[m] - addr[m].min()) >> np.uint64(axis.shift)
    assert (r - r.min() == b - b.min()).all() or axis.shift > 12


def test_axis_coarsens_to_fit():
    addr = np.arange(0, 64 << 20, 4096, dtype=np.uint64) + np.uint64(COL)
    axis = build_axis(addr, 4096, max_rows=1000)
    assert axis.requested_shift == 12 and axis.bucket == 128 << 10 and axis.nrows == 512
    assert (axis.rows(addr) >= 0).all()


def _walk_up(addr, req_shift, max_rows, gshift=16, gap_g=16):
    """The axis shift by definition: the first shift from the requested one
    up whose bucket-aligned, merged ranges of occupied granules (2^gshift
    bytes; runs apart by more than gap_g granules are cut) fit max_rows."""
    cand = []
    for x in np.unique(addr >> np.uint64(gshift)).tolist():
        if cand and x - cand[-1][1] <= gap_g:
            cand[-1][1] = x
        else:
            cand.append([x, x])
    cand = [(a << gshift, min((b + 1) << gshift, 1 << 64)) for a, b in cand]
    for shift in range(req_shift, 64):
        b = 1 << shift
        merged = []
        for lo, hi in cand:
            lo, hi = lo // b * b, min(-(-hi // b) * b, 1 << 64)
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        if sum((hi - lo) >> shift for lo, hi in merged) <= max_rows or shift >= 63:
            return shift
    return 63


@pytest.mark.parametrize("seed", range(6))
def test_axis_shift_is_the_smallest_that_fits(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    spread = int(rng.choice([1 << 24, 1 << 36, 1 << 47, 1 << 63]))
    addr = rng.integers(0, spread, n, dtype=np.uint64)
    if seed % 2:
        addr = np.concatenate([addr, np.array([0xFFFFFFFFFFFFF000], np.uint64)])
    for max_rows in (16, 1024, 100000):
        axis = build_axis(addr, 4096, max_rows=max_rows, gap=1 << 20)
        assert axis.shift == _walk_up(addr, 12, max_rows), (seed, max_rows)
        assert axis.nrows <= max_rows or axis.shift == 63


def _view(tmp, times, addrs, args=None, **kw):
    p = write_trace(str(tmp / "t.mtrace"), times, addrs, **kw)
    tr = Trace(p)
    return heatmap.View(tr, make_selection(tr, args or Args()))


class Args:
    range = mapping = time_range = pid = tid = None


def test_heatmap_bins_known_counts(tmp):
    # 3 pages in the heap, 2 time bins of 50 instructions
    times = [0, 10, 20, 60, 70, 99, 100]
    addrs = [HEAP, HEAP + 8, HEAP + 0x1000, HEAP, HEAP + 0x2000, HEAP + 0x2008, HEAP + 0x2010]
    v = _view(tmp, times, addrs, end_time=100)
    d = heatmap.bin_view(v, 4096, ncols=2)
    assert d.axis.bucket == 4096 and len(d.axis.ranges) == 1
    lo = d.axis.ranges[0][0]
    r0 = (HEAP - lo) // 4096
    m = d.counts
    assert m.sum() == 7
    assert m[r0].tolist() == [2, 1]
    assert m[r0 + 1].tolist() == [1, 0]
    assert m[r0 + 2].tolist() == [0, 3]
    # the range is labelled with the mapping the library's layout names
    groups = heatmap._groups(v.layout, *d.axis.ranges[0])
    assert any(g[2] == "[heap]" and g[0] <= HEAP < g[1] for g in groups), groups


def test_heatmap_png_and_every_sample_shown(tmp):
    rng = np.random.default_rng(1)
    n = 20000
    addrs = np.concatenate([HEAP + rng.integers(0, 0x20000, n // 2), COL + rng.integers(0, 0x400000, n // 2)])
    times = np.arange(n) * 10
    v = _view(tmp, times, addrs)
    out = tmp / "h.png"
    d = heatmap.plot(v, str(out), 4096)
    assert d.counts.sum() == n
    assert_png(str(out))


def test_heatmap_zoom_mapping_and_range(tmp):
    addrs = [HEAP, HEAP + 0x1000, COL, COL + 0x1000, COL + 0x3000]
    p = write_trace(str(tmp / "z.mtrace"), [1, 2, 3, 4, 5], addrs)
    tr = Trace(p)
    a = Args()
    a.mapping = "anon:column"
    v = heatmap.View(tr, make_selection(tr, a))
    assert v.n == 3 and sorted(v.cols["addr"].tolist()) == [COL, COL + 0x1000, COL + 0x3000]
    a.mapping, a.range = None, "%x-%x" % (COL, COL + 0x400000)
    v = heatmap.View(tr, make_selection(tr, a))
    assert v.n == 3 and v.clip == (COL, COL + 0x400000)
    d = heatmap.bin_view(v, 4096, 10)
    assert d.counts.sum() == 3 and d.axis.nrows == 0x400
    a.range = "%x-%x" % (HEAP, HEAP + 0x1000)
    assert heatmap.View(tr, make_selection(tr, a)).n == 1
    a.range, a.time_range = None, "2-4"
    v = heatmap.View(tr, make_selection(tr, a))
    assert v.n == 3 and (v.t0, v.t1) == (2, 4)
    a.time_range, a.mapping = None, "nosuchmapping"
    with pytest.raises(MemtraceError):
        heatmap.View(tr, make_selection(tr, a))


@pytest.mark.parametrize("nranges", [3, 30])
def test_rows_few_and_many_ranges_agree_with_definition(nranges):
    rng = np.random.default_rng(nranges)
    base = np.arange(nranges, dtype=np.uint64) * np.uint64(64 << 20) + np.uint64(COL)
    addr = (base[rng.integers(0, nranges, 5000)] + rng.integers(0, 0x40000, 5000).astype(np.uint64))
    axis = build_axis(addr, 4096, max_rows=100000)
    assert len(axis.ranges) == nranges
    rows = axis.rows(addr)
    # definition: row = row0[range] + (addr - range_lo) // bucket
    expect = []
    for a in addr.tolist():
        i = max(k for k, (lo, hi) in enumerate(axis.ranges) if lo <= a)
        expect.append(int(axis.row0[i]) + (a - axis.ranges[i][0]) // axis.bucket)
    assert rows.tolist() == expect
    assert axis.rows(addr, check=False).tolist() == expect
    outside = np.array([COL - 1, int(base[-1]) + (64 << 20)], dtype=np.uint64)
    assert axis.rows(outside).tolist() == [-1, -1]


def test_occupied_granules_equals_unique_random():
    rng = np.random.default_rng(0)
    for trial in range(200):
        a = (rng.integers(0, 2**20, 300).astype(np.uint64) << np.uint64(int(rng.integers(0, 40)))) \
            + rng.integers(0, 2**16, 300).astype(np.uint64)
        sh = int(rng.integers(6, 20))
        assert occupied_granules(a, sh).tolist() == np.unique(a >> np.uint64(sh)).tolist()


def test_one_pass_counts_equal_rows_times_count2d():
    """memtrace_bin_heatmap (one pass) = count2d(rows, time_bins) with samples
    outside the axis and the time span, and a time at t1 (last bin)."""
    from memtrace_analyze.binning import heatmap_counts
    rng = np.random.default_rng(3)
    addr = np.concatenate([HEAP + rng.integers(0, 0x30000, 4000), COL + rng.integers(0, 0x800000, 4000),
                           np.array([COL - 4096, 1 << 62])]).astype(np.uint64)
    time = rng.integers(0, 1200, addr.size).astype(np.uint64)
    time[:3] = [1000, 100, 99]
    axis = build_axis(addr[:8000], 4096, max_rows=512)
    for check in (True, False):
        want = count2d(axis.rows(addr, check=True), time_bins(time, 100, 1000, 37), axis.nrows, 37)
        got = heatmap_counts(axis, addr, time, 100, 1000, 37, check=True)
        assert np.array_equal(got, want)
    assert int(got.sum()) == int(((time >= 100) & (time <= 1000))[:8000].sum())
    # exact where 64-bit products would overflow (numpy's version rounded (2^62 - 1) * 4 / 2^62 up to 4)
    big = np.array([0, 1 << 61, (1 << 62) - 1, 1 << 62], dtype=np.uint64)
    assert time_bins(big, 0, 1 << 62, 4).tolist() == [0, 2, 3, 3]
