#!/usr/bin/python3
"""accuracy.py - how close memtrace's working-set numbers from sampled traces
come to the exact ones (docs/accuracy.md; `make accuracy` runs it).

For every fixture, an exact trace (valgrind backend, -c 1: every data access,
time in instructions) is recorded once into build/accuracy/.  Sampled traces
are cut from it as memtrace's samplers draw them: every N-th access (fixed)
or gaps drawn uniformly from [N - N/2, N + N/2] (random, seeded), written
with the trace writer and sample_period = N.  Every number then comes from
libmemtrace's report (memtrace_report_compute, through the ctypes layer of
memtrace-analyze): the exact series, the sampled series seen, its estimate,
interval and flags, the whole-run totals and the top-100 hot buckets.

    accuracy.py [--fixtures a,b] [--periods 10,100] [--modes fixed,random]
                [--write docs/accuracy.md] [--check]

--check compares against the bounds below (the seeded test of make check).
"""

import argparse
import os
import subprocess
import sys

import numpy as np

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "user", "analyze"))
from memtrace_analyze import lib  # noqa: E402

MT = os.path.join(TOP, "build", "memtracectl")
WL = os.path.join(TOP, "build", "workloads")
CACHE = os.path.join(TOP, "build", "accuracy", "v2")  # v2: fixed layout (fixture_env)
WINDOW, INTERVAL = 1000000, 100000      # tau = 1e6, T = 1e5 instructions

# name: command (exact traces of a few million accesses: valgrind is slow).
# Workloads run as ./NAME from build/workloads and sqlite3 reads its script
# from tests/accuracy, with a fixed environment (fixture_env): the program's
# stack then starts at the same address in every checkout and on every
# machine, so its pages and the estimates are the same everywhere (before,
# the checkout's path and the caller's environment moved the stack, and
# dbquery's coverage at N = 100 read 0.18-0.64 depending on where it ran)
FIXTURES = {
    "pageramp": (WL, ["./pageramp", "-n", "512", "-c", "4"]),
    "dbquery": (WL, ["./dbquery", "10000"]),
    # longer runs of it, held out: 68 windows, and the trace (#31)
    # with 237 windows
    "dbquery-30k": (WL, ["./dbquery", "30000"]),
    "dbquery-100k": (WL, ["./dbquery", "100000"]),
    # two more, held out from the estimator's choice too (added after it)
    "dbquery-60k": (WL, ["./dbquery", "60000"]),
    "dbquery-clustered": (WL, ["./dbquery", "100000", "--clustered"]),
    "scan": (WL, ["./probe", "scan", "2048", "800000"]),
    "uniform": (WL, ["./probe", "uniform", "4096", "200000"]),
    "zipf": (WL, ["./probe", "zipf", "4096", "100000"]),
    "sort": (WL, ["./probe", "sort", "16"]),
    # held out: not used to fit the estimator's constants (docs/accuracy.md)
    "kvstore": (WL, ["./kvstore", "100000", "150000"]),
    "btree": (WL, ["./btree", "400000", "60000"]),
    # a real program: sqlite3 building, indexing, sorting and joining a table
    "sqlite3": (os.path.join(TOP, "tests", "accuracy"), ["sqlite3", ":memory:", ".read sqlite-queries.sql"]),
}


def fixture_env():
    """The environment a fixture runs in: the same on every machine.  The
    program's own malloc (the memtrace Valgrind tool would replace it, moving
    the heap: the fixtures are the programs as they run natively)."""
    return {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "MEMTRACE_VALGRIND_ALLOCS": "0"}


# --check (make check, tests/suites.d/75-accuracy.sh): regression bounds on
# random-period traces (seeds SEEDS, held out from the fit), the measured
# values of docs/accuracy.md with a margin
BOUNDS = {100: 0.12, 1000: 0.15}        # reliable median |estimate/exact - 1| (measured: 1-7 % / 7-10 %)
MIN_COVERAGE = 0.90                     # interval coverage on reliable windows (measured: 98-100 %)
# errors and coverage are judged on at least this many reliable windows (one
# unflagged window of pageramp at N = 1000 is not a median)
MIN_RELIABLE = 5
MAX_FLAGGED = {100: 0.10}               # these fixtures are well sampled at N = 100
# reliable windows at N = 1000: the goal is half of them on dbquery-like
# traces (measured, seeds 3-5 pooled: dbquery 48 %, dbquery-100k 53 %,
# dbquery-60k 59 %; docs/accuracy.md): these bounds keep what is reached
MIN_RELIABLE_FRAC = {("dbquery", 1000): 0.40, ("dbquery-100k", 1000): 0.45, ("dbquery-60k", 1000): 0.50}
# a Zipf key space: its tail is never sampled in a window, every window must
# be flagged (measured: 100 % at N = 100 and 1000)
ALL_FLAGGED = {"kvstore"}


