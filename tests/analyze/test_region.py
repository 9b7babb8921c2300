"""--region NAME (memtracectl report, memtrace-analyze report/wss/heatmap/hot):
on a crafted trace of two processes that map one shared segment at
different addresses, each with private memory at the same addresses, and
labels from the trace's LABELS chunk and from a --labels file, every
number is checked against an independent computation here from the
samples the test wrote: which (pid, address) lie in the region, a shared
page counted once by its offset in the segment, the distinct pages per
window (t_k - tau, t_k]; and a name no label has is a one-line error that
lists the labels, with a non-zero exit."""
import csv
import io
import json
import os
import subprocess

import numpy as np
import pytest

from memtrace_analyze import lib
from memtrace_analyze.lib import Selection, Trace, Writer

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
CTL = os.path.join(TOP, "build", "memtracectl")
ANALYZE = os.path.join(TOP, "user", "analyze", "memtrace-analyze")
PY = "/usr/bin/python3"

A, B = 100, 200                          # A is the target
SEG = {A: 0x7f1000000000, B: 0x7f2000000000}   # one shared object (inode 777), two places
SEG_SIZE = 1 << 24
PRIV = 0x7f0000000000                    # private, the same addresses in both
BB_OFF, BB_SIZE = 0x100000, 0x200000     # "Buffer Blocks": from the LABELS chunk
HOT_START, HOT_SIZE = PRIV + 0x10000, 0x40000   # "Hot private": START label, from a file (target only)
PAGE = 4096
TAU = 100 * 10 ** 6                      # 100 ms windows and intervals


