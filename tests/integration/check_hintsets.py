"""Checks a hint-faults recording of the hintsets workload.

usage: check_hintsets.py DUMP_CSV META WORKLOAD_LINE

Set A (read by two threads all along): every page has exactly one first
touch, and >= 90 % of its pages have a hint fault within three scan periods
of the first hint fault in A.  Set B (written once): one first touch per
page.  Set C (never touched): no sample at all.
"""
import sys

KIND_FIRST, KIND_HINT = 1, 2


def main():
    csv_path, meta_path, line = sys.argv[1], sys.argv[2], sys.argv[3]
    f = dict(kv.split("=", 1) for kv in line.split())
    a, b, c = (int(f[k], 16) for k in ("A", "B", "C"))
    n, page = int(f["pages"]), int(f["page_size"])
    meta = dict(l.rstrip("\n").split("=", 1) for l in open(meta_path) if "=" in l)
    period = int(meta.get("scan_period_ms", "1000")) * 1000000
    first = {"A": {}, "B": {}, "C": {}}
    hints = {"A": {}, "B": {}, "C": {}}
    in_c = 0
    with open(csv_path) as fh:
        next(fh)
        for row in fh:
            t, _pid, _tid, _cpu, addr, _ip, _w, src = row.split(",")
            addr, kind, t = int(addr, 16), int(src, 16) >> 56, int(t)
            pg = addr // page * page
            s = "A" if a <= pg < a + n * page else "B" if b <= pg < b + n * page else \
                "C" if c <= pg < c + n * page else None
            if s is None:
                continue
            if s == "C":
                in_c += 1
            d = first[s] if kind == KIND_FIRST else hints[s] if kind == KIND_HINT else None
            if d is not None:
                d.setdefault(pg, []).append(t)
    errs = []
    if in_c:
        errs.append("%d samples in the never-touched set C" % in_c)
    for s in "AB":
        if len(first[s]) != n or any(len(v) != 1 for v in first[s].values()):
            errs.append("set %s: %d pages with a first touch (want %d, one each)" % (s, len(first[s]), n))
    if hints["B"]:
        errs.append("set B (touched once) has %d pages with hint faults" % len(hints["B"]))
    if not hints["A"]:
        errs.append("no hint fault in set A")
    else:
        t0 = min(min(v) for v in hints["A"].values())
        seen = sum(1 for v in hints["A"].values() if min(v) <= t0 + 3 * period)
        print("set A: %d of %d pages hint-faulted within 3 scan periods (%d ms) of the first; "
              "%d in all" % (seen, n, 3 * period // 1000000, len(hints["A"])))
        if seen < 0.9 * n:
            errs.append("set A: only %d of %d pages within three scan periods" % (seen, n))
    if errs:
        sys.exit("; ".join(errs))


main()
