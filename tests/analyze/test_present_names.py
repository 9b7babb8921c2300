"""Names and addresses as the processes see them, on a trace written here
with exact contents: two processes run one binary, /usr/bin/redis-check-rdb
(Debian's /usr/bin/redis-server is a symlink to it; /proc/PID/maps shows
the target).  The target A runs as "redis-server" (its comm in HEADER, END
and THREADS records), the other B as "redis-check-rdb".  Each samples its
own heap at the same addresses.

  - A's executable is "redis-server (redis-check-rdb)", B's (comm = file)
    stays "redis-check-rdb", libc stays "libc.so.6";
  - B's hot buckets print B's own addresses with B's pid, A's A's, in
    memtracectl report text and JSON, memtrace-analyze report's summary.json
    and regions; the JSON key still tells them apart.
"""
import json
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import CLI, PYTHON, TOP
from memtrace_analyze import heatmap, lib
from memtrace_analyze.select import make_selection

CTL = os.path.join(TOP, "build", "memtracectl")
A, B = 4100, 4200
EXE = 0x555555554000
HEAP = 0x555555800000
LIBC = 0x7ffff7d80000
MAPS = ("%x-%x r--p 00000000 08:01 99 /nonexistent/usr/bin/redis-check-rdb\n"
        "%x-%x r-xp 00091000 08:01 99 /nonexistent/usr/bin/redis-check-rdb\n"
        "%x-%x rw-p 00000000 00:00 0 [heap]\n"
        "%x-%x r-xp 00028000 08:01 12 /nonexistent/lib/libc.so.6\n") % (
    EXE, EXE + 0x91000, EXE + 0x91000, EXE + 0x200000, HEAP, HEAP + 0x100000, LIBC, LIBC + 0x100000)

pytestmark = pytest.mark.skipif(not os.access(CTL, os.X_OK), reason="build/memtracectl not built")


class Args:
    range = mapping = time_range = pid = tid = span = labels = None


def _trace(path):
    """A: 3 samples per page of heap pages 0..3, B: 5 per page of pages 4..7
    (same addresses in both processes' layout, different pages used), code
    ips in the executable's text; returns (path, {(pid, page): count})."""
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "synthetic", "event": "loads",
         "sample_period": 1, "clock": "monotonic", "time_unit": "ns", "start_time": 0, "bucket_default": 4096,
         "target_pid": A, "target_comm": "redis-server", "command": "redis-server"}
    w = lib.Writer(path, h)
    for pid in (A, B):
        w.maps(0, pid, MAPS)
    w.thread(0, A, A, "redis-server")
    w.thread(0, B, B, "redis-check-rdb")
    truth, rows = {}, []
    for pid, pages, k in ((A, range(0, 4), 3), (B, range(4, 8), 5)):
        for p in pages:
            truth[(pid, HEAP + p * 4096)] = k
            rows += [(pid, HEAP + p * 4096 + 8 * j) for j in range(k)]
    n = len(rows)
    w.samples(time=np.arange(1, n + 1, dtype=np.uint64) * 1000,
              addr=np.array([r[1] for r in rows], np.uint64),
              pid=np.array([r[0] for r in rows], np.uint32), tid=np.array([r[0] for r in rows], np.uint32),
              cpu=np.zeros(n, np.uint32),
              ip=np.full(n, EXE + 0x91000 + 0x40, np.uint64))
    w.close({"end_reason": "target-exited", "end_time": n * 1000 + 1, "samples": n, "lost": 0, "throttled": 0,
             "dropped": 0, "target_comm": "redis-server"})
    return path, truth


