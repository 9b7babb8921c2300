"""memtrace-analyze mrc and the library's miss-ratio curve (REPORT_MRC) on
crafted traces: the curve equals an LRU cache run here as an OrderedDict at
every size, the knee of a cyclic scan is at its size, --for-size is the
simulated hit ratio, a sampled trace says it is an estimate."""
import subprocess
import sys
from collections import OrderedDict

import numpy as np

from conftest import assert_png
from memtrace_analyze import lib
from tracegen import write_trace

TOP = __file__.rsplit("/tests/", 1)[0]
BASE = 0x7f0000000000


def lru_miss(pages, c):
    """Miss ratio of an LRU cache of c pages over pages (cold misses included)."""
    lru, miss = OrderedDict(), 0
    for p in pages:
        if p in lru:
            lru.move_to_end(p)
        else:
            miss += 1
            lru[p] = True
            if len(lru) > c:
                lru.popitem(last=False)
    return miss / len(pages)


def stream():
    """A cyclic scan of 40 pages (5 rounds) then random picks among 200."""
    rng = np.random.default_rng(7)
    pages = np.concatenate([np.tile(np.arange(40), 5), rng.integers(0, 200, 3000)])
    return pages, BASE + pages * 4096 + rng.integers(0, 4096, pages.size) // 8 * 8


