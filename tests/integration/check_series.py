#!/usr/bin/python3
"""Checks a `report --series` CSV of pageramp against its known structure.

usage: check_series.py SERIES.csv DUMP.csv START WINDOW INTERVAL PER_CYCLE CYCLES
The cycles are separated by idle gaps longer than WINDOW + 2 * INTERVAL, so
every cycle's faults form one group of non-zero rows.  With WINDOW = m *
INTERVAL each fault is counted in exactly m rows (fewer at the very end of
the series, which stops at the last sample): the test computes that
shortfall from the sample times and checks every sum exactly.
The CSV is sparse (a row per interval whose window holds a sample): the test
checks that exactly those intervals have rows and treats the others as 0.
CYCLES 0: the grouping into cycles is not checked (a guest too slow for its
idle gaps to show: tests/kernel/debug-suite.sh).
"""
import csv
import sys


def main():
    series, dump = sys.argv[1], sys.argv[2]
    start, window, interval, per_cycle, cycles = map(int, sys.argv[3:8])
    m = window // interval
    assert m * interval == window
    sparse = [(int(r["time"]), int(r["wss_data"])) for r in csv.DictReader(open(series))]
    times = [int(r["time"]) - start for r in csv.DictReader(open(dump))]
    last_k = (times[-1] + interval - 1) // interval
    # the CSV is sparse: one row per interval k whose window holds a sample
    # (docs/memtracectl.md); the intervals it leaves out have WSS 0
    if any(t % interval or t <= 0 for t, _ in sparse):
        sys.exit("row times are not k * interval")
    if [t for t, _ in sparse] != sorted({t for t, _ in sparse}):
        sys.exit("row times are not ascending and distinct")
    have = {k: False for k in range(1, last_k + 1)}
    for s in times:	# the intervals whose window (k T - window, k T] holds s
        first = (s + interval - 1) // interval
        for k in range(max(first, 1), min(first + m, last_k + 1)):
            have[k] = True
    want_ks = [k for k in range(1, last_k + 1) if have[k]]
    if [t // interval for t, _ in sparse] != want_ks:
        sys.exit(f"{len(sparse)} rows at k {[t // interval for t, _ in sparse][:8]}..., want "
                 f"{len(want_ks)} at {want_ks[:8]}... (the intervals whose window holds a sample, "
                 f"up to the last sample's)")
    by_k = dict((t // interval, v) for t, v in sparse)
    rows = [(k * interval, by_k.get(k, 0)) for k in range(1, last_k + 1)]
    # counted rows per sample: k with s <= k*T < s + window, k <= last_k
    want_total = 0
    for s in times:
        first = (s + interval - 1) // interval
        want_total += max(0, min(first + m, last_k + 1) - first)
    total = sum(v for _, v in rows)
    if len(times) == per_cycle * cycles and total != want_total:
        sys.exit(f"sum of WSS rows {total}, want {want_total}")
    groups, cur = [], 0
    for _, v in rows:
        if v:
            cur += v
        elif cur:
            groups.append(cur)
            cur = 0
    if cur:
        groups.append(cur)
    if cycles == 0:
        return
    if len(groups) != cycles:
        sys.exit(f"{len(groups)} groups of non-zero rows, want {cycles}: {groups}")
    if any(g != per_cycle * m for g in groups[:-1]):
        sys.exit(f"group sums {groups}, want {per_cycle * m} each")
    if max(v for _, v in rows) > per_cycle:
        sys.exit(f"a row exceeds {per_cycle}")


if __name__ == "__main__":
    main()
