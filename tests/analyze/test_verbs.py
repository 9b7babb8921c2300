"""hot, regions, compare, wss, report on a trace with known content: the
numbers (from libmemtrace) are exact, the figures are PNGs."""
import argparse
import json
import os

from conftest import assert_png
from tracegen import write_trace

from memtrace_analyze import compare, heatmap, hot, lib, regions, report, wss
from memtrace_analyze.lib import Trace
from memtrace_analyze.select import make_selection

HEAP = 0x4c8000
COL = 0x7f0000000000
STACK = 0x7fffffffe000
ADDRS = [COL, COL + 8, COL + 0x1000, COL + 0x1008, COL + 0x2000, COL + 0x2010,
         HEAP, HEAP + 8, HEAP + 0x1000, STACK, STACK + 8, 0x10000]


def args(**kw):
    a = argparse.Namespace(window=None, interval=None, bucket=None, top=20, range=None, mapping=None,
                           time_range=None, pid=None, tid=None)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def known(tmp, name="k.mtrace", addrs=ADDRS, **kw):
    p = write_trace(str(tmp / name), list(range(1, len(addrs) + 1)), addrs, **kw)
    return Trace(p)


def by_name(regs):
    return {r.key.split(" ")[0]: r for r in regs}


def test_hot_counts_curve_and_table(tmp):
    tr = known(tmp)
    rep = lib.report(tr.path, bucket=4096, top=20, flags=hot.FLAGS)
    assert rep["samples"] == 12
    assert sorted(zip(rep["bucket_addr"].tolist(), rep["bucket_count"].tolist())) == sorted(
        [(0x10000, 1), (HEAP, 2), (HEAP + 0x1000, 1), (COL, 2), (COL + 0x1000, 2), (COL + 0x2000, 2), (STACK, 2)])
    assert [(k, b) for k, b, _ in rep["curve"]] == [(1, 7), (2, 5)]
    rows = hot.top_table(rep)
    assert [r["samples"] for r in rows] == [2, 2, 2, 2, 2, 1, 1]
    assert sum(r["samples"] for r in rows) == 12
    assert {r["addr"] for r in rows[:5]} == {COL, COL + 0x1000, COL + 0x2000, HEAP, STACK}
    assert "Hot 4 KiB data buckets (accessed by: " in hot.format_top(rows, 4096, tr.words)


def test_regions_exact(tmp):
    tr = known(tmp)
    rep, regs = regions.compute(tr, args(bucket="4K"), make_selection(tr, args()))
    r = by_name(regs)
    assert r["[anon:column]"].samples == 6 and r["[anon:column]"].touched == 3 * 4096
    assert r["[anon:column]"].volume == 6 * 4096
    assert r["[heap]"].samples == 3 and r["[heap]"].touched == 2 * 4096
    assert r["[stack]"].samples == 2 and r["[stack]"].touched == 4096
    assert r["unmapped"].samples == 1
    assert sum(x.samples for x in regs) == 12
    assert [x.samples for x in regs] == sorted([x.samples for x in regs], reverse=True)


def test_regions_and_hot_png(tmp):
    tr = known(tmp)
    sel = make_selection(tr, args())
    rep, regs = regions.compute(tr, args(), sel)
    regions.plot(tr, regs, str(tmp / "r.png"))
    assert_png(str(tmp / "r.png"))
    rep = lib.report(tr.path, top=20, flags=hot.FLAGS)
    m, layout, what = hot.axis_of(tr, sel, rep)
    hot.plot(layout, tr, rep, str(tmp / "h.png"), what, mode=m)
    assert_png(str(tmp / "h.png"))


def test_compare_with_itself_is_zero_percent(tmp):
    a = known(tmp)
    sel = make_selection(a, args())
    res = compare.compute(a, a, 0, sel, sel)
    rows, tot, scale = res["regions"], res["regions_total"], res["scale"]
    assert scale == 1 and res["bucket"] == 4096
    assert all(r["volume_change"] == 0.0 and r["touched_change"] == 0.0 for r in rows)
    assert tot["volume_change"] == 0.0
    compare.plot(heatmap.View(a, sel), heatmap.View(a, sel), str(tmp / "c.png"), 4096, rows, tot, scale)
    assert_png(str(tmp / "c.png"))
    assert "+0.0%" in compare.format_table(rows, tot, ("a", "b"))