def test_executable_named_as_the_process_runs(tmp_path):
    p, _ = _trace(str(tmp_path / "r.mtrace"))
    r = lib.Resolver(p)
    assert r.describe(EXE + 0x91000 + 0x40, A) == "redis-server (redis-check-rdb)+0x91040"
    assert r.describe(EXE + 0x91000 + 0x40, B) == "redis-check-rdb+0x91040"
    assert r.describe(LIBC + 0x10, A) == "libc.so.6+0x28010"
    doc = json.loads(subprocess.run([CTL, "report", p, "--json"], capture_output=True, text=True, check=True).stdout)
    names = {h["pid"]: h["location"] for h in doc["hot_code"]}
    assert names[A] == "redis-server (redis-check-rdb)+0x91000"
    assert names[B] == "pid %d redis-check-rdb+0x91000" % B
    # --mapping finds A's executable by the name it runs under, and by the file's
    tr = lib.Trace(p)
    for name in ("redis-server", "redis-check-rdb"):
        a = Args()
        a.mapping, a.pid = name, A
        assert tr.read(("addr",), make_selection(tr, a))["addr"].size == 0     # found, no data there
    a.mapping = "redis-serverX"
    with pytest.raises(lib.MemtraceError, match="no mapping of that name"):
        tr.read(("addr",), make_selection(tr, a))
    # the regions table names A's mappings so too, B's by pid and file
    out = subprocess.run([PYTHON, CLI, "regions", p, "-o", str(tmp_path / "g.png")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "redis-server (redis-check-rdb)" in out.stderr     # (cut to the column)
    assert "pid %d redis-check-rdb r-xp" % B in out.stderr


def test_addresses_and_pids_of_both_processes(tmp_path):
    p, truth = _trace(str(tmp_path / "r.mtrace"))
    doc = json.loads(subprocess.run([CTL, "report", p, "--json", "-n", "50"], capture_output=True, text=True,
                                    check=True).stdout)
    got = {(h["pid"], h["address"]): h["count"] for h in doc["hot_data"]}
    assert got == truth
    keys = {h["key"] for h in doc["hot_data"]}
    assert len(keys) == len(truth)          # B's keys stay apart from A's
    text = subprocess.run([CTL, "report", p, "-n", "50"], capture_output=True, text=True, check=True).stdout
    for (pid, addr), k in truth.items():
        owner = "pid %d " % pid if pid == B else ""
        assert re.search(r"\b%d  0x%016x  %s\[heap\]\+0x%x\b" % (k, addr, owner, addr - HEAP), text), (pid, addr)
    # memtrace-analyze report: the hot rows and the regions in each process
    out = subprocess.run([PYTHON, CLI, "report", p, "-o", str(tmp_path / "rep")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    s = json.load(open(tmp_path / "rep" / "summary.json"))
    assert {(h["pid"], h["address"]): h["samples"] for h in s["hot"]} == truth
    heaps = {g["pid"]: (g["start_address"], g["end_address"]) for g in s["regions"] if "[heap]" in g["key"]}
    assert heaps == {A: (HEAP, HEAP + 0x100000), B: (HEAP, HEAP + 0x100000)}
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "pid %d %#x" % (B, HEAP + 4 * 4096) in page
    # the heatmap's range starts
    tr = lib.Trace(p)
    v = heatmap.View(tr, make_selection(tr, Args()))
    d = heatmap.bin_view(v, 4096, 10)
    starts = [v.addr_text(lo) for lo, _ in d.axis.ranges]
    assert "pid %d %#x" % (B, HEAP + 4 * 4096) in starts or "pid %d %#x" % (B, HEAP) in starts, starts
    assert "%#x" % HEAP in starts, starts
    # drawn as heatmap.plot draws it: the longer range starts stay clear of the colour bar
    from memtrace_analyze.plotting import subplots
    fig, ax = subplots(figsize=(12, 7))
    heatmap.draw(ax, d, v, title="t")
    fig.canvas.draw()
    rnd = fig.canvas.get_renderer()
    sec = [a for a in fig.axes if a is not ax and a.get_shared_x_axes().joined(a, ax)][0]
    cbar = [a for a in fig.axes if a is not ax and a is not sec][0].get_window_extent(rnd)
    labels = [t for t in sec.get_yticklabels() if t.get_text()] + [sec.yaxis.label]
    assert any(t.get_text().startswith("pid %d " % B) for t in labels)
    for t in labels:
        assert t.get_window_extent(rnd).x1 < cbar.x0, (t.get_text(), t.get_window_extent(rnd), cbar)
