#!/bin/bash
# bench/record/metrics.sh - what record --metrics costs the collector (issue
# 32): freshpages (every page fault on a new page, the worst case for the
# window counts: each sample a new bucket in two more maps) recorded with -p
# for DURATION seconds (default 5) at period 1, perf backend, RUNS times (default 7)
# without and with --metrics (scraped every 250 ms, as a Prometheus server
# at scrape_interval 250ms would), alternating.  Prints per run the samples
# written and the collector's CPU (user + sys, getrusage of the collector
# alone: the workload is its own process), and the medians: samples/s (the
# workload's fault rate, which the collector only slows indirectly) and
# collector ns per sample.  Figures: docs/performance.md, "Prometheus
# metrics".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
MT=${MT:-build/memtracectl} RUNS=${RUNS:-7} DURATION=${DURATION:-5} PORT=${PORT:-19499}
[ -x "$MT" ] && [ -x build/workloads/freshpages ] || { echo "make first" >&2; exit 1; }
MEMTRACE_BACKEND=perf /usr/bin/python3 - "$MT" "$RUNS" "$DURATION" "$PORT" <<'PY'
import os, re, resource, statistics, subprocess, sys, tempfile, threading, time, urllib.request
mt, runs, secs, port = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
out = os.path.join(tempfile.mkdtemp(), "b.mtrace")
res = {"off": [], "on": []}

def scraper(stop):
    while not stop.wait(0.25):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1).read()
        except OSError:
            pass

for i in range(runs):
    for mode in ("off", "on"):
        w = subprocess.Popen(["build/workloads/freshpages", "-s", str(secs + 2)],
                             stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        args = [mt, "record", "-e", "page-faults", "-p", str(w.pid), "-d", str(secs), "-o", out,
                "--force"] + (["--metrics", port] if mode == "on" else [])
        stop = threading.Event()
        th = threading.Thread(target=scraper, args=(stop,))
        if mode == "on":
            th.start()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(args, capture_output=True, text=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)	# before the workload is reaped
        stop.set()
        if mode == "on":
            th.join()
        w.wait()
        n = int(re.search(r"wrote (\d+) samples", p.stderr).group(1))
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        res[mode].append((n, cpu))
        print(f"{mode:3} run {i + 1}: {n} samples, collector {cpu:.4f} s, {cpu / n * 1e9:.1f} ns/sample",
              flush=True)
for mode, rows in res.items():
    print(f"{mode:3} median: {statistics.median(n for n, c in rows) / secs:.0f} samples/s, "
          f"collector {statistics.median(c for n, c in rows):.4f} s, "
          f"{statistics.median(c / n * 1e9 for n, c in rows):.1f} ns/sample")
os.unlink(out)
PY
