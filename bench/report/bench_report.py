#!/usr/bin/python3
"""Benchmark: `memtracectl report` against what a perf user does with the
same samples (`perf script -F time,addr | bench/report/perf_pages.py`:
distinct pages per 100 ms and the top 20).

The workload faults PAGES fresh pages (build/bench/fault_cost 4096 ROUNDS),
recorded at period 1 once by `memtracectl record -e page-faults -c 1` and
once by `perf record -e page-faults -c 1 -d` (cached under MEMTRACE_CACHE,
default /var/tmp/memtrace-cache); the 10 M-sample case imports perf's file
(`memtracectl import`), so both tools read the same samples.  Runs are
interleaved; each figure is the median of RUNS.  CPU = user + sys of the
command and its children (the perf pipeline's two processes together): on
a shared machine wall time mostly measures the neighbours.

usage: bench_report.py [RUNS] [SIZES]     SIZES: comma-separated fault counts
                                          (default 2785280,10000000)
BASE=path/to/an/older/memtracectl adds its runs (a before/after table).
needs root (perf record at period 1), perf and build/ (make all).
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
CTL = os.path.join(TOP, "build", "memtracectl")
FAULT = os.path.join(TOP, "build", "bench", "fault_cost")
SCRIPT = os.path.join(HERE, "perf_pages.py")
CACHE = os.environ.get("MEMTRACE_CACHE", "/var/tmp/memtrace-cache")
PAGES = 4096


def run(cmd, env=None, out=subprocess.DEVNULL):
    """(cpu seconds, wall seconds) of cmd and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=out, stderr=subprocess.DEVNULL, env=env, shell=isinstance(cmd, str))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall


def traces(faults):
    rounds = max(1, -(-faults // PAGES))
    n = rounds * PAGES
    base = os.path.join(CACHE, "bench-report-%d" % n)
    data, mt = base + ".perf.data", base + ".mtrace"
    if not os.path.exists(data):
        subprocess.run(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data + ".tmp",
                        "--", FAULT, str(PAGES), str(rounds)], check=True, stdout=subprocess.DEVNULL)
        os.rename(data + ".tmp", data)
    if not os.path.exists(mt):
        if n <= 4 << 20:     # recorded by memtracectl itself (the setup)
            cmd = [CTL, "record", "-e", "page-faults", "-c", "1", "-o", mt + ".tmp", "--force", "--",
                   FAULT, str(PAGES), str(rounds)]
        else:                # the same samples as perf's file
            cmd = [CTL, "import", "--format", "perf", "-o", mt + ".tmp", "--force", data]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, MEMTRACE_BACKEND="perf"))
        os.rename(mt + ".tmp", mt)
    return data, mt


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    sizes = [int(float(x)) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [2785280, 10000000]
    if not shutil.which("perf") or not os.access(CTL, os.X_OK) or not os.access(FAULT, os.X_OK):
        print("report benchmark: skipped (needs perf, build/memtracectl and build/bench/fault_cost)")
        return
    os.makedirs(CACHE, exist_ok=True)
    for faults in sizes:
        data, mt = traces(faults)
        pipeline = "perf script -i %s -F time,addr 2>/dev/null | /usr/bin/python3 %s" % (data, SCRIPT)
        one = dict(os.environ, MEMTRACE_THREADS="1")
        res = {"report": [], "report, 1 thread": [], "perf script | python": []}
        base = os.environ.get("BASE")
        if base:
            res["report (BASE)"] = []
        for _ in range(runs):
            if base:
                res["report (BASE)"].append(run([base, "report", mt]))
            res["report"].append(run([CTL, "report", mt]))
            res["report, 1 thread"].append(run([CTL, "report", mt], env=one))
            res["perf script | python"].append(run(pipeline))
        n = int(subprocess.run([CTL, "report", mt, "--json"], check=True, capture_output=True,
                               text=True).stdout.split('"samples":', 1)[1].split(",", 1)[0])
        print("report benchmark: %d samples (%.1f MiB trace, perf.data %.1f MiB), medians of %d, interleaved"
              % (n, os.path.getsize(mt) / 2**20, os.path.getsize(data) / 2**20, runs))
        med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in res.items()}
        ref = med["perf script | python"]
        for k, (cpu, wall) in med.items():
            print("  %-22s cpu %7.3f s  wall %7.3f s   perf pipeline / this: cpu %5.1fx  wall %5.1fx"
                  % (k, cpu, wall, ref[0] / cpu, ref[1] / wall))
        print("  target: report >= 20x the perf pipeline")


if __name__ == "__main__":
    main()
