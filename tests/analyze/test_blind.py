"""Blind windows (report.h struct memtrace_blind): crafted traces with
known observation passes (PASSES chunks), the flags every output gives
(--series, --json, text, memtrace-analyze wss and its CSV, the plotted line)
checked against a simulation of the definition in this file:

  report k's window (t_k - τ, t_k] is blind when no pass p (of the target or
  of every target, pid 0) has t_k - τ < p and p - lag <= t_k.

Every report up to the recording's end counts; a trace of a pass-based
source without PASSES says "unknown", a PMU trace "none"."""
import csv
import json
import random
import subprocess

import numpy as np

from conftest import CLI, PYTHON, TOP, assert_png
from memtrace_analyze import lib

import tracegen

CTL = TOP + "/build/memtracectl"
MS = 1_000_000
H = 0x7f0000001000
PID, OTHER = tracegen.PID, 777


def write(path, times, passes, end, meta=None, pass_chunks=True):
    """Samples at times (one bucket each, cycling over 8), PASSES rows (time, pid, what)."""
    orig = lib.Writer.close

    def close(self, end_meta=None):
        if pass_chunks:
            self.passes(passes)
        return orig(self, end_meta)
    lib.Writer.close = close
    try:
        m = {"event": "hint-faults", "source": "hint-faults", "passes": str(passes[0][2] if passes else 1)}
        m.update(meta or {})
        tracegen.write_trace(str(path), times, [H + 4096 * (i % 8) for i in range(len(times))], time_unit="ns",
                             end_time=end, meta=m)
    finally:
        lib.Writer.close = orig
    return str(path)