def test_curve_equals_lru(tmp_path):
    pages, addr = stream()
    path = write_trace(str(tmp_path / "t.mtrace"), np.arange(pages.size) + 1, addr)
    rep = lib.report(path, flags=lib.REPORT_MRC, mrc_sizes=[50 * 4096, 100 * 4096 + 5])
    m = rep["mrc"]
    assert m["exact"] and m["references"] == pages.size and m["footprint"] == 200
    assert m["bytes"].size >= 64 and m["bytes"][0] == 4096 and m["bytes"][-1] == 200 * 4096
    for b, got in zip(m["bytes"], m["miss_ratio"]):
        assert abs(got - lru_miss(pages.tolist(), int(b) // 4096)) < 1e-9, b
    assert abs(rep["mrc_at"][50 * 4096][0] - lru_miss(pages.tolist(), 50)) < 1e-9
    assert abs(rep["mrc_at"][100 * 4096 + 5][0] - lru_miss(pages.tolist(), 100)) < 1e-9


def test_scan_knee_at_its_size(tmp_path):
    pages = np.tile(np.arange(300), 20)
    path = write_trace(str(tmp_path / "scan.mtrace"), np.arange(pages.size) + 1, BASE + pages * 4096)
    m = lib.report(path, flags=lib.REPORT_MRC)["mrc"]
    assert m["knees"] == [300 * 4096]
    assert m["miss_ratio"][m["bytes"] < 300 * 4096].min() == 1.0


def test_verb_png_and_estimate(tmp_path):
    pages, addr = stream()
    exact = write_trace(str(tmp_path / "e.mtrace"), np.arange(pages.size) + 1, addr)
    sampled = write_trace(str(tmp_path / "s.mtrace"), np.arange(0, pages.size, 10) + 1, addr[::10],
                          sample_period=10)
    for path, word in ((exact, "exact"), (sampled, "estimated from 1-in-10 samples")):
        out = tmp_path / "mrc.png"
        p = subprocess.run([sys.executable, TOP + "/user/analyze/memtrace-analyze", "mrc", path, "-o", str(out),
                            "--for-size", "100K"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert_png(str(out))
        assert word in p.stderr and "predicted hit ratio" in p.stderr
    m = lib.report(sampled, flags=lib.REPORT_MRC)["mrc"]
    assert not m["exact"] and m["period"] == 10
    assert np.all(m["lo"] <= m["miss_ratio"]) and np.all(m["miss_ratio"] <= m["hi"])


def test_one_reference_drawn_without_warnings(tmp_path):
    # one bucket: a curve of one size (a step line draws nothing of it; matplotlib
    # warned of identical x limits on stderr)
    path = write_trace(str(tmp_path / "one.mtrace"), [1], [BASE])
    p = subprocess.run([sys.executable, "-W", "error::UserWarning", TOP + "/user/analyze/memtrace-analyze",
                        "mrc", path, "-o", str(tmp_path / "m.png")], capture_output=True, text=True)
    assert p.returncode == 0 and "Warning" not in p.stderr, p.stderr
    from memtrace_analyze import mrc, plotting
    figs = []
    plot_save = plotting.save
    plotting.save = lambda fig, out: figs.append(fig)
    try:
        mrc.plot(lib.Trace(path), lib.report(path, flags=lib.REPORT_MRC)["mrc"], str(tmp_path / "x.png"))
    finally:
        plotting.save = plot_save
    ax = figs[0].axes[0]
    lo, hi = ax.get_xlim()
    assert lo < hi and [ln.get_marker() for ln in ax.get_lines()][0] == "o"


def test_refused_where_samples_are_not_references(tmp_path):
    """page faults, hint faults, accessed-bit passes: no curve, one line, exit 1"""
    pages, addr = stream()
    for cls in ("first-touch", "hint-fault", "accessed-bit"):
        path = write_trace(str(tmp_path / f"{cls}.mtrace"), np.arange(pages.size) + 1, addr,
                           meta={"sample_class": cls})
        p = subprocess.run([TOP + "/build/memtracectl", "report", "--mrc", path],
                           capture_output=True, text=True)
        assert p.returncode != 0 and p.stderr.count("\n") == 1, (cls, p.returncode, p.stderr)
        assert f"no miss-ratio curve of a {cls} trace" in p.stderr, p.stderr


def lru_hits_after(pages, c, warm):
    """Hit ratio of an LRU cache of c pages over pages[warm:], the first
    warm references having filled it (cold misses after them included)."""
    lru, hits = OrderedDict(), 0
    for i, p in enumerate(pages):
        if p in lru:
            lru.move_to_end(p)
            hits += i >= warm
        else:
            lru[p] = True
            if len(lru) > c:
                lru.popitem(last=False)
    return hits / (len(pages) - warm)


def test_warmup_and_measured(tmp_path):
    """--mrc-warmup / mrc --warmup: the references before start + D fill the
    cache only; --measured draws points and prints the gap to the curve."""
    pages, addr = stream()
    time = np.arange(pages.size) + 1
    path = write_trace(str(tmp_path / "w.mtrace"), time, addr)
    warm = 1000                         # instructions: the first 999 references warm only
    rep = lib.report(path, flags=lib.REPORT_MRC, mrc_sizes=[50 * 4096], mrc_warmup=warm)
    first = int(np.searchsorted(time, warm))
    assert rep["mrc"]["references"] == pages.size - first
    want = lru_hits_after(pages.tolist(), 50, first)
    assert abs((1 - rep["mrc_at"][50 * 4096][0]) - want) < 1e-9
    j = subprocess.run([TOP + "/build/memtracectl", "report", "--json", "--mrc-warmup", str(warm),
                        "--for-size", "50K,200K", path], capture_output=True, text=True)
    assert j.returncode == 0, j.stderr
    import json
    info = json.loads(j.stdout)["mrc_info"]
    assert info["warmup"] == warm and [e["bytes"] for e in info["for_sizes"]] == [50 << 10, 200 << 10]
    assert abs(info["for_sizes"][0]["hit_ratio"] - lru_hits_after(pages.tolist(), 12, first)) < 1e-6
    out = tmp_path / "m.png"
    p = subprocess.run([sys.executable, TOP + "/user/analyze/memtrace-analyze", "mrc", path, "-o", str(out),
                        "--warmup", str(warm), "--measured", "200K=0.5"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert_png(str(out))
    pred = lru_hits_after(pages.tolist(), 50, first)
    assert "at 200 KiB: measured hit ratio 0.5000, predicted %.4f" % pred in p.stderr, p.stderr
    bad = subprocess.run([sys.executable, TOP + "/user/analyze/memtrace-analyze", "mrc", path, "-o", str(out),
                          "--measured", "200K=1.5"], capture_output=True, text=True)
    assert bad.returncode != 0 and "bad --measured item" in bad.stderr
