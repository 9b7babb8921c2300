#!/usr/bin/python3
"""Exact checks of a page-fault recording of pageramp (tests/workloads/pageramp.c).

usage: check_pageramp.py DUMP.csv WORKLOAD.out PAGES CYCLES
Every cycle faults the even pages 0, 2, ..., PAGES-2 once each, ascending,
from the workload's only thread.  Prints nothing and exits 0 when the dump
holds exactly that (in the region) and nothing else.
"""
import csv
import re
import sys


def main():
    dump, out, pages, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    m = re.search(r"base=(0x[0-9a-f]+) .* tid=(\d+) page_size=(\d+)", open(out).read())
    base, tid, page = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
    rows = list(csv.DictReader(open(dump)))
    region = [r for r in rows if base <= int(r["addr"], 16) < base + pages * page]
    others = len(rows) - len(region)
    if others:
        out = [f'{r["addr"]}@{r["ip"]}' for r in rows if r not in region][:5]
        sys.exit(f"{others} samples outside the pageramp region (addr@ip: {' '.join(out)})")
    got = [(int(r["addr"], 16) - base) // page for r in region]
    want = list(range(0, pages, 2)) * cycles
    if got != want:
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        sys.exit(f"page sequence differs at sample {first}: {len(got)} samples, want {len(want)}")
    exact = [r for r in region if int(r["addr"], 16) % page == 0]
    if len(exact) != len(region):
        sys.exit("fault addresses are not the touched addresses (page starts)")
    bad = [r for r in region if int(r["tid"]) != tid or int(r["pid"]) != tid]
    if bad:
        sys.exit(f"{len(bad)} samples with a wrong pid/tid (want {tid})")
    times = [int(r["time"]) for r in region]
    if times != sorted(times):
        sys.exit("sample times go backwards")


if __name__ == "__main__":
    main()
