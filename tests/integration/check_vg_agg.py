#!/usr/bin/python3
"""An aggregated valgrind recording (record --backend valgrind --aggregate=N)
against an exact one of the same program (-c 1, or -c P with the same seed):
on the grid of N instructions (interval k = ((k-1) N, k N]) the exact
samples must give the same 4 KiB buckets with the same counts in every
interval, and each interval's sample count in its AGG header.

usage: check_vg_agg.py EXACT.csv AGG.csv N MAXDIFF

EXACT.csv: `memtracectl dump` of the exact trace; AGG.csv: `dump --agg` of
the aggregated one.  MAXDIFF: accesses allowed to differ (land in another
bucket or interval, or be missing: run-dependent data and branches, such as
the digits of a pid or a clock read).  Prints a one-line
summary; exits 1 with the first differences.
"""
import collections
import csv
import re
import sys


def main():
    exact_csv, agg_csv, n, maxdiff = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    want = collections.Counter()
    want_samples = collections.Counter()
    with open(exact_csv) as f:
        for row in csv.DictReader(f):
            k = (int(row["time"]) + n - 1) // n
            want[(k, int(row["addr"], 16) >> 12)] += 1
            want_samples[k] += 1
    got = collections.Counter()
    got_samples = collections.Counter()
    with open(agg_csv) as f:
        for line in f:
            m = re.match(r"# interval end=(\d+) length=(\d+) samples=(\d+) full=(\d+)", line)
            if m:
                end, length = int(m.group(1)), int(m.group(2))
                if length != n or end % n or int(m.group(4)):
                    sys.exit("bad interval header: " + line.strip())
                got_samples[end // n] += int(m.group(3))
                continue
            if line.startswith("time,") or line.startswith("#"):
                continue
            t, _pid, addr, count = line.strip().split(",")
            if int(t) % n:
                sys.exit("row time %s is not an interval end" % t)
            key = (int(t) // n, int(addr, 16) >> 12)
            if key in got:
                sys.exit("bucket %s twice in interval %d" % (addr, key[0]))
            got[key] = int(count)
    diff = sum(((want - got) + (got - want)).values())
    bad = sorted(k for k in set(want_samples) | set(got_samples) if want_samples[k] != got_samples[k])
    moved = sum(abs(want_samples[k] - got_samples[k]) for k in bad)
    if moved > maxdiff:
        sys.exit("interval sample counts differ by %d in %d intervals, first k=%d: exact %d, aggregated %d"
                 % (moved, len(bad), bad[0], want_samples[bad[0]], got_samples[bad[0]]))
    if diff > 2 * maxdiff:
        first = sorted(((want - got) + (got - want)).items())[:3]
        sys.exit("%d counts differ (at most %d allowed), first: %s" % (diff, 2 * maxdiff, first))
    print("%d intervals, %d (interval, bucket) rows, %d accesses; %d counts differ"
          % (len(got_samples), len(got), sum(got_samples.values()), diff))


main()