def exact_trace(name):
    path = os.path.join(CACHE, name + ".mtrace")
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        tmp = path + ".tmp"
        cwd, argv = FIXTURES[name]
        subprocess.run([MT, "record", "--backend", "valgrind", "-c", "1", "--force", "-o", tmp, "--"] + argv,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=fixture_env(), cwd=cwd)
        os.rename(tmp, path)
    return path


# the random periods' seeds: the estimator's constants were fitted on seeds 1
# and 2 (tests/accuracy/proto), the table and the check pool the windows of
# seeds 3, 4 and 5 (one seed's windows are few and overlap: dbquery's 22
# windows read 18-68 % reliable from seed to seed)
SEEDS = (3, 4, 5)


def sampled_trace(exact, cols, name, period, mode, seed):
    """The exact samples thinned as memtrace's lackey sampler does."""
    n = cols["time"].size
    if mode == "fixed":
        idx = np.arange(period - 1, n, period)
    else:
        rng = np.random.default_rng(seed)
        lo, hi = period - period // 2, period + period // 2
        gaps = rng.integers(lo, hi + 1, size=n // max(lo, 1) + 2)
        idx = np.cumsum(gaps) - 1
        idx = idx[idx < n]
    path = os.path.join(CACHE, "%s-%s-%d.mtrace" % (name, mode, period))
    tr = lib.Trace(exact)
    meta = {"format": "memtrace-1", "time_unit": "insn", "start_time": tr.start_time,
            "source": tr.meta("source", "valgrind-lackey"), "backend": "accuracy-harness",
            "event": tr.meta("event", "all-data-accesses"), "sees": "every data access, sampled",
            "sample_class": "sampled-access", "sample_period": period,
            "random_period": 1 if mode == "random" else 0, "target_pid": tr.meta("target_pid", "1")}
    tr.close()
    if os.path.exists(path):
        os.unlink(path)
    w = lib.Writer(path, meta)
    step = 1 << 16
    for i in range(0, idx.size, step):
        j = idx[i:i + step]
        w.samples(**{k: v[j] for k, v in cols.items()})
    w.close({"end_reason": "accuracy-harness"})
    return path


def top_set(rep):
    return {h["addr"] for h in rep["hot_data"]}


def row_windows(exact, rep):
    """Per window of the exact series: (exact, seen, estimate, lo, hi, flags).
    Both series are sparse (a row per interval whose window holds a sample,
    include/memtrace/report.h): rows are matched by time; an interval the
    sampled trace has no row for saw nothing (WSS 0, estimate 0, flagged as
    too few samples, as the library reports a window without samples)."""
    ex = exact["data"]["wss"].astype(np.float64)
    e = rep["data_est"]
    at = {int(t): i for i, t in enumerate(rep["data"]["time"])}
    idx = np.array([at.get(int(t), -1) for t in exact["data"]["time"]], dtype=np.int64)
    have = idx >= 0
    j = np.where(have, idx, 0)

    def pick(a, missing):
        a = np.asarray(a)
        if a.size == 0:
            return np.full(idx.size, missing, dtype=np.float64)
        return np.where(have, a[j], missing)
    seen = pick(rep["data"]["wss"].astype(np.float64), 0.0)
    est, lo, hi = pick(e["est"], 0.0), pick(e["lo"], 0.0), pick(e["hi"], 0.0)
    flags = pick(e["flags"], 1).astype(np.int64)
    m = ex > 0
    return ex[m], seen[m], est[m], lo[m], hi[m], flags[m]


def row_metrics(wins):
    """The table's columns over the windows of one or more sampled traces
    (row_windows' tuples, concatenated: the seeds of a random period)."""
    ex, seen, est, lo, hi, flags = (np.concatenate(c) for c in zip(*wins))
    err = np.abs(est / ex - 1)
    ok = flags == 0
    out_reliable = int(ok.sum())
    out = {"rows": int(ex.size) // len(wins), "raw": float(np.median(seen / ex)) if ex.size else float("nan"),
           "est": float(np.median(est / ex)) if ex.size else float("nan"),
           "p90": float(np.percentile(err, 90)) if ex.size else float("nan"),
           "flagged": float(1 - ok.mean()) if ex.size else float("nan"), "reliable": out_reliable}
    if ok.any():
        out["rel_med"] = float(np.median(err[ok]))
        out["rel_p90"] = float(np.percentile(err[ok], 90))
        out["coverage"] = float(((lo[ok] <= ex[ok]) & (ex[ok] <= hi[ok])).mean())
    else:
        out["rel_med"] = out["rel_p90"] = out["coverage"] = float("nan")
    return out


def measure(names, periods, modes):
    results = []
    for name in names:
        exact = exact_trace(name)
        tr = lib.Trace(exact)
        cols = tr.read(("time", "addr", "pid", "tid", "cpu", "ip"))
        tr.close()
        ex = lib.report(exact, window=WINDOW, interval=INTERVAL, top=100)
        for period in periods:
            for mode in modes:
                wins, total, raw_total, recall = [], [], [], []
                for seed in (SEEDS if mode == "random" else SEEDS[:1]):
                    path = sampled_trace(exact, cols, name, period, mode, seed)
                    rep = lib.report(path, window=WINDOW, interval=INTERVAL, top=100)
                    os.unlink(path)
                    wins.append(row_windows(ex, rep))
                    total.append(rep["data_est"]["total"] / max(ex["data"]["total"], 1))
                    raw_total.append(rep["data"]["total"] / max(ex["data"]["total"], 1))
                    recall.append(len(top_set(ex) & top_set(rep)) / max(len(top_set(ex)), 1))
                r = row_metrics(wins)
                r.update(fixture=name, period=period, mode=mode, exact_avg=float(ex["data"]["avg"]),
                         total=float(np.median(total)), raw_total=float(np.median(raw_total)),
                         recall=float(np.median(recall)))
                results.append(r)
    return results


def fmt(v, pct=False):
    if v != v:      # nan
        return "–"
    return "%.0f %%" % (100 * v) if pct else "%.2f" % v


def table(results):
    head = ("| fixture (exact avg WSS) | N | period | rows | reliable | seen/exact | estimate/exact | p90 \\|err\\| | "
            "reliable: median \\|err\\| | reliable: p90 \\|err\\| | coverage | total seen/exact | "
            "total est./exact | top-100 recall |")
    lines = [head, "|" + "---|" * 15]
    for r in results:
        lines.append("| %s (%.0f) | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["fixture"], r["exact_avg"], r["period"], r["mode"], r["rows"], fmt(1 - r["flagged"], True),
            fmt(r["raw"]), fmt(r["est"]), fmt(r["p90"], True), fmt(r["rel_med"], True), fmt(r["rel_p90"], True),
            fmt(r["coverage"], True), fmt(r["raw_total"]), fmt(r["total"]), fmt(r["recall"])))
    return "\n".join(lines)


