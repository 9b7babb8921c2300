#!/usr/bin/python3
"""Benchmark: N samples (default 10 M) -> heatmap PNG with memtrace-analyze.

Generates a synthetic database-like trace once (cached), then runs the
`heatmap` verb end to end as a fresh process RUNS times (default 5) and
reports the median wall and CPU time (user + sys: on a shared machine the
wall time mostly measures the neighbours), plus an in-process breakdown
(read+decode, bin, render).  Target: <= 2 s for 10 M samples.

usage: bench_heatmap.py [N] [RUNS]
BASE=path/to/an/older/source/tree (built) adds its runs, interleaved.
"""
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "user", "analyze"))
CACHE = os.environ.get("MEMTRACE_CACHE", "/var/tmp/memtrace-cache")


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    os.makedirs(CACHE, exist_ok=True)
    trace = os.path.join(CACHE, "bench-analyze-%d.mtrace" % n)
    if not os.path.exists(trace):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "gen_trace.py"), trace + ".tmp", str(n)], check=True)
        os.rename(trace + ".tmp", trace)
    out = os.path.join(CACHE, "bench-heatmap.png")
    cli = [sys.executable, os.path.join(TOP, "user", "analyze", "memtrace-analyze"), "heatmap", trace, "-o", out]
    base = os.environ.get("BASE")
    variants = [("this tree", cli, None)]
    if base:
        variants.append(("BASE", [sys.executable, os.path.join(base, "user", "analyze", "memtrace-analyze"),
                                  "heatmap", trace, "-o", out],
                         dict(os.environ, MEMTRACE_LIB=os.path.join(base, "build", "libmemtrace.so"))))
    res = {name: ([], []) for name, _, _ in variants}
    for _ in range(runs):
        for name, cmd, env in variants:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
            res[name][0].append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            res[name][1].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    walls = res["this tree"][0]

    from memtrace_analyze import heatmap
    from memtrace_analyze.lib import Selection, Trace
    parts = {"open+decode": [], "bin": [], "bin+draw+PNG": []}
    for _ in range(max(3, runs // 2)):
        t0 = time.perf_counter()
        tr = Trace(trace)
        view = heatmap.View(tr, Selection())
        t1 = time.perf_counter()
        heatmap.bin_view(view)
        t2 = time.perf_counter()
        heatmap.plot(view, out)
        t3 = time.perf_counter()
        parts["open+decode"].append(t1 - t0)
        parts["bin"].append(t2 - t1)
        parts["bin+draw+PNG"].append(t3 - t2)
        del tr, view
        import gc
        gc.collect()
    size = os.path.getsize(trace)
    print("heatmap benchmark: %d samples, trace %.1f MiB (%.2f bytes/sample), %d runs" %
          (n, size / 2**20, size / n, runs))
    for name, (w, c) in res.items():
        print("  %-9s end to end (new process, CLI): wall median %.2f s (min %.2f, max %.2f), "
              "cpu median %.2f s  target <= 2 s" % (name, statistics.median(w), min(w), max(w),
                                                    statistics.median(c)))
    for k, v in parts.items():
        print("  %-12s median %.2f s" % (k, statistics.median(v)))
    print("  runs: " + " ".join("%.2f" % w for w in walls))


if __name__ == "__main__":
    main()
