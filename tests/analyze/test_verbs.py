"""hot, regions, compare, report: known counts, 0 % self-compare, PNGs."""
import json
import os

from conftest import assert_png
from mtrace_writer import make_trace, simple_samples

from memtrace_analyze import compare, hot, regions, report
from memtrace_analyze.select import View
from memtrace_analyze.trace import parse_trace, read_trace

HEAP = 0x4c8000
COL = 0x7f0000000000
ANON = 0x7f0000400000
STACK = 0x7ffffffde000


def known_trace(path=None):
    # heap: 3 samples on 2 pages; column: 6 samples on 3 pages (one page 4x);
    # anon: 1; stack: 2 on one page; unmapped: 1
    addrs = [HEAP, HEAP + 8, HEAP + 0x1000,
             COL, COL + 16, COL + 32, COL + 48, COL + 0x1000, COL + 0x3000,
             ANON + 0x10,
             STACK + 0x20000, STACK + 0x20008,
             0x1000]
    times = list(range(0, 10 * len(addrs), 10))
    data = make_trace(path, simple_samples(times, addrs))
    return parse_trace(data, path or "known.mtrace")


def test_hot_counts_and_hot_wss():
    tr = known_trace()
    res = hot.bucket_counts(tr.addr, 4096)
    assert sorted(res.counts.tolist(), reverse=True) == [4, 2, 2, 1, 1, 1, 1, 1]
    ks, ge = res.hot_wss()
    assert ks.tolist() == [1, 2, 4]
    assert ge.tolist() == [8 * 4096, 3 * 4096, 1 * 4096]
    top = hot.top_table(tr, res, 2)
    assert top[0]["addr"] == COL and top[0]["samples"] == 4 and top[0]["where"] == "[anon:column]+0x0"


def test_hot_top_names_the_instruction_that_accessed_most():
    # column page: ip 0x400100 3x, 0x400200 1x, one sample without an ip
    # (not counted in the share); heap page: 0x400300 2x
    addrs = [COL, COL + 8, COL + 16, COL + 24, COL + 32, HEAP, HEAP + 8]
    ips = [0x400100, 0x400200, 0x400100, 0, 0x400100, 0x400300, 0x400300]
    tr = parse_trace(make_trace(None, simple_samples(range(0, 70, 10), addrs, ip=ips)), "ip.mtrace")
    top = hot.top_table(tr, hot.bucket_counts(tr.addr, 4096), 2)
    # /usr/bin/dbtest is not readable here: mapping + file offset; shares exact
    assert [(r["addr"], r["samples"], r["by"]) for r in top] == [
        (COL, 5, "dbtest+0x100 75%"), (HEAP, 2, "dbtest+0x300 100%")]
    assert "[by dbtest+0x100 75%]" in hot.format_top(tr, top, 4096)
    # a bucket of a file mapping is named by file offset, as perf and memtracectl do:
    # 004c0000-004c8000 rw-p 000c0000 ... /usr/bin/dbtest
    tr2 = parse_trace(make_trace(None, simple_samples([1, 2], [0x4c1010, 0x4c1020])), "data.mtrace")
    assert hot.top_table(tr2, hot.bucket_counts(tr2.addr, 4096), 1)[0]["where"] == "dbtest+0xc1000"
    # without ips there is no "by"
    assert "by" not in hot.top_table(known_trace(), hot.bucket_counts(known_trace().addr, 4096), 1)[0]


def test_regions_exact():
    tr = known_trace()
    regs = {r.key: r for r in regions.compute(tr, 4096)}
    assert regs["[anon:column] rw-p"].samples == 6
    assert regs["[anon:column] rw-p"].touched == 3 * 4096
    assert regs["[anon:column] rw-p"].volume == 6 * 4096
    assert regs["[heap] rw-p"].samples == 3 and regs["[heap] rw-p"].touched == 2 * 4096
    assert regs["[anon] rw-p"].samples == 1
    assert regs["[stack] rw-p"].samples == 2 and regs["[stack] rw-p"].touched == 4096
    assert regs["unmapped"].samples == 1
    assert sum(r.samples for r in regs.values()) == tr.n


def test_regions_and_hot_png(tmp):
    tr = known_trace()
    regs = regions.compute(tr, 4096)
    regions.plot(tr, regs, str(tmp / "r.png"))
    assert_png(str(tmp / "r.png"))
    hot.plot(View(tr), str(tmp / "h.png"), 4096)
    assert_png(str(tmp / "h.png"))


