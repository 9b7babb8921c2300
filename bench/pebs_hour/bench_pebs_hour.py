#!/usr/bin/python3
"""Benchmark: `memtracectl report` on an hour of PEBS-rate samples.

build/bench/pebs_gen writes SAMPLES samples (default 100 M: 27.8 k/s for
3600 s, 8 threads, sample period 1000) over a working set of PAGES pages
(default 300000, a tenth of them taking 90 % of the samples), cached under
MEMTRACE_CACHE (default /var/tmp/memtrace-cache).  Each command runs RUNS
times (default 5), interleaved with BASE (an older memtracectl, e.g. one
built from commit 4ad6abd) when given; figures are medians: wall time, CPU
(user + sys of the process and its decode threads) and peak RSS.  On a
shared machine wall time mostly measures the neighbours: CPU is the figure
to compare.

usage: bench_pebs_hour.py [RUNS] [SAMPLES] [PAGES]      BASE=path/to/memtracectl
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
CTL = os.path.join(TOP, "build", "memtracectl")
GEN = os.path.join(TOP, "build", "bench", "pebs_gen")


def once(ctl, path):
    t0 = time.monotonic()
    p = subprocess.Popen([ctl, "report", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode()
    if p.returncode not in (None, 0) or err.strip():
        print("  %s: %s" % (ctl, err.strip()))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 100000000
    pages = int(sys.argv[3]) if len(sys.argv) > 3 else 300000
    cache = os.environ.get("MEMTRACE_CACHE", "/var/tmp/memtrace-cache")
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, "pebs_hour_%d_%d.mtrace" % (samples, pages))
    if not os.path.exists(path):
        t0 = time.monotonic()
        subprocess.run([GEN, path + ".tmp", str(samples), str(pages)], check=True)
        os.rename(path + ".tmp", path)
        print("wrote %s (%.0f MB) in %.1f s" % (path, os.path.getsize(path) / 1e6, time.monotonic() - t0))
    cmds = [("this tree", CTL)]
    if os.environ.get("BASE"):
        cmds.insert(0, ("BASE " + os.environ["BASE"], os.environ["BASE"]))
    res = {name: [] for name, _ in cmds}
    once(cmds[-1][1], path)     # warm the page cache
    for _ in range(runs):
        for name, ctl in cmds:
            res[name].append(once(ctl, path))
    print("memtracectl report, %d samples, %d pages, %.0f MB trace; medians of %d" % (
        samples, pages, os.path.getsize(path) / 1e6, runs))
    print("  %-50s %9s %9s %9s" % ("", "wall s", "CPU s", "RSS MB"))
    for name, _ in cmds:
        w, c, r = (statistics.median(x[i] for x in res[name]) for i in range(3))
        print("  %-50s %9.2f %9.2f %9.1f" % (name[-50:], w, c, r))


if __name__ == "__main__":
    main()
