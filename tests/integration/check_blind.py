"""Checks report --series's blind column of a hint-faults recording against
the NUMA scan sweeps the test read itself (scan_seq_poll.py: the times
numa_scan_seq advanced, i.e. the scanner reached the end of the address
space; a sweep runs from one advance to the next, or from its start where
STARTS.txt has one: the times perf saw sched:sched_skip_vma_numa at
offset 0 for the workload, a step that begins a sweep).  A window that holds a
whole sweep with 150 ms to spare on both sides (memtracectl polls every
100 ms, the test every 20 ms) must say blind=0; a window that cannot hold
any whole sweep even 150 ms off must say blind=1; the others are not
judged.  A sweep memtracectl recorded partial (PARTIAL.txt: the times of its
MEMTRACE_PASS_NUMA_SCAN_PARTIAL rows, each within 250 ms of the advance the
test read: either poller may read it first) is not a whole sweep for the
first rule.
Usage: check_blind.py SERIES.csv PASSES.txt START_TIME WINDOW_NS INTERVAL_NS [STARTS.txt [PARTIAL.txt]]"""
import csv
import sys

series, passes_file = sys.argv[1], sys.argv[2]
start, window, interval = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
MARGIN = 150_000_000
q = [int(l) for l in open(passes_file) if l.strip()]
starts = sorted(int(l) for l in open(sys.argv[6]) if l.strip()) if len(sys.argv) > 6 else []
partial = [int(l) for l in open(sys.argv[7]) if l.strip()] if len(sys.argv) > 7 else []
sweeps = []
for i, z in enumerate(q):
    a = q[i - 1] if i else None
    # the sweep ending at z began at its first step from offset 0 after the previous advance
    s = [t for t in starts if (a is None or t > a) and t <= z]
    if s:
        sweeps.append((s[0] if a is not None else s[-1], z))
    elif a is not None:
        sweeps.append((a, z))
# the first advance without a start before it (perf began after that sweep
# did): its sweep may lie anywhere before the advance; a window reaching
# past it may hold it, so it is judged neither seen nor blind
first_unknown = q[0] if q and not [t for t in starts if t <= q[0]] else None
def is_partial(z):
    return any(abs(p - z) <= 250_000_000 for p in partial)


rows = list(csv.DictReader(open(series)))
if not rows:
    sys.exit("no rows in the series")
if "blind" not in rows[0]:
    sys.exit("no blind column")
ks = [int(r["time"]) // interval for r in rows]
seen_ok = blind_ok = unjudged = 0
for r in rows:
    end = start + int(r["time"])
    lo = end - window
    b = r["blind"]
    if b not in ("0", "1"):
        sys.exit("blind is %r at %s, not 0 or 1" % (b, r["time"]))
    surely = any(lo <= a - MARGIN and z + MARGIN <= end and not is_partial(z) for a, z in sweeps)
    maybe = any(lo <= a + MARGIN and z - MARGIN <= end for a, z in sweeps) or (
        first_unknown is not None and first_unknown - MARGIN <= end)
    if surely:
        if b != "0":
            sys.exit("window ending %.3f s holds the whole sweep %s but says blind=1" % (
                (end - start) / 1e9, [((a - start) / 1e9, (z - start) / 1e9) for a, z in sweeps
                                      if lo <= a - MARGIN and z + MARGIN <= end][0]))
        seen_ok += 1
    elif not maybe:
        if b != "1":
            sys.exit("window ending %.3f s holds no whole sweep but says blind=0 (sweeps %s)" % (
                (end - start) / 1e9, [((a - start) / 1e9, (z - start) / 1e9) for a, z in sweeps]))
        blind_ok += 1
    else:
        unjudged += 1
# every interval without a row must be one that is not blind (rows: samples or blind)
for k in range(1, max(ks) + 1):
    if k not in set(ks):
        end = start + k * interval
        if not any(end - window <= a + MARGIN and z - MARGIN <= end for a, z in sweeps) and not (
                first_unknown is not None and first_unknown - MARGIN <= end):
            sys.exit("interval %d holds no whole sweep but is not a row (a blind window must be)" % k)
print("windows: %d rows; whole sweep and seen: %d; no sweep and blind: %d; near a sweep's edge, not "
      "judged: %d; sweeps read from /proc: %d, their starts from perf: %d%s" % (
          len(rows), seen_ok, blind_ok, unjudged, len(sweeps), len(starts),
          ("; the first sweep's start unknown (perf began after it)" if first_unknown is not None else "") +
          ("; %d sweeps recorded partial" % len(partial) if partial else "")))
if not sweeps:
    sys.exit("the kernel made fewer than two NUMA scan passes of the target: nothing to check against")
if not blind_ok or not seen_ok:
    sys.exit("need a window of each kind to check (seen %d, blind %d)" % (seen_ok, blind_ok))
