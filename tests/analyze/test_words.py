"""Honest words: the figures of a page-fault recording say "page faults",
"pages first touched", "resident-set growth" and never "working set" or
"accesses"; those of a valgrind recording say accesses (every access at
period 1, sampled accesses otherwise).  The class comes from the HEADER's
sample_class, or for older traces from the library's derivation
(memtrace_trace_words).  A window longer than the recording is refused by
the library, so both tools refuse it; the target is named by END
target_comm (what it became after exec)."""
import subprocess

import numpy as np
import pytest
from conftest import CLI, PYTHON
from test_verbs import args
from tracegen import write_trace

from memtrace_analyze import compare, heatmap, hot, lib, regions, report, wss
from memtrace_analyze.lib import Trace
from memtrace_analyze.plotting import png_texts
from memtrace_analyze.select import make_selection

COL = 0x7f0000000000
PF_META = {"backend": "perf", "source": "page-faults", "event": "page-faults", "target_comm": "pgtest"}
VG_META = {"backend": "valgrind", "source": "valgrind-lackey", "event": "all-data-accesses",
           "target_comm": "vgtest"}


def pf_trace(tmp, name="pf.mtrace", meta=None, **kw):
    """300 page faults over 1 s (ns), each page once, then nothing until
    end_time 2 s: the recording's span is 2 s, its last sample at 0.997 s."""
    n = 300
    times = (np.arange(n) * 3_333_333 + 1_000_000).astype(np.uint64)
    addrs = COL + np.arange(n, dtype=np.uint64) * 4096
    m = dict(PF_META)
    m.update(meta or {})
    return Trace(write_trace(str(tmp / name), times, addrs, ip=[0x401000] * n, time_unit="ns",
                             end_time=2_000_000_000, meta=m, **kw))


def vg_trace(tmp, period=1, name="vg.mtrace"):
    n = 400
    times = np.arange(n) * 50
    addrs = COL + (np.arange(n) % 40) * 64
    m = dict(VG_META)
    m["seed"] = 1
    return Trace(write_trace(str(tmp / name), times, addrs, ip=[0x401000] * n, sample_period=period, meta=m))


def figures(tr, tmp, prefix):
    """{verb: [title lines and labels]} of every figure of tr, read back from
    the PNGs' Description (one text per line)."""
    sel = make_selection(tr, args())
    out = {}
    p = str(tmp / (prefix + "heatmap.png"))
    heatmap.plot(heatmap.View(tr, sel), p)
    out["heatmap"] = p
    p = str(tmp / (prefix + "wss.png"))
    wss.plot(tr, wss.compute(tr, args(), sel), p)
    out["wss"] = p
    rep = lib.report(tr.path, top=5, flags=hot.FLAGS | lib.REPORT_REGIONS)
    p = str(tmp / (prefix + "hot.png"))
    m, layout, what = hot.axis_of(tr, sel, rep)
    hot.plot(layout, tr, rep, p, what, mode=m)
    out["hot"] = p
    p = str(tmp / (prefix + "regions.png"))
    regions.plot(tr, regions.from_report(rep, tr.sample_period), p)
    out["regions"] = p
    res = compare.compute(tr, tr, 0, sel, sel)
    rows, tot, scale = res["regions"], res["regions_total"], res["scale"]
    p = str(tmp / (prefix + "compare.png"))
    v = heatmap.View(tr, sel)
    compare.plot(v, v, p, rep["bucket"], rows, tot, scale)
    out["compare"] = p
    return {k: png_texts(p)["Description"].split("\n") for k, p in out.items()}


def test_page_fault_words_derived_for_an_old_trace(tmp):
    tr = pf_trace(tmp)      # no sample_class key: the source says page-faults
    assert tr.meta("sample_class") is None
    w = tr.words
    assert (w["sample_class"], w["samples"], w["wss"], w["series_title"]) == (
        "first-touch", "page faults", "pages first touched", "Pages first touched (resident-set growth)")
    assert pf_trace(tmp, "pf2.mtrace", meta={"sample_class": "first-touch", "source": "x"}).words == w


