"""A figure and `memtracectl report --json` cannot disagree: for a recorded
pageramp (page faults), a valgrind dbquery and a synthetic trace, the numbers
memtrace-analyze plots and lists (WSS series, peaks, hot table with names and
"accessed by", hot working-set curve) equal what `memtracectl report` prints
with the same --window/--interval/--bucket/--top."""
import argparse
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import TOP
from tracegen import write_trace

from memtrace_analyze import hot, wss
from memtrace_analyze.lib import Trace
from memtrace_analyze.select import make_selection

CTL = os.path.join(TOP, "build", "memtracectl")
WL = os.path.join(TOP, "build", "workloads")
pytestmark = pytest.mark.skipif(not os.access(CTL, os.X_OK), reason="build/memtracectl not built")


def record(path, *argv):
    r = subprocess.run([CTL, "record"] + list(argv[:-1]) + ["-o", path, "--"] + argv[-1],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip("recording failed here: %s" % r.stderr.strip().splitlines()[-1:])
    return path


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("xc")
    out = {}
    out["pageramp"] = (record(str(d / "pr.mtrace"), "-e", "page-faults", "-c", "1",
                              [os.path.join(WL, "pageramp")]), ["--window", "2ms", "--interval", "1ms"])
    if shutil.which("valgrind"):
        out["dbquery"] = (record(str(d / "db.mtrace"), "--backend", "valgrind", "-c", "100",
                                 [os.path.join(WL, "dbquery"), "5000"]),
                          ["--window", "200k", "--interval", "100k", "--bucket", "64K"])
    rng = np.random.default_rng(5)
    t, a, ip = [], [], []
    for phase, (lo, span, n) in enumerate([(0x7f0000000000, 0x100000, 4000), (0x7f0000400000, 0x400000, 6000),
                                           (0x4c8000, 0x28000, 3000), (0x7f0000000000, 0x800000, 5000)]):
        a.append(lo + rng.integers(0, span, n))
        t.append(phase * 200000 + np.sort(rng.integers(0, 200000, n)))
        ip.append(np.full(n, 0x401000 + 0x1000 * phase))
    out["synthetic"] = (write_trace(str(d / "syn.mtrace"), np.concatenate(t), np.concatenate(a),
                                    ip=np.concatenate(ip)), ["--window", "20000", "--interval", "10000"])
    return out


def ctl_report(path, opts, tmp):
    csv = tmp / "series.csv"
    r = subprocess.run([CTL, "report", path, "--json", "--top", "7", "--series", str(csv)] + opts,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), np.loadtxt(str(csv), delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)


def analyze_args(opts):
    a = argparse.Namespace(window=None, interval=None, bucket=None, top=7, range=None, mapping=None,
                           time_range=None, pid=None, tid=None)
    for k, v in zip(opts[::2], opts[1::2]):
        setattr(a, k.lstrip("-"), v)
    return a


@pytest.mark.parametrize("name", ["pageramp", "dbquery", "synthetic"])
def test_plots_equal_memtracectl_report_json(name, traces, tmp_path):
    if name not in traces:
        pytest.skip("valgrind not installed")
    path, opts = traces[name]
    j, series = ctl_report(path, opts, tmp_path)
    tr = Trace(path)
    a = analyze_args(opts)
    res = wss.compute(tr, a, make_selection(tr, a), hot.FLAGS, 7)
    rep = res.reps[0]
    assert rep["samples"] == j["samples"] > 0
    assert (rep["bucket"], rep["window"], rep["interval"]) == (j["bucket_size"], j["window"], j["interval"])
    # the WSS series the wss plot draws
    # --series lists the intervals with samples in the window (sparse); the plot's
    # time axis holds those and a 0 at each edge of a run of empty intervals
    rows = {int(r[0]): (int(r[1]), int(r[2])) for r in series}
    grid = res.times.tolist()
    assert set(rows) <= set(grid)
    assert all(int(t) % rep["interval"] == 0 for t in grid)
    assert res.data[rep["window"]].tolist() == [rows.get(t, (0, 0))[0] for t in grid]
    if res.code:
        assert res.code[rep["window"]].tolist() == [rows.get(t, (0, 0))[1] for t in grid]
    assert (rep["data"]["peak"], rep["data"]["total"]) == (j["wss_data"]["peak"], j["wss_data"]["total"])
    assert round(rep["data"]["avg"], 3) == j["wss_data"]["avg"]
    # the numbered peaks and their code locations
    # (index: the JSON's into the sparse rows, the plot's into its time axis)
    assert [(p["time"], p["value"]) for p in res.peaks] == [(p["time"], p["wss"]) for p in j["peaks"]]
    assert all(int(res.times[p["index"]]) == p["time"] for p in res.peaks)
    assert [[(x["addr"], x["count"], x["name"]) for x in p["locations"]] for p in res.peaks] == \
        [[(x["ip"], x["count"], x["location"]) for x in p["locations"]] for p in j["peaks"]]
    # the hot table: buckets, names, accessed by (functions), instructions
    rows = hot.top_table(rep)
    assert [(r["addr"], r["samples"], r["where"]) for r in rows] == \
        [(h["address"], h["count"], h["location"]) for h in j["hot_data"]]
    for h, jh in zip(rep["hot_data"], j["hot_data"]):
        assert h["with_ip"] == jh["ip_samples"]
        assert [(f["name"], f["count"]) for f in h["functions"]] == [(f["name"], f["count"]) for f in jh["functions"]]
        assert [(i["addr"], i["count"], i["name"]) for i in h["ips"]][:len(jh["ips"])] == \
            [(i["ip"], i["count"], i["location"]) for i in jh["ips"]]
    # the hot working-set curve the hot plot draws (every count) at the
    # report's points k = 1, 2, 4, ...
    ks = [k for k, _, _ in rep["curve"]]
    for pt in j["hot_wss"]:
        i = int(np.searchsorted(ks, pt["min_count"]))
        assert (rep["curve"][i][1], rep["curve"][i][2]) == (pt["buckets"], pt["accesses"])
