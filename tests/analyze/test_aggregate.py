"""memtrace-analyze on a `record --aggregate` trace (bpf backend, AGG rows
instead of samples): the WSS series the library computes from the rows
equals the distinct buckets per interval that `dump --agg` lists, the
region's pages count one fault per cycle, info and report (wss and hot) write
their figures, the heatmap (per-sample) is refused.  Skipped where BPF cannot
run (no BTF, not root)."""
import collections
import os
import subprocess

import pytest

from conftest import CLI, PYTHON, TOP, assert_png

from memtrace_analyze import lib

MT = os.path.join(TOP, "build", "memtracectl")
PAGERAMP = os.path.join(TOP, "build", "workloads", "pageramp")
PAGES, CYCLES = 256, 3


def bpf_available():
    try:
        out = subprocess.run([MT, "status"], capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return "bpf: page-faults: available" in out.stdout + out.stderr


@pytest.fixture(scope="module")
def agg(tmp_path_factory):
    if not bpf_available():
        pytest.skip("the bpf backend cannot run here")
    d = tmp_path_factory.mktemp("agg")
    path = str(d / "a.mtrace")
    rec = subprocess.run([MT, "record", "--aggregate", "-e", "page-faults", "-c", "1", "-o", path, "--",
                          PAGERAMP, "-n", str(PAGES), "-c", str(CYCLES), "-g", "150"],
                         capture_output=True, text=True, timeout=120)
    assert rec.returncode == 0, rec.stderr
    base = int(rec.stdout.split("base=")[1].split()[0], 16)
    return d, path, base


def test_series_and_hot_from_agg_rows(agg):
    d, path, base = agg
    out = subprocess.run([MT, "dump", "--agg", path], capture_output=True, text=True, check=True).stdout
    tr = lib.Trace(path)
    T = int(tr.meta("aggregate"))
    rows = collections.defaultdict(set)
    region = collections.Counter()
    for line in out.splitlines():
        if line[:1].isdigit():
            t, pid, addr, count = line.split(",")
            rows[(int(t) - tr.start_time) // T].add(int(addr, 16))
            a = int(addr, 16)
            if base <= a < base + PAGES * 4096:
                region[a] += int(count)
    rep = lib.report(path, window=T, interval=T, top=PAGES)
    # the series is sparse: row time k * T for the intervals with samples in the window
    got = {int(t) // T: int(v) for t, v in zip(rep["data"]["time"], rep["data"]["wss"]) if v}
    assert got == {k: len(v) for k, v in rows.items()}
    assert rep["samples"] == tr.info.samples
    assert sorted(region) == [base + p * 4096 for p in range(0, PAGES, 2)]
    assert sum(region.values()) - PAGES // 2 * CYCLES in (0, 1, 2)    # a retried fault counts twice
    hot = {h["addr"]: h["count"] for h in rep["hot_data"]}
    assert all(hot[a] == c for a, c in region.items())


def test_cli_plots_and_refusals(agg):
    d, path, _ = agg
    r = subprocess.run([PYTHON, CLI, "info", path], capture_output=True, text=True)
    assert r.returncode == 0 and "aggregated counts per bucket and 100 ms interval" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([PYTHON, CLI, "report", path, "-o", str(d / "rep")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(f for f in os.listdir(d / "rep") if f.endswith(".png")) == ["hot.png", "wss.png"]
    assert_png(str(d / "rep" / "wss.png"))
    assert_png(str(d / "rep" / "hot.png"))
    r = subprocess.run([PYTHON, CLI, "heatmap", path, "-o", str(d / "hm.png")], capture_output=True, text=True)
    assert r.returncode != 0 and "aggregated trace" in r.stderr and not os.path.exists(d / "hm.png")