def test_page_fault_figures(tmp):
    f = figures(pf_trace(tmp), tmp, "pf-")
    title = "pgtest — page-faults, every event"
    # the heatmap spans the recording (2 s in 1000 bins), not its samples (1 s)
    assert f["heatmap"][:2] == ["Page faults over time: %s" % title, "bucket 4 KiB, time bin 2 ms, 300 samples shown"]
    assert f["heatmap"][-1] == "page faults per bucket per time bin (log)"
    assert f["wss"][0] == "Pages first touched (resident-set growth) over time: %s" % title
    assert f["wss"][2] == "data pages first touched" and "code at page faults" in f["wss"]
    assert f["hot"][:2] == ["Most-faulted data: %s" % title, "300 page faults"]
    assert f["hot"][2].startswith("Page faults by address (")
    assert "Buckets by page-fault count (total 1.2 MiB)" in f["hot"]
    assert "bytes in buckets faulted ≥ k times" in f["hot"]
    assert f["regions"][1:3] == ["Page faults per region", "page faults"]
    assert f["regions"][-1] == "touched volume (distinct 4 KiB buckets with page faults)"
    assert "page faults per bucket per time bin (log, same scale)" in f["compare"]
    assert any(t.startswith("Faulted volume per region") for t in f["compare"])
    for verb, texts in f.items():
        for t in texts:
            low = t.lower()
            assert "working set" not in low and "access" not in low and "wss" not in low, (verb, t)


@pytest.mark.parametrize("period,cls,samples", [(1, "every-access", "accesses"),
                                                (100, "sampled-access", "sampled accesses")])
def test_valgrind_figures(tmp, period, cls, samples):
    tr = vg_trace(tmp, period)
    assert tr.words["sample_class"] == cls
    f = figures(tr, tmp, "vg%d-" % period)
    every = "every event" if period == 1 else "1 in 100 events sampled"
    title = "vgtest — valgrind-lackey / all-data-accesses, %s" % every
    assert f["heatmap"][0] == "Memory accesses over time: %s" % title
    assert f["heatmap"][-1] == "%s per bucket per time bin (log)" % samples
    assert f["wss"][0] == "Working-set size over time: %s" % title
    assert f["wss"][2] == "data working set" and "code working set" in f["wss"]
    assert f["hot"][:2] == ["Hot data: %s" % title, "400 %s%s" % (samples, " (×100 ≈ all accesses)" if period > 1 else "")]
    assert "Hot working set by access frequency (total 4 KiB)" in f["hot"]
    assert f["regions"][1:3] == ["Memory accesses per region",
                                 "sampled accesses (× 100 ≈ all accesses)" if period > 1 else "accesses"]
    assert any(t.startswith("Accessed volume per region") for t in f["compare"])


def test_report_page_follows_the_class(tmp):
    tr = pf_trace(tmp)
    index, files, s = report.build(tr, str(tmp / "rep"), args())
    page = open(index).read()
    for h in ("<h2>Page faults over time</h2>", "<h2>Pages first touched (resident-set growth) over time</h2>",
              "<h2>Most-faulted data</h2>", "<p>first-touch: each sample is one page fault"):
        assert h in page, h
    assert "Working-set" not in page and "Hot data" not in page
    assert s["sample_class"] == "first-touch" and s["duration"] == 2_000_000_000


def test_window_longer_than_the_recording_is_refused(tmp):
    tr = pf_trace(tmp)
    # the span is start to END (2 s), not to the last sample (0.998 s)
    assert lib.report(tr.path, window=1_500_000_000)["window"] == 1_500_000_000
    with pytest.raises(lib.MemtraceError) as e:
        lib.report(tr.path, window=3_000_000_000)
    assert str(e.value) == tr.path + (": window 3.000 s is longer than the recording (2.000 s from start to end): "
                            "give a window of at most 2.000 s")
    r = subprocess.run([PYTHON, CLI, "wss", tr.path, "--window", "100ms,3s", "-o", str(tmp / "w.png")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "window 3.000 s is longer than the recording (2.000 s from start to end)" in r.stderr


def test_target_named_by_what_it_became(tmp):
    p = str(tmp / "n.mtrace")
    w = lib.Writer(p, {"time_unit": "ns", "start_time": 0, "target_pid": 7, "target_comm": "setpriv"})
    w.close({"end_time": 10, "target_comm": "pageramp"})
    tr = Trace(p)
    assert tr.meta("target_comm") == "setpriv" and tr.target_comm == "pageramp"
    p2 = str(tmp / "o.mtrace")
    lib.Writer(p2, {"time_unit": "ns", "start_time": 0, "target_comm": "old"}).close({"end_time": 10})
    assert Trace(p2).target_comm == "old"