def write_doc(path, text):
    begin, end = "<!-- accuracy-table: begin (make accuracy) -->", "<!-- accuracy-table: end -->"
    doc = open(path).read()
    if begin not in doc or end not in doc:
        raise SystemExit("accuracy: %s lacks the table markers" % path)
    a, b = doc.index(begin) + len(begin), doc.index(end)
    open(path, "w").write(doc[:a] + "\n" + text + "\n" + doc[b:])


def check(results):
    """(passed, failures) of the bounds, one per fixture x N of random traces."""
    passed, bad = 0, []
    for r in results:
        if r["mode"] != "random" or r["period"] not in BOUNDS:
            continue
        what = "%s N=%d" % (r["fixture"], r["period"])
        why = []
        if r["fixture"] in ALL_FLAGGED:
            if r["flagged"] < 1.0:
                why.append("%d windows not flagged (a Zipf tail: all must be)" % r["reliable"])
        else:
            if r["reliable"] >= MIN_RELIABLE:
                if r["rel_med"] > BOUNDS[r["period"]]:
                    why.append("reliable median |err| %.3f > %.2f" % (r["rel_med"], BOUNDS[r["period"]]))
                if r["coverage"] < MIN_COVERAGE:
                    why.append("coverage %.2f < %.2f" % (r["coverage"], MIN_COVERAGE))
            if r["flagged"] > MAX_FLAGGED.get(r["period"], 1.0):
                why.append("flagged %.2f > %.2f" % (r["flagged"], MAX_FLAGGED[r["period"]]))
            want = MIN_RELIABLE_FRAC.get((r["fixture"], r["period"]))
            if want is not None and 1 - r["flagged"] < want:
                why.append("reliable %.2f < %.2f" % (1 - r["flagged"], want))
        if why:
            bad.append(what + ": " + "; ".join(why))
        else:
            passed += 1
            print("ok   accuracy %s: reliable %s, reliable median |err| %s, coverage %s%s"
                  % (what, fmt(1 - r["flagged"], True), fmt(r["rel_med"], True), fmt(r["coverage"], True),
                     "" if r["reliable"] >= MIN_RELIABLE
                     else " (%d reliable windows: errors not judged)" % r["reliable"]))
    return passed, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default=",".join(FIXTURES))
    ap.add_argument("--periods", default="10,100,997,1000,4000,10000")
    ap.add_argument("--modes", default="fixed,random")
    ap.add_argument("--write", default=None, help="replace the table in this markdown file")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    res = measure(a.fixtures.split(","), [int(p) for p in a.periods.split(",")], a.modes.split(","))
    text = table(res)
    if a.write:
        write_doc(a.write, text)
    if not a.check:
        print(text)
    if a.check:
        passed, bad = check(res)
        for b in bad:
            print("FAIL accuracy " + b)
        print("%d passed, %d failed" % (passed, len(bad)))
        return 1 if bad or not passed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
