"""Cross-check with the C side (build/memtracectl), when it is built: a trace
written by the test writer must read back in C with the same sample count,
and `memtracectl report --series` must give the same WSS series and the
same peaks as this package."""
import json
import os
import subprocess

import numpy as np
import pytest
from conftest import TOP
from mtrace_writer import make_trace, simple_samples

from memtrace_analyze import wss
from memtrace_analyze.trace import read_trace

CTL = os.path.join(TOP, "build", "memtracectl")
pytestmark = pytest.mark.skipif(not os.access(CTL, os.X_OK), reason="build/memtracectl not built")


def phased_trace(path):
    rng = np.random.default_rng(5)
    parts_t, parts_a, parts_ip = [], [], []
    t = 0
    for phase, (lo, span, n) in enumerate([(0x7f0000000000, 0x100000, 4000), (0x7f0000400000, 0x400000, 6000),
                                            (0x4c8000, 0x30000, 3000), (0x7f0000000000, 0x800000, 5000)]):
        parts_a.append(lo + rng.integers(0, span, n))
        parts_t.append(t + np.sort(rng.integers(0, 200000, n)))
        parts_ip.append(np.full(n, 0x401000 + 0x1000 * phase))
        t += 200000
    make_trace(path, simple_samples(np.concatenate(parts_t).tolist(), np.concatenate(parts_a).tolist(),
                                    ip=np.concatenate(parts_ip).tolist()), chunk_size=5000)


def test_series_and_peaks_match_c_engine(tmp_path):
    p = str(tmp_path / "x.mtrace")
    phased_trace(p)
    csv = tmp_path / "s.csv"
    r = subprocess.run([CTL, "report", p, "--window", "20000", "--interval", "10000", "--series", str(csv),
                        "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    c = np.loadtxt(str(csv), delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    tr = read_trace(p)
    res = wss.compute(tr, 4096, 10000, [20000])
    assert c.shape[0] == res.nrep
    assert (c[:, 0] == (res.times - res.start).astype(np.int64)).all()
    assert (c[:, 1] == res.data[20000]).all()
    assert (c[:, 2] == res.code[20000]).all()
    j = json.loads(r.stdout)
    assert int(j["samples"]) == tr.n == 18000
    assert j["wss_data"]["peak"] == int(res.data[20000].max())
    assert j["wss_data"]["total"] == res.total_data
    assert [pk["index"] for pk in j.get("peaks", [])] == [pk[0] for pk in res.peaks[("data", 20000)]]


def test_c_and_python_name_a_hot_data_bucket_by_the_object_in_it(tmp_path):
    """Both name a hot data bucket by file offset and by the object most of
    its samples fell into (dbquery's rng_state), not the symbol at the
    bucket's first byte (Python adds the object's share); an object with a
    minority of the samples is not named by the C report."""
    import re
    import shutil
    exe = os.path.join(TOP, "build", "workloads", "dbquery")
    if not (os.path.exists(exe) and shutil.which("nm") and shutil.which("readelf")):
        pytest.skip("build/workloads/dbquery, nm or readelf missing")
    nm = subprocess.run(["nm", "-n", exe], capture_output=True, text=True).stdout
    a = int([ln.split() for ln in nm.splitlines() if ln.endswith(" rng_state")][0][0], 16)
    page = a & ~0xFFF
    # the RW PT_LOAD holding rng_state: file offset of its page
    for ln in subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True).stdout.splitlines():
        f = ln.split()
        if f and f[0] == "LOAD" and int(f[2], 16) <= a < int(f[2], 16) + int(f[5], 16):
            off = int(f[1], 16) - (int(f[2], 16) - page)
    maps = "%x-%x rw-p %08x 08:01 42 %s\n" % (page, page + 0x1000, off, exe)
    # 3 samples in rng_state, 1 elsewhere in the page (no symbol or another one)
    other = page if page != a & ~0x7 else page + 0x800
    p = str(tmp_path / "obj.mtrace")
    make_trace(p, simple_samples([1, 2, 3, 4], [a, a + 4, a, other], ip=[0x401000] * 4), maps=maps)
    r = json.loads(subprocess.run([CTL, "report", p, "--json", "-n", "1"], capture_output=True,
                                  text=True, check=True).stdout)
    assert r["hot_data"][0]["count"] == 4
    assert r["hot_data"][0]["location"] == "dbquery+%#x rng_state" % off, r["hot_data"][0]
    from memtrace_analyze import hot
    tr = read_trace(p)
    assert hot.top_table(tr, hot.bucket_counts(tr.addr, 4096), 1)[0]["where"] == "dbquery+%#x (rng_state 75%%)" % off
    # one sample in rng_state, three outside it: no object named
    q = str(tmp_path / "minor.mtrace")
    make_trace(q, simple_samples([1, 2, 3, 4], [a, other, other, other], ip=[0x401000] * 4), maps=maps)
    r = json.loads(subprocess.run([CTL, "report", q, "--json", "-n", "1"], capture_output=True,
                                  text=True, check=True).stdout)
    loc = r["hot_data"][0]["location"]
    assert re.match(r"dbquery\+%#x( |$)" % off, loc) and not loc.endswith(" rng_state"), loc
