"""record --mark spans and --labels in memtrace-analyze: the library's span
filter (reports, the heatmap's columns), per-span groups and labelled
layouts, on a synthetic trace with exact expected values."""
import numpy as np
from conftest import assert_png

from memtrace_analyze import heatmap
from memtrace_analyze.lib import REPORT_BY_SPAN, Resolver, Selection, Trace, Writer, report

PID = 7
MAPS = ("10000000-10010000 rw-s 00000000 00:05 1234 /dev/zero (deleted)\n"
        "20000000-20004000 rw-p 00000000 00:00 0 [heap]\n")
LABELS = "/dev/zero (deleted)+0x4000 0x8000 Buffer Blocks\n0x20001000 4096 hash table\n"
# (time, addr, tid); spans: tid 7 [100,200] q1, [300,400] q2, [500,600] q1; tid 8 [150,250] q2
SAMPLES = [(110, 0x10004000, 7), (120, 0x10005000, 7), (130, 0x10004008, 7), (160, 0x10004000, 8),
           (210, 0x20001000, 7), (260, 0x20000000, 8), (310, 0x20001010, 7), (510, 0x10006000, 7),
           (520, 0x10000000, 7)]


def make(path, labels=True):
    w = Writer(str(path), {"time_unit": "ns", "start_time": 0, "target_pid": PID, "bucket_default": 4096})
    w.maps(0, PID, MAPS)
    if labels:
        w.labels(LABELS)
    t, a, tid = (np.array(c, dtype=np.uint64) for c in zip(*SAMPLES))
    w.samples(time=t, addr=a, pid=np.full(t.size, PID, np.uint32), tid=tid.astype(np.uint32),
              cpu=np.zeros(t.size, np.uint32))
    for start, end, tid_, label in ((100, 200, 7, "q1"), (150, 250, 8, "q2"), (300, 400, 7, "q2"),
                                    (500, 600, 7, "q1")):
        w.span(start, end, PID, tid_, label)
    w.close({"end_time": 600})
    return str(path)


def test_spans_and_mask(tmp_path):
    p = make(tmp_path / "s.mtrace")
    with Trace(p) as tr:
        assert [(s[0], s[3], s[4]) for s in tr.spans()] == [(100, 7, "q1"), (300, 7, "q2"), (500, 7, "q1"),
                                                            (150, 8, "q2")]
        cols = tr.read(("time", "addr", "tid"), Selection(span="q2"))
        assert cols["time"].tolist() == [160, 310]
        assert tr.read(("addr",), Selection(span="q1"))["addr"].tolist() == [
            0x10004000, 0x10005000, 0x10004008, 0x10006000, 0x10000000]


def test_report_by_span_and_filter(tmp_path):
    p = make(tmp_path / "s.mtrace")
    r = report(p, window=100, flags=REPORT_BY_SPAN)
    assert (r["nspans"], r["span_samples"]) == (4, 7)
    assert [(g["label"], g["spans"], g["samples"], g["buckets"], g["avg_buckets"], g["max_buckets"])
            for g in r["span_groups"]] == [("q1", 2, 5, 4, 2.0, 2), ("q2", 2, 2, 2, 1.0, 1)]
    r = report(p, window=100, sel=Selection(span="q2"))
    assert (r["samples"], r["data"]["total"]) == (2, 2)


def test_labels_name_hot_and_layout(tmp_path):
    p = make(tmp_path / "s.mtrace")
    r = report(p, window=100, top=2)
    assert [(h["where"], h["count"]) for h in r["hot_data"]] == [("Buffer Blocks+0x0", 3), ("hash table+0x0", 2)]
    lay = Resolver(p).layout(0)
    assert [x[2] for x in lay] == ["zero", "Buffer Blocks", "zero", "[heap]", "hash table", "[heap]"]
    # a labels file given offline names a trace without LABELS chunk
    q = make(tmp_path / "n.mtrace", labels=False)
    f = tmp_path / "pg.labels"
    f.write_text(LABELS)
    assert report(q, window=100, top=1)["hot_data"][0]["where"] == "zero+0x4000"
    assert report(q, window=100, top=1, sel=Selection(labels=str(f)))["hot_data"][0]["where"] == \
        "Buffer Blocks+0x0"
    assert [x[2] for x in Resolver(q, labels=str(f)).layout(0)][1] == "Buffer Blocks"


