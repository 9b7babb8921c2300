"""Allocation sites through ctypes (memtrace_analyze.sites): a synthetic
trace with an ALLOCS chunk written by memtrace_writer_allocs; per-site
numbers exact, the same as `memtracectl report --by-site --json`, and the
heatmap's --sites bands."""
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import CLI, PYTHON, TOP, assert_png
from memtrace_analyze import lib
from memtrace_analyze.sites import sites, write_allocs
from tracegen import MAPS, PID

CTL = os.path.join(TOP, "build", "memtracectl")
COL = 0x7F0000000000        # [anon:column]
A_CALL, B_CALL = 0x401000, 0x402000


def make(path):
    w = lib.Writer(path, {"time_unit": "insn", "start_time": 0, "bucket_default": 4096, "target_pid": PID,
                          "source": "synthetic", "alloc_sample_bytes": 1, "alloc_large_bytes": 65536})
    w.maps(0, PID, MAPS)
    # A lives [100, 200) at COL, B reuses the address [300, end), 32 KiB
    write_allocs(w, [
        {"time": 100, "kind": "alloc", "addr": COL, "size": 0x10000, "caller": A_CALL, "pid": PID},
        {"time": 200, "kind": "free", "addr": COL, "pid": PID},
        {"time": 300, "kind": "alloc", "addr": COL, "size": 0x8000, "caller": B_CALL, "pid": PID,
         "weight": 3.0},
    ])
    t = np.array([150, 160, 250, 350, 350, 360], np.uint64)
    a = np.array([COL + 0x100, COL + 0x9000, COL + 0x100, COL + 0x100, COL + 0x9000, COL + 0x1000], np.uint64)
    n = t.size
    w.samples(time=t, addr=a, pid=np.full(n, PID, np.uint32), tid=np.full(n, PID, np.uint32),
              cpu=np.zeros(n, np.uint32))
    w.close({"end_reason": "target-exited", "end_time": 400, "samples": n})
    return path


def test_sites_exact(tmp_path):
    p = make(str(tmp_path / "s.mtrace"))
    s = sites(p)
    assert (s["samples"], s["attributed"], s["events"]) == (6, 4, 3)
    b, a = s["sites"]          # 2 samples each: B first, its bytes (32 KiB x 3) are more
    assert a["name"] == "dbquery+0xfff" and b["name"] == "dbquery+0x1fff", (a["name"], b["name"])
    assert (a["samples"], a["buckets"], a["bytes"], a["freed"], a["mean_lifetime"]) == (2, 2, 0x10000, 1, 100)
    assert (b["samples"], b["buckets"], b["bytes"], b["live"], b["est_blocks"]) == (2, 2, 0x18000, 1, 3.0)
    assert a["hot_share"] == pytest.approx(2 / 6)
    bl = s["blocks"]
    assert list(bl["key_start"]) == [COL, COL] and list(bl["key_end"]) == [COL + 0x10000, COL + 0x8000]
    assert list(bl["t1"]) == [200, (1 << 64) - 1] and list(bl["site"]) == [1, 0]
    assert list(bl["pid"]) == [PID, PID]


@pytest.mark.skipif(not os.access(CTL, os.X_OK), reason="build/memtracectl not built")
def test_sites_equal_memtracectl(tmp_path):
    p = make(str(tmp_path / "s.mtrace"))
    r = subprocess.run([CTL, "report", p, "--by-site", "--json"], capture_output=True, text=True, check=True)
    j = json.loads(r.stdout)
    s = sites(p)
    assert [x["name"] for x in j["sites"]] == [x["name"] for x in s["sites"]]
    for x, y in zip(j["sites"], s["sites"]):
        for k in ("samples", "buckets", "blocks", "live", "freed"):
            assert x[k] == y[k], k
    assert j["attributed"] == s["attributed"]


def test_heatmap_sites(tmp_path):
    p = make(str(tmp_path / "s.mtrace"))
    out = str(tmp_path / "h.png")
    subprocess.run([PYTHON, CLI, "heatmap", p, "--sites", "-o", out], check=True, capture_output=True)
    assert_png(out)


def test_no_allocs_is_one_line(tmp_path):
    from tracegen import write_trace
    p = write_trace(str(tmp_path / "n.mtrace"), [1, 2], [COL, COL])
    with pytest.raises(lib.MemtraceError, match="no allocation records"):
        sites(p)
    r = subprocess.run([PYTHON, CLI, "heatmap", p, "--sites", "-o", str(tmp_path / "h.png")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "no allocation records" in r.stderr