def simulate(passes, end, window, interval, lag=0, pid=None):
    """{k: blind} for k = 1..ceil(end / T), start 0.  A DAMON or accessed-bit
    pass (what 2, 3) sees the window it may lie in; a NUMA scan advance (what
    1) the windows that hold the whole sweep from its pid's previous advance,
    or from the sweep's start (what 4, exact) where one lies after that
    advance (the latest before this one; for a pid's first advance any)."""
    K = -(-end // interval)
    ps = [(t, p, w) for t, p, w in passes if pid is None or p in (0, pid)]
    seen = set()
    for t, p, w in ps:
        if w == 4:
            continue
        prev = [u for u, q, x in ps if q == p and x == 1 and u < t]
        st = [u for u, q, x in ps if q == p and x == 4 and u <= t and (not prev or u > max(prev))]
        for k in range(1, K + 1):
            tk = k * interval
            if w != 1:
                if tk - window < t and t - lag <= tk:
                    seen.add(k)
                continue
            if st:
                if t <= tk and tk - window <= max(st):
                    seen.add(k)
            elif prev and t <= tk and tk - window <= max(prev) - lag:
                seen.add(k)
    return {k: k not in seen for k in range(1, K + 1)}


def series(path, *args):
    out = path + ".series.csv"
    subprocess.run([CTL, "report", path, "--series", out] + list(args), capture_output=True, text=True,
                   check=True)
    return list(csv.DictReader(open(out)))


def report_json(path, *args):
    return json.loads(subprocess.run([CTL, "report", path, "--json"] + list(args), capture_output=True,
                                     text=True, check=True).stdout)


def runs_of(flags):
    """[(first k, last k)] of the True runs of {k: flag}."""
    out = []
    for k in sorted(flags):
        if flags[k]:
            if out and out[-1][1] == k - 1:
                out[-1][1] = k
            else:
                out.append([k, k])
    return [tuple(r) for r in out]


def test_blind_flags_match_simulation(tmp):
    rng = random.Random(33)
    for case in range(6):
        end = rng.randrange(1500, 4000) * MS
        what = 1 + case % 2       # NUMA scan sweeps, DAMON aggregations
        passes = sorted((rng.randrange(0, end), rng.choice([PID, PID, 0, OTHER]), what)
                        for _ in range(rng.randrange(1, 8)))
        times = sorted(rng.randrange(0, end) for _ in range(rng.randrange(1, 40)))
        window = rng.choice([100, 200, 300]) * MS * (4 if what == 1 else 1)
        interval = rng.choice([window, 100 * MS])
        lag = rng.choice([0, 50 * MS])
        path = write(tmp / ("c%d.mtrace" % case), times, passes, end, {"pass_lag": lag})
        args = ["--window", "%dms" % (window // MS), "--interval", "%dms" % (interval // MS)]
        for pid in (None, PID):
            a = args + (["--pid", str(PID)] if pid else [])
            want = simulate(passes, end, window, interval, lag, pid)
            rows = series(path, *a)
            got = {int(r["time"]) // interval: r["blind"] == "1" for r in rows}
            assert all(r["blind"] in ("0", "1") for r in rows)
            # every blind window is a row; every row's flag is the simulation's
            assert {k for k, b in want.items() if b} == {k for k, b in got.items() if b}, (case, pid)
            assert all(want[k] == b for k, b in got.items()), (case, pid)
            j = report_json(path, *a)
            b = j["blind"]
            assert b["state"] == "known"
            assert b["pass"] == ("whole NUMA scan sweep" if what == 1 else "DAMON aggregation")
            assert b["intervals"] == sum(want.values()) and j["intervals"] == len(want)
            assert [(r["first"] // interval, r["last"] // interval) for r in b["runs"]] == runs_of(want)
            assert b["passes"] == sum(1 for _, p, _ in passes if pid is None or p in (0, pid))
            # the average leaves the blind windows out
            seen = [k for k, x in want.items() if not x]
            wss = {int(r["time"]) // interval: int(r["wss_data"]) for r in rows}
            avg = sum(wss.get(k, 0) for k in seen) / len(seen) if seen else 0
            assert abs(j["wss_data"]["avg"] - avg) < 1e-3 * max(avg, 1), (case, pid)
            text = subprocess.run([CTL, "report", path] + a, capture_output=True, text=True, check=True).stdout
            nb = sum(want.values())
            if nb:
                assert "blind:     %d of %d windows saw no %s" % (nb, len(want), b["pass"]) in text
            else:
                assert "blind:     none of the %d windows" % len(want) in text


def test_sweep_starts_match_simulation(tmp):
    """NUMA scan advances with their sweeps' starts (what 4, as hint.c pairs
    them: at most one between two advances of a pid): the windows holding
    [start, advance] are seen, also for a pid's first advance, and the
    starts are not passes."""
    rng = random.Random(34)
    for case in range(8):
        end = rng.randrange(1500, 4000) * MS
        adv = {}
        for _ in range(rng.randrange(1, 8)):
            adv.setdefault(rng.choice([PID, PID, OTHER]), set()).add(rng.randrange(1, end))
        passes = []
        for p, ts in adv.items():
            ts = sorted(ts)
            for i, t in enumerate(ts):
                passes.append((t, p, 1))
                lo = ts[i - 1] + 1 if i else 0
                if rng.random() < 0.7 and lo < t:     # its start, somewhere after the previous
                    passes.append((rng.randrange(lo, t + 1), p, 4))
        passes.sort()
        times = sorted(rng.randrange(0, end) for _ in range(rng.randrange(1, 40)))
        window = rng.choice([100, 200, 300]) * MS * 4
        interval = rng.choice([window, 100 * MS])
        lag = rng.choice([0, 50 * MS])
        path = write(tmp / ("s%d.mtrace" % case), times, passes, end, {"pass_lag": lag, "passes": "1"})
        args = ["--window", "%dms" % (window // MS), "--interval", "%dms" % (interval // MS)]
        for pid in (None, PID):
            a = args + (["--pid", str(PID)] if pid else [])
            want = simulate(passes, end, window, interval, lag, pid)
            rows = series(path, *a)
            got = {int(r["time"]) // interval: r["blind"] == "1" for r in rows}
            assert {k for k, b in want.items() if b} == {k for k, b in got.items() if b}, (case, pid, passes)
            assert all(want[k] == b for k, b in got.items()), (case, pid)
            b = report_json(path, *a)["blind"]
            assert b["passes"] == sum(1 for _, p, w in passes if w == 1 and (pid is None or p in (0, pid)))
            assert b["pass"] == "whole NUMA scan sweep"
    # one sweep of 50 ms at 1.2-1.25 s: the 1 s windows ending at 2 s hold it; without the start none does
    path = write(tmp / "one.mtrace", [100 * MS, 1300 * MS], [(1200 * MS, PID, 4), (1250 * MS, PID, 1)], 3000 * MS,
                 {"pass_lag": 100 * MS, "passes": "1"})
    rows = series(path, "--window", "1s")
    assert [r["blind"] for r in rows] == ["1", "0", "1"], rows
    path = write(tmp / "none.mtrace", [100 * MS, 1300 * MS], [(1250 * MS, PID, 1)], 3000 * MS,
                 {"pass_lag": 100 * MS, "passes": "1"})
    assert [r["blind"] for r in series(path, "--window", "1s")] == ["1", "1", "1"]


def test_wss_plot_draws_gaps(tmp):
    # DAMON aggregations at 40, 520, 1210 ms; 100 ms windows to 2 s: k = 1, 6, 13 seen, the other 17 blind
    passes = [(40 * MS, PID, 2), (520 * MS, PID, 2), (1210 * MS, 0, 2)]
    times = [50 * MS, 55 * MS, 550 * MS, 1250 * MS, 1700 * MS]     # 1.7 s: samples in a blind window
    path = write(tmp / "g.mtrace", times, passes, 2000 * MS)
    want = simulate(passes, 2000 * MS, 100 * MS, 100 * MS)
    assert [k for k, b in want.items() if not b] == [1, 6, 13]
    png, csvp = str(tmp / "wss.png"), str(tmp / "wss.csv")
    subprocess.run([PYTHON, CLI, "wss", path, "--window", "100ms", "-o", png, "--csv", csvp], check=True,
                   capture_output=True)
    assert_png(png)
    rows = list(csv.DictReader(open(csvp)))
    col, bcol = "wss_data_tau%d" % (100 * MS), "blind_tau%d" % (100 * MS)
    by_k = {int(r["time"]) // (100 * MS): r for r in rows}
    for k, b in want.items():
        assert k in by_k, "blind window %d is not in the CSV" % k if b else k
        assert by_k[k][bcol] == ("1" if b else "0")
        assert (by_k[k][col] == "") == b, "window %d: blind must be empty (a gap), seen a number" % k
    assert by_k[1][col] == "2" and by_k[6][col] == "1" and by_k[13][col] == "1"
    # the line the figure draws: NaN (a gap) exactly at the blind windows, never 0 there
    from memtrace_analyze import wss as wssmod
    from memtrace_analyze.select import make_selection
    from memtrace_analyze.cli import build_parser
    tr = lib.Trace(path)
    args = build_parser().parse_args(["wss", path, "--window", "100ms"])
    res = wssmod.compute(tr, args, make_selection(tr, args))
    y = wssmod.plotted(res, "data", res.taus[0])
    ks = (res.times // np.uint64(100 * MS)).astype(int)
    for k, v in zip(ks.tolist(), y.tolist()):
        if k in want:
            assert np.isnan(v) == want[k], k


def test_every_window_blind_without_samples(tmp):
    # no sample at all (PostgreSQL's shared buffers under hint faults): every window blind, still plotted
    path = write(tmp / "e.mtrace", [], [], 1000 * MS)
    rows = series(path, "--window", "250ms")
    assert [(int(r["time"]), r["blind"]) for r in rows] == [(k * 250 * MS, "1") for k in (1, 2, 3, 4)]
    j = report_json(path, "--window", "250ms")
    assert j["blind"]["intervals"] == 4 and j["intervals"] == 4
    png = str(tmp / "e.png")
    subprocess.run([PYTHON, CLI, "wss", path, "--window", "250ms", "-o", png], check=True, capture_output=True)
    assert_png(png)


def test_default_window_holds_a_pass_period(tmp):
    passes = [(t * MS, PID, 2) for t in (100, 800, 1500, 2200, 2900)]      # every 700 ms
    path = write(tmp / "p.mtrace", [150 * MS, 850 * MS], passes, 3000 * MS)
    j = report_json(path)
    assert j["blind"]["pass_period"] == 700 * MS
    assert j["window"] == 700 * MS and j["interval"] == 700 * MS     # 100 ms steps, at least the period
    # NUMA scan sweeps: two periods, so that every window holds a whole sweep
    numa = write(tmp / "s.mtrace", [150 * MS, 850 * MS], [(t, p, 1) for t, p, _ in passes], 3000 * MS)
    j = report_json(numa)
    assert j["window"] == 1400 * MS
    # only the window reaching past the recording's end (4.2 s) holds no whole sweep
    assert j["blind"]["runs"] == [{"first": 4200 * MS, "last": 4200 * MS}]
    j = report_json(path, "--window", "100ms")
    assert j["window"] == 100 * MS                                     # asked: as asked
    # one pass: no period observed, the kernel's minimum scan period (HEADER scan_period_ms) instead
    one = write(tmp / "one.mtrace", [150 * MS], [(100 * MS, PID, 1)], 3000 * MS, {"scan_period_ms": 1000})
    assert report_json(one)["window"] == 2000 * MS


def test_old_trace_blindness_unknown(tmp):
    # a hint-faults trace written before PASSES: unknown, not "seen"
    path = write(tmp / "o.mtrace", [50 * MS, 550 * MS], [], 1000 * MS, meta={"passes": ""}, pass_chunks=False)
    assert lib.Trace(path).passes() == []
    text = subprocess.run([CTL, "report", path], capture_output=True, text=True, check=True).stdout
    assert "blind:     unknown" in text
    assert report_json(path)["blind"] == {"state": "unknown"}
    assert all(r["blind"] == "" for r in series(path))
    csvp = str(tmp / "o.csv")
    subprocess.run([PYTHON, CLI, "wss", path, "-o", str(tmp / "o.png"), "--csv", csvp], check=True,
                   capture_output=True)
    assert all(r["blind_tau%d" % (100 * MS)] == "" for r in csv.DictReader(open(csvp)))
    # a PMU trace: no window is blind
    pmu = write(tmp / "n.mtrace", [50 * MS], [], 1000 * MS, meta={"event": "loads", "source": "synthetic",
                                                                   "passes": ""}, pass_chunks=False)
    assert report_json(pmu)["blind"] == {"state": "none"}
    assert all(r["blind"] == "0" for r in series(pmu))


def test_passes_roundtrip_and_corrupt_chunk(tmp):
    rows = [(5, 1, 1), (7, 0, 2), (9, 3, 3)]
    path = write(tmp / "r.mtrace", [1], rows, 10)
    assert lib.Trace(path).passes() == rows
    # a PASSES chunk whose count does not match its bytes: one line, non-zero exit
    data = bytearray(open(path, "rb").read())
    i = data.find(b"MTCK\x0f\x00")
    assert i > 0
    data[i + 16] ^= 1       # count (header checksum then fails, or the record count does)
    bad = tmp / "bad.mtrace"
    bad.write_bytes(bytes(data))
    p = subprocess.run([CTL, "report", str(bad)], capture_output=True, text=True)
    assert p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_heatmap_hatches_the_reports_blind_windows(tmp):
    passes = [(40 * MS, PID, 2), (520 * MS, PID, 2), (1210 * MS, 0, 2)]
    path = write(tmp / "h.mtrace", [50 * MS, 55 * MS, 550 * MS, 1250 * MS, 1700 * MS], passes, 2000 * MS)
    from memtrace_analyze import heatmap as hm
    from memtrace_analyze.select import make_selection
    from memtrace_analyze.cli import build_parser
    tr = lib.Trace(path)
    args = build_parser().parse_args(["heatmap", path])
    view = hm.View(tr, make_selection(tr, args))
    view.set_blind()
    runs = report_json(path)["blind"]["runs"]      # the default window: 100 ms, no period > it
    w = report_json(path)["window"]
    assert view.blind["spans"] == [(max(r["first"] - w, 0), r["last"]) for r in runs]
    want = simulate(passes, 2000 * MS, w, w)
    assert [(a // w + 1, b // w) for a, b in view.blind["spans"]] == runs_of(want)
    out = str(tmp / "heat.png")
    subprocess.run([PYTHON, CLI, "heatmap", path, "-o", out], check=True, capture_output=True)
    assert_png(out)


def test_gap_windows_blind_without_passes(tmp):
    """A source that sees every window (no PASSES) with GAPS rows (record
    --pidfile had no target): the windows that overlap a gap are blind,
    (t_k - τ, t_k] meeting (from, to), and only they."""
    rng = random.Random(7)
    for case in range(4):
        end = rng.randrange(1500, 4000) * MS
        gaps = []
        for _ in range(rng.randrange(1, 4)):
            a = rng.randrange(0, end)
            gaps.append((a, min(end, a + rng.randrange(1, 800) * MS), PID, lib.GAP_NO_TARGET))
        times = sorted(rng.randrange(0, end) for _ in range(rng.randrange(1, 40)))
        window = rng.choice([100, 200, 300]) * MS
        interval = rng.choice([window, 100 * MS])
        orig = lib.Writer.close

        def close(self, end_meta=None):
            self.gaps(gaps)
            return orig(self, end_meta)
        lib.Writer.close = close
        try:
            path = str(tmp / ("g%d.mtrace" % case))
            tracegen.write_trace(path, times, [H + 4096 * (i % 8) for i in range(len(times))],
                                 time_unit="ns", end_time=end,
                                 meta={"event": "page-faults", "source": "page-faults"})
        finally:
            lib.Writer.close = orig
        K = -(-end // interval)
        want = {k: any(k * interval > f and k * interval - window < t for f, t, _, _ in gaps)
                for k in range(1, K + 1)}
        a = ["--window", "%dms" % (window // MS), "--interval", "%dms" % (interval // MS)]
        rows = series(path, *a)
        got = {int(r["time"]) // interval: r["blind"] == "1" for r in rows}
        assert {k for k, b in want.items() if b} == {k for k, b in got.items() if b}, case
        assert all(want[k] == b for k, b in got.items()), case
        b = report_json(path, *a)["blind"]
        assert b["state"] == "known" and b["pass"] == "target" and b["passes"] == 0
        assert b["gaps"] == len(gaps) and b["gap_time"] == sum(t - f for f, t, _, _ in gaps)
        assert b["intervals"] == sum(want.values())
        assert [(r["first"] // interval, r["last"] // interval) for r in b["runs"]] == runs_of(want)
        text = subprocess.run([CTL, "report", path] + a, capture_output=True, text=True, check=True).stdout
        assert "gaps:      %d without a target" % len(gaps) in text
        assert "blind:     %d of %d windows overlap a gap without a target" % (sum(want.values()), K) in text
        info = subprocess.run([PYTHON, CLI, "info", path, "--window", "%dms" % (window // MS)],
                              capture_output=True, text=True, check=True).stdout
        assert "gaps       %d without a target (record --pidfile)" % len(gaps) in info, info
        assert "overlap a gap without a target" in info, info