def test_heatmap_span_png(tmp_path):
    p = make(tmp_path / "s.mtrace")
    out = tmp_path / "h.png"
    with Trace(p) as tr:
        sel = Selection(span="q1", what="span q1")
        view = heatmap.View(tr, sel)
        assert view.cols["time"].tolist() == [110, 120, 130, 510, 520]
        assert any(name == "Buffer Blocks" for (_s, _e, name, _p) in view.layout)
        heatmap.plot(view, str(out))
    assert_png(out)


def make_b(path):
    """B: the heap elsewhere; q1 twice (shared pages 4, 5, 6, then 4), q2 gone, q3 new."""
    w = Writer(str(path), {"time_unit": "ns", "start_time": 0, "target_pid": 9, "bucket_default": 4096})
    w.maps(0, 9, MAPS.replace("20000000-20004000", "30000000-30004000"))
    smp = [(110, 0x10004000), (120, 0x10005000), (130, 0x10006000), (310, 0x10004000), (510, 0x30002000)]
    t, a = (np.array(c, dtype=np.uint64) for c in zip(*smp))
    w.samples(time=t, addr=a, pid=np.full(t.size, 9, np.uint32), tid=np.full(t.size, 9, np.uint32),
              cpu=np.zeros(t.size, np.uint32))
    for start, end, label in ((100, 200, "q1"), (300, 400, "q1"), (500, 600, "q3")):
        w.span(start, end, 9, 9, label)
    w.close({"end_time": 600})
    return str(path)


def test_compare_by_span(tmp_path):
    """The library's rows per span label (libcompare, memtracectl compare's
    numbers) and the compare figure with --span and --by-span."""
    from memtrace_analyze import cli
    from memtrace_analyze.libcompare import compare
    a, b = make(tmp_path / "a.mtrace", labels=False), make_b(tmp_path / "b.mtrace")
    res = compare(a, b)
    rows = {r["key"]: r for r in res["spans"]}
    assert [r["key"] for r in res["spans"]] == ["q1", "q2", "q3"]   # by the larger volume (samples x bucket)
    q1 = rows["q1"]
    # A: q1 spans [100,200] tid 7 (3 samples, pages 4, 5) and [500,600] (pages 6, 0): 4 buckets, 2 + 2 per span
    assert (q1["a_spans"], q1["a_samples"], q1["a_touched"], q1["a_avg_touched"]) == (2, 5, 4 * 4096, 2 * 4096)
    assert (q1["b_spans"], q1["b_samples"], q1["b_touched"], q1["b_avg_touched"]) == (2, 4, 3 * 4096, 2 * 4096)
    assert q1["touched_change"] == -25.0 and q1["avg_touched_change"] == 0.0
    assert rows["q3"]["touched_change"] is None and rows["q3"]["b_touched"] == 4096
    assert rows["q2"]["b_spans"] == 0 and rows["q2"]["touched_change"] == -100.0
    res = compare(a, b, sel_a=Selection(span="q1"))
    assert (res["a"]["samples"], res["b"]["samples"]) == (5, 4)
    assert [r["key"] for r in res["spans"]] == ["q1"]
    zero = {r["key"]: r for r in res["regions"]}["zero rw-s"]
    assert (zero["a_samples"], zero["b_samples"], zero["volume_change"]) == (5, 4, -20.0)
    out = tmp_path / "c.png"
    assert cli.main(["compare", a, b, "-o", str(out), "--span", "q", "--by-span"]) == 0
    assert_png(out)
    assert cli.main(["compare", a, b, "-o", str(out), "--span", "q2"]) == 2   # B has no q2
