#!/usr/bin/python3
"""compare_perf_script.py DUMP PERF_SCRIPT [--full] - the samples of
`memtracectl dump` (CSV) against `perf script --ns -F pid,tid,cpu,time,addr,ip`
(with --full: `-F pid,tid,cpu,time,addr,ip,weight,data_src`), sample by
sample: the same multiset of (time, pid, tid, cpu, addr, ip[, weight,
data_src]).  Prints the count, or the first differences, and exits 1."""
import collections
import re
import sys

dump, script, full = sys.argv[1], sys.argv[2], "--full" in sys.argv[3:]
mine = collections.Counter()
with open(dump) as f:
    for line in f:
        if line.startswith(("time,", "#")):
            continue
        t, pid, tid, cpu, addr, ip, w, ds = line.strip().split(",")
        key = (int(t), int(pid), int(tid), int(cpu), int(addr, 16), int(ip, 16))
        if full:
            key += (int(w), int(ds, 16))
        mine[key] += 1
head = re.compile(r"^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+([0-9a-f]+)\s+(.*)$")
theirs = collections.Counter()
with open(script) as f:
    for line in f:
        m = head.match(line)
        if not m:
            continue
        pid, tid, cpu, sec, nsec, addr, rest = m.groups()
        key = (int(sec) * 10**9 + int(nsec), int(pid), int(tid), int(cpu), int(addr, 16))
        toks = rest.split()
        if full:   # data_src (hex, then its decoding in |...|), weight, ip
            key += (int(toks[-1], 16), int(toks[-2]), int(toks[0], 16))
        else:
            key += (int(toks[-1], 16),)
        theirs[key] += 1
if not theirs:
    print("perf script printed no samples")
    sys.exit(1)
if mine != theirs:
    print("memtrace %d samples, perf script %d; only in memtrace: %s; only in perf script: %s" % (
        sum(mine.values()), sum(theirs.values()), list((mine - theirs).elements())[:3],
        list((theirs - mine).elements())[:3]))
    sys.exit(1)
print("%d samples equal" % sum(mine.values()))