def test_compare_detects_change_and_aslr_shift(tmp):
    a = known(tmp)
    # B: the column mapped elsewhere (ASLR), half the column accesses gone
    maps_b = ("004c8000-00500000 rw-p 00000000 00:00 0 [heap]\n"
              "7f1000000000-7f1000400000 rw-p 00000000 00:00 0 [anon:column]\n")
    b = known(tmp, "b.mtrace", [HEAP, 0x7f1000000000, 0x7f1000000010, 0x7f1000001000], maps=maps_b)
    res = compare.compute(a, b, 0, make_selection(a, args()), make_selection(b, args()))
    r = {x["key"].split(" ")[0]: x for x in res["regions"]}
    assert r["[anon:column]"]["volume_change"] == -50.0
    assert r["[anon:column]"]["a_volume"] == 6 * 4096 and r["[anon:column]"]["b_touched"] == 2 * 4096
    assert round(r["[heap]"]["volume_change"], 4) == round(100 * (1 - 3) / 3, 4)
    assert r["[stack]"]["volume_change"] == -100.0
    assert compare.fmt_pct(None) == "new"


def test_compare_scales_by_sample_period(tmp):
    a = known(tmp)
    b = known(tmp, "b.mtrace", [COL], sample_period=6)
    res = compare.compute(a, b, 0, make_selection(a, args()), make_selection(b, args()))
    assert res["scale"] == 6
    assert {x["key"].split(" ")[0]: x for x in res["regions"]}["[anon:column]"]["volume_change"] == 0.0


def test_wss_plot_peaks_and_csv(tmp):
    # 40 steps of 100 instructions; step 25 touches 50 new pages: one peak there
    t, a = [], []
    for k in range(40):
        pages = 50 if k == 25 else 2
        for j in range(pages):
            t.append(k * 100 + 1 + j)
            a.append(COL + ((j + (100 if k == 25 else 0)) << 12))
    tr = Trace(write_trace(str(tmp / "w.mtrace"), t, a, ip=[0x401000] * len(t)))
    res = wss.compute(tr, args(window="100,300", interval="100"), make_selection(tr, args()))
    assert res.taus == [100, 300] and res.interval == 100 and res.nrep == 40
    assert res.times.tolist() == [100 * k for k in range(1, 41)]
    assert res.data[100].tolist()[24:27] == [2, 50, 2]
    assert [p["index"] for p in res.peaks] == [25]
    wss.plot(tr, res, str(tmp / "w.png"))
    assert_png(str(tmp / "w.png"))
    text = wss.format_peaks(tr, res, wss.peak_rows(res))
    assert "[0] WSS 200 KiB at 2.6k instructions" in text
    wss.write_csv(res, str(tmp / "w.csv"))
    lines = open(tmp / "w.csv").read().splitlines()
    assert lines[0].startswith("time,wss_data_tau100,") and lines[26].startswith("2600,50,")


def test_wss_of_one_evaluation_is_drawn(tmp, monkeypatch):
    # a recording shorter than the interval: one evaluation, which a line
    # alone (no segment) never drew; it gets a marker, as do values between
    # two gaps, and only those
    import numpy as np
    from memtrace_analyze import plotting
    tr = known(tmp)
    res = wss.compute(tr, args(window="12", interval="12"), make_selection(tr, args()))
    assert res.nrep == 1
    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, path: figs.append(fig))
    wss.plot(tr, res, str(tmp / "w.png"))
    marks = [ln for ln in figs[0].axes[0].get_lines() if ln.get_marker() == "o"]
    assert len(marks) == 1 and marks[0].get_ydata().tolist() == [res.data[12][0] * res.bucket]
    nan = float("nan")
    assert wss.isolated(np.array([1.0, nan, 2.0, 3.0, nan, 4.0])).tolist() == \
        [True, False, False, False, False, True]
    assert wss.isolated(np.array([nan, 5.0, nan])).tolist() == [False, True, False]
    assert not wss.isolated(np.array([], dtype=float)).size
    # steps: a value runs on to the next evaluation; only a lone last one is lost
    assert wss.isolated(np.array([1.0, nan, 2.0, 3.0, nan, 4.0]), "steps-post").tolist() == \
        [False, False, False, False, False, True]
    assert wss.isolated(np.array([7.0]), "steps-post").tolist() == [True]


def test_report_folder(tmp):
    tr = known(tmp)
    index, files, s = report.build(tr, str(tmp / "rep"), args(window="4", interval="2"), other=known(tmp, "o.mtrace"))
    assert sorted(files) == ["compare.png", "heatmap.png", "hot.png", "regions.png", "wss.png"]
    for f in files:
        assert_png(os.path.join(tmp, "rep", f))
    page = open(index).read()
    for f in files:
        assert 'src="%s"' % f in page
    assert "[anon:column]" in page and "samples    12 sampled accesses over a span of" in page
    j = json.load(open(tmp / "rep" / "summary.json"))
    assert j["samples"] == 12 and sum(r["samples"] for r in j["regions"]) == 12
    assert j["wss"]["interval"] == 2 and list(j["wss"]["data"]) == ["4"]


def test_report_of_empty_trace(tmp):
    tr = Trace(write_trace(str(tmp / "e.mtrace"), [], []))
    index, files, s = report.build(tr, str(tmp / "rep"), args())
    assert files == [] and s["samples"] == 0
    assert "holds no samples" in open(index).read()
