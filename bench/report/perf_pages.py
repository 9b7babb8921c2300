#!/usr/bin/python3
"""What a perf user writes instead of `memtracectl report`: reads
`perf script -F time,addr` lines on stdin and prints the distinct 4 KiB
pages of every 100 ms interval and the 20 most-sampled pages.

    perf script -i perf.data -F time,addr | bench/report/perf_pages.py
"""
import collections
import sys

INTERVAL = 0.1   # seconds
PAGE_SHIFT = 12


def main():
    t0 = None
    per_interval = collections.defaultdict(set)
    counts = collections.Counter()
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 2:
            continue
        t = float(parts[0].rstrip(":"))
        page = int(parts[1], 16) >> PAGE_SHIFT
        if t0 is None:
            t0 = t
        per_interval[int((t - t0) / INTERVAL)].add(page)
        counts[page] += 1
    print("interval_end_s,distinct_pages")
    for i in range(max(per_interval) + 1 if per_interval else 0):
        print("%.1f,%d" % ((i + 1) * INTERVAL, len(per_interval.get(i, ()))))
    print("top 20 pages (address, samples):")
    for page, n in counts.most_common(20):
        print("%#x %d" % (page << PAGE_SHIFT, n))


if __name__ == "__main__":
    main()