def test_compare_with_itself_is_zero_percent(tmp):
    a = known_trace(str(tmp / "a.mtrace"))
    b = read_trace(str(tmp / "a.mtrace"))
    rows, tot, scale = compare.compute(a, b, 4096)
    assert scale == 1
    assert all(r["volume_change"] == 0.0 and r["touched_change"] == 0.0 for r in rows)
    assert tot["volume_change"] == 0.0
    compare.plot(View(a), View(b), str(tmp / "c.png"), 4096, rows, tot, scale)
    assert_png(str(tmp / "c.png"))
    assert "+0.0%" in compare.format_table(rows, tot, ("a", "b"))


def test_compare_detects_change_and_aslr_shift():
    a = known_trace()
    # B: the column mapped elsewhere (ASLR), half the column accesses gone
    maps_b = ("004c8000-00500000 rw-p 00000000 00:00 0 [heap]\n"
              "7f1000000000-7f1000400000 rw-p 00000000 00:00 0 [anon:column]\n")
    addrs = [HEAP, 0x7f1000000000, 0x7f1000000010, 0x7f1000001000]
    b = parse_trace(make_trace(None, simple_samples([1, 2, 3, 4], addrs), maps=maps_b), "b")
    rows, tot, _ = compare.compute(a, b, 4096)
    r = {x["key"]: x for x in rows}
    assert r["[anon:column] rw-p"]["volume_change"] == -50.0
    assert round(r["[heap] rw-p"]["volume_change"], 4) == round(100 * (1 - 3) / 3, 4)
    assert r["[stack] rw-p"]["volume_change"] == -100.0
    assert compare.pct(0, 5) is None and compare.fmt_pct(None) == "new"


def test_compare_scales_by_sample_period():
    a = known_trace()
    b = parse_trace(make_trace(None, simple_samples([1], [COL]), header={"sample_period": "6"}), "b")
    rows, tot, scale = compare.compute(a, b, 4096)
    assert scale == 6
    r = {x["key"]: x for x in rows}
    assert r["[anon:column] rw-p"]["volume_change"] == 0.0


def test_report_folder(tmp):
    known_trace(str(tmp / "k.mtrace"))
    tr = read_trace(str(tmp / "k.mtrace"))
    index, files, s = report.build(tr, str(tmp / "rep"), 4096, other=read_trace(str(tmp / "k.mtrace")))
    assert sorted(files) == ["compare.png", "heatmap.png", "hot.png", "regions.png", "wss.png"]
    for f in files:
        assert_png(os.path.join(tmp, "rep", f))
    page = open(index).read()
    for f in files:
        assert 'src="%s"' % f in page
    assert "[anon:column]" in page and "13 over" in page
    j = json.load(open(tmp / "rep" / "summary.json"))
    assert j["samples"] == 13 and sum(r["samples"] for r in j["regions"]) == 13


def test_report_of_empty_trace(tmp):
    p = tmp / "e.mtrace"
    make_trace(str(p), None)
    index, files, s = report.build(read_trace(str(p)), str(tmp / "rep"))
    assert files == [] and s["samples"] == 0
    assert "no samples" in open(index).read()


def test_hot_names_data_symbols_of_static_binary(tmp):
    # a static non-PIE workload built by `make`: its .data symbols name the hot bucket
    import shutil
    import subprocess

    import numpy as np
    from conftest import TOP
    exe = os.path.join(TOP, "build", "workloads", "dbquery")
    nm = shutil.which("nm")
    if not (os.path.exists(exe) and nm):
        import pytest
        pytest.skip("build/workloads/dbquery or nm missing")
    out = subprocess.run([nm, "-n", "-S", exe], capture_output=True, text=True).stdout
    sym = [ln.split() for ln in out.splitlines() if ln.endswith(" rng_state")][0]
    a = int(sym[0], 16)
    maps = "%x-%x rw-p 00000000 08:01 42 %s\n" % (a & ~0xFFF, (a & ~0xFFF) + 0x1000, exe)
    tr = parse_trace(make_trace(None, simple_samples([1, 2, 3], [a, a + 4, a]), maps=maps), "s")
    res = hot.bucket_counts(tr.addr, 4096)
    top = hot.top_table(tr, res, 1)
    assert top[0]["samples"] == 3 and top[0]["where"].endswith("(rng_state)")
    assert isinstance(np.uint64(a), np.uint64)
