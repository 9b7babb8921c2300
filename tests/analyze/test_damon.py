"""memtrace-analyze damon and the region-level numbers through ctypes: a
synthetic trace of DAMON regions (REGIONS chunks) with known sizes."""
import json
import subprocess

from conftest import CLI, PYTHON, TOP, assert_png
from memtrace_analyze import lib
from memtrace_analyze.plotting import png_texts

K = 1024
# (time, start, end, pid, nr_accesses, age): aggregations at 1.1 s and 1.2 s
ROWS = [(1100000000, 0x10000, 0x14000, 7, 5, 1), (1100000000, 0x14000, 0x20000, 7, 0, 3),
        (1200000000, 0x10000, 0x18000, 7, 4, 0), (1200000000, 0x18000, 0x20000, 7, 4, 2)]


def write(path):
    w = lib.Writer(str(path), "format=memtrace-1\ntime_unit=ns\nstart_time=1000000000\ntarget_pid=7\n"
                              "target_comm=synthetic\nsource=damon\nbackend=damon\nsample_class=damon-regions\n"
                              "damon_sample_us=5000\ndamon_aggr_us=100000\ndamon_max_nr_accesses=20\n")
    w.damon_regions(ROWS)
    w.close("end_time=1300000000\n")
    return str(path)


def test_damon_numbers_exact(tmp):
    tr = lib.Trace(write(tmp / "d.mtrace"))
    regs = tr.damon_regions()
    assert regs.n == 4
    w = regs.wss()
    assert list(w["time"]) == [1100000000, 1200000000]
    assert list(w["wss_bytes"]) == [16 * K, 64 * K]
    assert list(w["monitored_bytes"]) == [64 * K, 64 * K]
    h = regs.heatmap(1100000000, 1300000000, 2, 0x10000, 0x20000, 4)
    assert h.tolist() == [[5.0, 0.0, 0.0, 0.0], [4.0, 4.0, 4.0, 4.0]]
    assert [r["start"] for r in regs.hot(2)] == [0x18000, 0x10000]


def test_damon_plot_and_report_agree(tmp):
    path = write(tmp / "d.mtrace")
    out = str(tmp / "damon.png")
    r = subprocess.run([PYTHON, CLI, "damon", path, "-o", out], capture_output=True, text=True, cwd=TOP)
    assert r.returncode == 0, r.stderr
    assert_png(out)
    texts = png_texts(out)["Description"]
    assert "region-level" in texts and "DAMON access frequency (region-level)" in texts
    rep = subprocess.run([TOP + "/build/memtracectl", "report", "--json", path], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    d = json.loads(rep.stdout)["damon_regions"]
    assert d["level"] == "region"
    assert [p["wss_bytes"] for p in d["series"]] == list(lib.Trace(path).damon_regions().wss()["wss_bytes"])
    assert d["wss_bytes"]["peak"] == 64 * K and d["aggregations"] == 2
    dump = subprocess.run([TOP + "/build/memtracectl", "dump", "--regions", path], capture_output=True, text=True)
    assert dump.returncode == 0, dump.stderr
    assert dump.stdout.splitlines() == ["time,pid,start,end,nr_accesses,age"] + [
        "%d,%d,0x%x,0x%x,%d,%d" % (t, p, s, e, a, g) for (t, s, e, p, a, g) in ROWS]


def test_damon_verb_refuses_trace_without_regions(tmp):
    import tracegen
    path = tracegen.write_trace(str(tmp / "s.mtrace"), [1, 2], [0x1000, 0x2000])
    r = subprocess.run([PYTHON, CLI, "damon", path, "-o", str(tmp / "x.png")], capture_output=True, text=True)
    assert r.returncode == 2 and "no DAMON regions" in r.stderr and r.stderr.count("\n") == 1


def reference_windows(rows, origin, end, window, interval):
    """Region-level WSS per window, independently: the bytes of the union of
    the accessed regions of the aggregations in (t - window, t], by page
    sets; None where no aggregation lies in the window (blind)."""
    out = []
    k = 1
    while origin + (k - 1) * interval < end:
        t = origin + k * interval
        inside = [r for r in rows if t - window < r[0] <= t]
        if not inside:
            out.append((t - origin, None, 0))
        else:
            pages = set()
            for (_, s, e, p, a, _) in inside:
                if a > 0:
                    pages |= {(p, x) for x in range(s, e, 4096)}
            out.append((t - origin, len(pages) * 4096, len({r[0] for r in inside})))
        k += 1
    return out


def test_damon_windows_series_json_and_blind(tmp):
    """report --window/--interval on a DAMON trace: a WSS per window (union
    over its aggregations) and the windows without an aggregation flagged
    blind, never 0 (it printed '0 intervals' before)."""
    path = write(tmp / "d.mtrace")
    mt = TOP + "/build/memtracectl"
    for window, interval in ((100, 100), (200, 50), (50, 50), (300, 120)):
        ref = reference_windows(ROWS, 1000000000, 1300000000, window * 1000000, interval * 1000000)
        csv = subprocess.run([mt, "report", path, "--window", "%dms" % window, "--interval", "%dms" % interval,
                              "--series", "-"], capture_output=True, text=True)
        assert csv.returncode == 0, csv.stderr
        lines = [l for l in csv.stdout.splitlines() if l and l[0].isdigit()]
        got = []
        for l in lines:
            t, w, a, b = l.split(",")
            got.append((int(t), None if b == "1" else int(w), int(a)))
            assert (b == "1") == (w == "")
        # rows: every window seen, and the first of each run of blind ones
        want = [r for i, r in enumerate(ref) if r[1] is not None or i == 0 or ref[i - 1][1] is not None]
        assert got == want, (window, interval, got, want)
        js = subprocess.run([mt, "report", "--json", path, "--window", "%dms" % window,
                             "--interval", "%dms" % interval], capture_output=True, text=True)
        assert js.returncode == 0, js.stderr
        w = json.loads(js.stdout)["damon_regions"]["windows"]
        assert w["blind"] == sum(1 for r in ref if r[1] is None)
        assert [(s["time"], s["wss_bytes"], s["aggregations"]) for s in w["series"]] == \
            [r for r in ref if r[1] is not None]
        txt = subprocess.run([mt, "report", path, "--window", "%dms" % window, "--interval", "%dms" % interval],
                             capture_output=True, text=True).stdout
        nb = w["blind"]
        assert ("blind: %d of %d" % (nb, len(ref)) in txt) == (nb > 0), txt
