#!/usr/bin/python3
"""Exact checks of a record --aggregate trace against a normal recording of
the same run (both recorders attached to one pageramp, every page fault
seen by both).

usage: check_agg.py NORMAL.csv AGG.csv AGG.mtrace WORKLOAD.out PAGES CYCLES

NORMAL.csv: `memtracectl dump` of the normal trace; AGG.csv: `dump --agg`
of the aggregated one.  On the aggregated trace's interval grid (interval k
= (start + (k-1) T, start + k T]) the normal samples must give the same
(pid, bucket) set and counts in every interval, the same per-bucket totals,
and libmemtrace's WSS series of the aggregated trace (window T and 3 T)
must equal the distinct counts computed here from the samples.  The region
holds every even page, CYCLES times (a retried fault: at most 2 more).
"""
import collections
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../user/analyze"))
from memtrace_analyze import lib  # noqa: E402


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def main():
    normal, aggcsv, aggpath, out, pages, cycles = sys.argv[1:7]
    pages, cycles = int(pages), int(cycles)
    tr = lib.Trace(aggpath)
    start = tr.start_time
    T = int(tr.meta("aggregate"))
    # the aggregated trace: per interval its header line and rows
    ivl, agg = {}, collections.defaultdict(dict)
    for line in open(aggcsv):
        m = re.match(r"# interval end=(\d+) length=(\d+) samples=(\d+) full=(\d+) rows=(\d+)", line)
        if m:
            end, length, samples, full, nrows = map(int, m.groups())
            k = (end - start) // T
            if length != T or start + k * T != end:
                fail("interval end %d is off the grid (start %d, T %d)" % (end, start, T))
            ivl[k] = (samples, full, nrows)
        elif line[0].isdigit():
            t, pid, addr, count = line.strip().split(",")
            agg[(int(t) - start) // T][(int(pid), int(addr, 16))] = int(count)
    for k, (samples, full, nrows) in ivl.items():
        if full or nrows != len(agg[k]) or samples != sum(agg[k].values()):
            fail("interval %d: samples %d full %d rows %d, the rows hold %d keys and %d counts"
                 % (k, samples, full, nrows, len(agg[k]), sum(agg[k].values())))
    # the normal recording on the same grid; each recorder's BPF program reads
    # the clock itself (ns to us apart), so a fault within EPS of an interval's
    # edge may fall on either side: it goes where the AGG trace has its key
    EPS = 100000
    ref = collections.defaultdict(collections.Counter)
    for r in csv.DictReader(open(normal)):
        t = int(r["time"])
        key = (int(r["pid"]), int(r["addr"], 16) & ~4095)
        k = 1 if t <= start else (t - start + T - 1) // T
        edge = start + k * T
        other = k + 1 if edge - t < EPS else k - 1 if t - (edge - T) < EPS and k > 1 else k
        if other != k and key not in agg.get(k, {}) and key in agg.get(other, {}):
            k = other
        ref[k][key] += 1
    for k in sorted(set(ref) | set(agg)):
        if dict(ref[k]) != agg[k]:
            a, b = set(ref[k].items()), set(agg[k].items())
            fail("interval %d: samples give %d keys (%d accesses), AGG %d keys (%d): %s / %s"
                 % (k, len(ref[k]), sum(ref[k].values()), len(agg[k]), sum(agg[k].values()),
                    sorted(a - b)[:3], sorted(b - a)[:3]))
    # the library's series (what report and the plots show) from the AGG rows
    last = max(agg)
    for w in (1, 3):
        rep = lib.report(aggpath, window=w * T, interval=T)
        # sparse: a row per report k (time k T) whose window holds a sample;
        # a k without a row has WSS 0 (include/memtrace/report.h)
        rows = {int(t) // T: int(v) for t, v in zip(rep["data"]["time"], rep["data"]["wss"])}
        n = max(rows) if rows else 0
        got = [rows.get(k, 0) for k in range(1, n + 1)]
        want = [len(set().union(*[set(ref.get(j, ())) for j in range(k - w + 1, k + 1)]))
                for k in range(1, n + 1)]
        if n < last or got != want or any(v == 0 for v in rows.values()):
            fail("window %d T: library series %s, from the samples %s" % (w, got, want))
    # known page counts of the region
    m = re.search(r"base=(0x[0-9a-f]+) .* page_size=(\d+)", open(out).read())
    base, page = int(m.group(1), 16), int(m.group(2))
    total = collections.Counter()
    for k in agg:
        for (pid, addr), c in agg[k].items():
            if base <= addr < base + pages * page:
                total[(addr - base) // page] += c
    if sorted(total) != list(range(0, pages, 2)):
        fail("region pages with faults: %d, want the %d even pages" % (len(total), pages // 2))
    extra = sum(total.values()) - pages // 2 * cycles
    if min(total.values()) != cycles or not 0 <= extra <= 2:
        fail("region page counts %s, want %d each (+ at most 2 retries)"
             % (collections.Counter(total.values()), cycles))
    print("%d intervals, %d region faults, %d keys in all"
          % (len(agg), sum(total.values()), sum(len(v) for v in agg.values())))


main()
