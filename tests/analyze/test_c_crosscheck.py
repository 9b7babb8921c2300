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
