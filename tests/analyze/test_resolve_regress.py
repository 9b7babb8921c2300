"""Regressions of the old Python maps/symbol code, on real ELF files, now
answered by libmemtrace's resolver: (1) a mapping replaced by a smaller one
at the same address keeps its name for the part the new one does not cover
(the old maps.py called it "unmapped"); (2) symbol sizes count: an ip past
the end of a function gets no name (the old nm/addr2line path named it
after the preceding symbol)."""
import os
import shutil
import subprocess

import numpy as np
import pytest
from tracegen import PID, write_trace

from memtrace_analyze import heatmap, hot, lib
from memtrace_analyze.lib import Trace
from memtrace_analyze.select import make_selection

SRC = r"""
int sink;
__attribute__((noinline)) int f_one(int x) { sink += x; return x * 3 + 1; }
__attribute__((noinline, aligned(4096))) int f_two(int x) { sink -= x; return f_one(x) + 7; }
"""
BASE = 0x7f0000000000


class Args:
    range = mapping = time_range = pid = tid = None


@pytest.fixture(scope="module")
def solib(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("so")
    (d / "mt.c").write_text(SRC)
    so = str(d / "libmttest.so")
    subprocess.run([cc, "-shared", "-fPIC", "-g", "-O1", "-o", so, str(d / "mt.c")], check=True, timeout=60)
    syms = {}
    for line in subprocess.run(["nm", "-S", so], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in ("f_one", "f_two"):
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
    assert set(syms) == {"f_one", "f_two"}
    return so, syms


def so_maps(so, start=BASE, end=None):
    size = -(-os.path.getsize(so) // 4096) * 4096
    return "%x-%x r-xp 00000000 08:01 77 %s\n" % (start, end or start + size, so)


def test_ip_past_a_functions_size_gets_no_symbol(solib, tmp_path):
    so, syms = solib
    one, size = syms["f_one"]
    assert one + size < syms["f_two"][0]           # the gap the alignment leaves
    inside, past = BASE + one + 2, BASE + one + size + 4
    data = 0x4c8000
    p = write_trace(str(tmp_path / "s.mtrace"), [1, 2, 3, 4, 5], [data, data + 8, data + 16, data + 0x1000, data + 0x1008],
                    ip=[inside, inside, inside, past, past],
                    maps=so_maps(so) + "004c8000-004f0000 rw-p 00000000 00:00 0 [heap]\n")
    r = lib.Resolver(p)
    kind, loc = r.resolve(inside, PID)
    assert kind == lib.SYMBOL and loc["symbol"] == "f_one" and loc["symbol_size"] == size
    assert loc["symbol_off"] == 2
    kind, loc = r.resolve(past, PID)
    assert kind == lib.MAPPING and loc["symbol"] is None
    assert loc["mapping"] == "libmttest.so" and loc["mapping_off"] == one + size + 4
    assert "f_one" not in r.describe(past, PID)
    r.close()
    # the hot table's "accessed by": f_one for the first bucket, not for the second
    rep = lib.report(p, bucket=4096, top=5)
    rows = {h["addr"]: h for h in rep["hot_data"]}
    assert [(f["name"], f["count"]) for f in rows[data]["functions"]] == [("f_one", 3)]
    assert all("f_one" not in (f["name"] or "") for f in rows[data + 0x1000]["functions"])
    assert hot.accessed_by(rows[data]) == "f_one 100%"


def test_report_no_source_leaves_file_and_line_unset(solib, tmp_path):
    """The hot buckets' instructions carry file:line from DWARF unless the
    report is asked for no source (memtracectl's text report: no DWARF
    read); their names and counts are the same either way."""
    so, syms = solib
    one, _ = syms["f_one"]
    ip = BASE + one + 2
    data = 0x4c8000
    p = write_trace(str(tmp_path / "n.mtrace"), [1, 2, 3], [data, data + 8, data + 16], ip=[ip] * 3,
                    maps=so_maps(so) + "004c8000-004f0000 rw-p 00000000 00:00 0 [heap]\n")
    full = {h["addr"]: h for h in lib.report(p, bucket=4096, top=5)["hot_data"]}[data]
    bare = {h["addr"]: h for h in lib.report(p, bucket=4096, top=5, flags=lib.REPORT_NO_SOURCE)["hot_data"]}[data]
    assert [(i["name"], i["count"]) for i in full["ips"]] == [("f_one+0x2", 3)]
    line = next(n for n, text in enumerate(SRC.split("\n"), 1) if "int f_one" in text)
    assert full["ips"][0]["file"].endswith("mt.c") and full["ips"][0]["line"] == line
    assert [(i["name"], i["count"], i["file"], i["line"]) for i in bare["ips"]] == [("f_one+0x2", 3, None, 0)]
    assert full["functions"] == bare["functions"] and full["where"] == bare["where"]


def test_mapping_replaced_by_smaller_one_keeps_its_name(solib, tmp_path):
    so, _ = solib
    big_end = BASE + 0x400000
    first = "%x-%x rw-p 00000000 08:01 77 %s\n" % (BASE, big_end, so)
    later = "%x-%x rw-p 00000000 00:00 0 [anon:small]\n" % (BASE, BASE + 0x1000)
    addrs = [BASE + 0x10, BASE + 0x200000, BASE + 0x200008, BASE + 0x300000]
    p = write_trace(str(tmp_path / "m.mtrace"), [10, 20, 30, 40], addrs, maps=first, extra_maps=[(15, later)])
    tr = Trace(p)
    v = heatmap.View(tr, make_selection(tr, Args()))
    layout = [(s, e, n) for s, e, n, _ in v.layout]
    assert (BASE, BASE + 0x1000, "[anon:small]") in layout
    assert (BASE + 0x1000, big_end, "libmttest.so") in layout
    d = heatmap.bin_view(v, 4096, 10)
    names = [g[2] for lo, hi in d.axis.ranges for g in heatmap._groups(v.layout, lo, hi)]
    assert "libmttest.so" in names and "unmapped" not in names
    rep = lib.report(p, bucket=4096, top=5)
    where = {h["addr"]: h["where"] for h in rep["hot_data"]}
    assert where[BASE + 0x200000] == "libmttest.so+0x200000"
    assert where[BASE + 0x300000] == "libmttest.so+0x300000"
    assert np.all([not w.startswith("?") for w in where.values()])