def _maps(pid):
    return ("00400000-00410000 r-xp 00000000 08:01 42 /nonexistent/db\n"
            "%x-%x rw-p 00000000 00:00 0 [anon:priv]\n"
            "%x-%x rw-s 00000000 00:01 777 /dev/zero (deleted)\n"
            % (PRIV, PRIV + 0x100000, SEG[pid], SEG[pid] + SEG_SIZE))


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    d = tmp_path_factory.mktemp("region")
    path = str(d / "two.mtrace")
    rng = np.random.default_rng(7)
    n = 30000
    # bursts: the first half of the run dense, then sparse, so WSS varies per window
    t = np.sort(np.concatenate([rng.integers(0, 5 * 10 ** 8, n * 3 // 4),
                                rng.integers(5 * 10 ** 8, 2 * 10 ** 9, n // 4)])).astype(np.uint64)
    pid = rng.choice([A, B], n).astype(np.uint32)
    kind = rng.integers(0, 4, n)
    seg_off = rng.integers(0, SEG_SIZE, n).astype(np.uint64)            # anywhere in the segment
    bb_off = (BB_OFF + rng.integers(0, BB_SIZE * 3 // 2, n)).astype(np.uint64)   # mostly inside BB
    priv = (PRIV + rng.integers(0, 0x100000, n)).astype(np.uint64)
    base = np.array([SEG[int(p)] for p in pid], dtype=np.uint64)
    addr = np.where(kind == 0, base + seg_off, np.where(kind == 1, base + bb_off, priv)).astype(np.uint64)
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "synthetic", "event": "loads",
         "sample_period": 1, "clock": "monotonic", "time_unit": "ns", "start_time": 0, "bucket_default": PAGE,
         "target_pid": A, "target_comm": "a", "command": "test_region"}
    w = Writer(path, h)
    w.maps(0, A, _maps(A))
    w.maps(0, B, _maps(B))
    w.labels("/dev/zero (deleted)+%#x %d Buffer Blocks\n/dev/zero (deleted)+0x0 4096 Control\n"
             % (BB_OFF, BB_SIZE))
    w.thread(0, A, A, "a")
    w.thread(0, B, B, "b")
    w.samples(time=t, addr=addr, pid=pid, tid=pid, cpu=np.zeros(n, np.uint32))
    w.close({"end_reason": "target-exited", "end_time": int(t.max()), "samples": n, "lost": 0,
             "throttled": 0, "dropped": 0})
    labels = str(d / "extra.labels")
    with open(labels, "w") as f:
        f.write("%#x %d Hot private\n" % (HOT_START, HOT_SIZE))
    return {"path": path, "labels": labels, "t": t, "pid": pid, "addr": addr, "dir": d}


def truth(c, region):
    """(mask of the samples in region, their identity: one value per page,
    a shared page the same in both processes)."""
    t, pid, addr = c["t"], c["pid"], c["addr"]
    if region == "Buffer Blocks":
        base = np.array([SEG[int(p)] for p in pid], dtype=np.uint64)
        off = addr - base
        inside = (addr >= base) & (off >= BB_OFF) & (off < BB_OFF + BB_SIZE)
        ident = off // PAGE                    # shared: the page of the object, whoever maps it
    else:                                      # START label: the target's addresses only
        inside = (pid == A) & (addr >= HOT_START) & (addr < HOT_START + HOT_SIZE)
        ident = addr // PAGE
    return inside, ident


def windows(c, region, tau=TAU, interval=TAU):
    """{k T: distinct pages in (k T - tau, k T]} for k = 1 .. the last sample's."""
    inside, ident = truth(c, region)
    t, ident = c["t"][inside].astype(np.int64), ident[inside]
    last = int(c["t"].max())
    out = {}
    for k in range(1, -(-last // interval) + 1):
        hi = k * interval
        sel = (t > hi - tau) & (t <= hi)
        out[hi] = len(np.unique(ident[sel]))
    return out


def ctl(*args):
    return subprocess.run([CTL, "report"] + list(args), capture_output=True, text=True, timeout=120)


def read_series(path):
    with open(path) as f:
        head = f.readline()
        rows = list(csv.DictReader(f))
    return head, rows


@pytest.mark.parametrize("region", ["Buffer Blocks", "Hot private"])
def test_ctl_series_and_json_exact(crafted, region, tmp_path):
    want = windows(crafted, region)
    inside, ident = truth(crafted, region)
    series = str(tmp_path / "s.csv")
    r = ctl(crafted["path"], "--labels", crafted["labels"], "--region", region, "--window", "100ms",
            "--series", series)
    assert r.returncode == 0, r.stderr
    head, rows = read_series(series)
    assert head.startswith('# WSS of region "%s" (' % region), head
    got = {int(x["time"]): int(x["wss_data"]) for x in rows}
    # sparse: every row is a window with samples; every window with samples has a row
    assert got == {k: v for k, v in want.items() if v}, (got, want)
    total = len(np.unique(ident[inside]))
    size = BB_SIZE if region == "Buffer Blocks" else HOT_SIZE
    assert 'WSS of region "%s" (%d pages of %d' % (region, total, size // PAGE) in r.stdout, r.stdout
    j = json.loads(ctl(crafted["path"], "--labels", crafted["labels"], "--region", region, "--json").stdout)
    assert j["region"]["name"] == region
    assert j["region"]["bytes"] == size
    assert j["region"]["buckets_touched"] == total == j["wss_data"]["total"]
    # the hot table holds region pages only, at the counts the samples give
    counts = {}
    for p in ident[inside].tolist():
        counts[p] = counts.get(p, 0) + 1
    top = sorted(counts.values(), reverse=True)[:len(j["hot_data"])]
    assert [h["count"] for h in j["hot_data"]] == top
    assert all(h["location"].startswith(region + "+") for h in j["hot_data"]), j["hot_data"]


def test_shared_page_counted_once(crafted):
    """The same offset of the segment touched by A and by B is one page."""
    inside, ident = truth(crafted, "Buffer Blocks")
    pid = crafted["pid"]
    both = np.intersect1d(ident[inside & (pid == A)], ident[inside & (pid == B)])
    assert both.size > 100      # the test means something: many pages touched by both
    rep = lib.report(crafted["path"], window=TAU, sel=Selection(region="Buffer Blocks"))
    assert rep["data"]["total"] == len(np.unique(ident[inside]))
    na, nb = (len(np.unique(ident[inside & (pid == p)])) for p in (A, B))
    assert rep["data"]["total"] == na + nb - both.size
    assert rep["region_bytes"] == BB_SIZE and rep["region"] == "Buffer Blocks"
    assert rep["region_line"].startswith('WSS of region "Buffer Blocks"')


def test_unknown_region(crafted):
    r = ctl(crafted["path"], "--region", "Nope")
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Nope" in lines[0] and '"Buffer Blocks"' in lines[0] and '"Control"' in lines[0], lines[0]
    assert r.stdout == ""
    # a file's labels are listed with the trace's
    r = ctl(crafted["path"], "--labels", crafted["labels"], "--region", "Nope")
    assert r.returncode != 0 and '"Hot private"' in r.stderr
    for verb in ("wss", "hot", "heatmap"):
        a = subprocess.run([PY, ANALYZE, verb, crafted["path"], "--region", "Nope", "-o",
                            str(crafted["dir"] / ("x-%s.png" % verb))],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, MPLBACKEND="Agg"))
        assert a.returncode != 0, (verb, a.stderr)
        errs = [x for x in a.stderr.strip().splitlines() if "error" in x]
        assert len(errs) == 1 and '"Buffer Blocks"' in errs[0], (verb, a.stderr)


def test_analyze_wss_csv_exact(crafted, tmp_path):
    want = windows(crafted, "Buffer Blocks")
    out, csvp = str(tmp_path / "wss.png"), str(tmp_path / "wss.csv")
    a = subprocess.run([PY, ANALYZE, "wss", crafted["path"], "--region", "Buffer Blocks", "--window", "100ms",
                        "-o", out, "--csv", csvp], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, MPLBACKEND="Agg"))
    assert a.returncode == 0, a.stderr
    assert a.stderr.startswith('WSS of region "Buffer Blocks" ('), a.stderr
    with open(csvp) as f:
        head = f.readline()
        rows = list(csv.DictReader(f))
    assert head.startswith('# WSS of region "Buffer Blocks"')
    got = {int(x["time"]): int(x["wss_data_tau%d" % TAU]) for x in rows}
    # the grid may hold rows of 0 beside the windows with samples
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}
    assert os.path.getsize(out) > 0


def test_analyze_read_region(crafted):
    """The heatmap's samples (memtrace_trace_read with filter.region): exactly
    the (pid, address) pairs in the region, in both processes, also for a
    label from a --labels file."""
    for region in ("Buffer Blocks", "Hot private"):
        inside, _ = truth(crafted, region)
        tr = Trace(crafted["path"])
        got = tr.read(("time", "addr", "pid"), Selection(region=region, labels=crafted["labels"]))
        tr.close()
        order = np.lexsort((crafted["addr"][inside], crafted["t"][inside]))
        g = np.lexsort((got["addr"], got["time"]))
        assert np.array_equal(got["addr"][g], crafted["addr"][inside][order])
        assert np.array_equal(got["pid"][g], crafted["pid"][inside][order])
    assert set(got["pid"].tolist()) == {A}          # a START label is the target's
    inside, _ = truth(crafted, "Buffer Blocks")
    assert set(crafted["pid"][inside].tolist()) == {A, B}


def test_analyze_hot_and_heatmap_run(crafted, tmp_path):
    for verb in ("hot", "heatmap", "report"):
        out = str(tmp_path / (verb if verb == "report" else verb + ".png"))
        a = subprocess.run([PY, ANALYZE, verb, crafted["path"], "--region", "Buffer Blocks", "-o", out],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, MPLBACKEND="Agg"))
        assert a.returncode == 0, (verb, a.stderr)
        assert os.path.exists(out)
        if verb == "hot":
            assert a.stderr.startswith('WSS of region "Buffer Blocks"'), a.stderr
        if verb == "report":
            with open(os.path.join(out, "index.html")) as f:
                assert 'WSS of region &quot;Buffer Blocks&quot;' in f.read()


def test_hint_faults_shared_region_blind(tmp_path):
    """A hint-fault trace whose windows each hold a whole sweep (starts and
    advances of both processes): a region of private memory follows the
    passes (seen), one in the shared anonymous segment is blind in every
    window, said in text, series and JSON: NUMA scanning never marks shared
    anonymous memory, so its zero there is not a count."""
    path = str(tmp_path / "hint.mtrace")
    n = 400
    t = np.sort(np.random.default_rng(3).integers(0, 4 * 10 ** 9, n)).astype(np.uint64)
    addr = np.where(np.arange(n) % 2 == 0, PRIV + (np.arange(n, dtype=np.uint64) % 64) * PAGE,
                    SEG[A] + BB_OFF + (np.arange(n, dtype=np.uint64) % 64) * PAGE).astype(np.uint64)
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "hint-faults",
         "event": "hint-faults", "sample_period": 1, "clock": "monotonic", "time_unit": "ns",
         "start_time": 0, "bucket_default": PAGE, "target_pid": A, "target_comm": "a",
         "command": "test_region", "passes": "1", "pass_lag": "0"}
    w = Writer(path, h)
    w.maps(0, A, _maps(A))
    w.labels("/dev/zero (deleted)+%#x %d Buffer Blocks\n%#x %d Hot private\n"
             % (BB_OFF, BB_SIZE, PRIV, 64 * PAGE))
    w.thread(0, A, A, "a")
    w.samples(time=t, addr=addr, pid=np.full(n, A, np.uint32), tid=np.full(n, A, np.uint32),
              cpu=np.zeros(n, np.uint32))
    # one sweep of 10 ms in each 1 s window: [k + 0.5 s, k + 0.51 s]
    rows = []
    for k in range(4):
        rows += [(k * 10 ** 9 + 5 * 10 ** 8, A, lib.PASS_NUMA_SWEEP_START),
                 (k * 10 ** 9 + 51 * 10 ** 7, A, lib.PASS_NUMA_SCAN)]
    w.passes(rows)
    w.close({"end_reason": "target-exited", "end_time": 4 * 10 ** 9, "samples": n, "lost": 0,
             "throttled": 0, "dropped": 0})

    def series(region):
        out = str(tmp_path / "s.csv")
        r = ctl(path, "--region", region, "--window", "1s", "--series", out)
        assert r.returncode == 0, r.stderr
        return [row["blind"] for row in csv.DictReader(l for l in open(out) if not l.startswith("#"))], r
    priv, _ = series("Hot private")
    assert priv == ["0", "0", "0", "0"], priv
    shared, r = series("Buffer Blocks")
    assert shared == ["1", "1", "1", "1"], shared
    text = ctl(path, "--region", "Buffer Blocks", "--window", "1s").stdout
    assert "4 of 4 windows saw no NUMA scan of its shared memory" in text, text
    j = json.loads(ctl(path, "--region", "Buffer Blocks", "--window", "1s", "--json").stdout)
    assert j["blind"]["intervals"] == 4 and j["blind"]["pass"].startswith("NUMA scan of its shared")
