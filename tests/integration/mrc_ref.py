#!/usr/bin/python3
"""mrc_ref.py - independent miss-ratio curve from a valgrind lackey log.

Reads the lackey log itself (lackey_ref.parse_log: L, S and M one data
reference each, in log order; no memtrace code), runs an LRU cache as a
collections.OrderedDict (most recent last) and records each reference's
stack distance: its depth from the most-recent end (a first reference:
infinite).  A cache of c buckets misses the references of distance > c.
Then compares with `memtracectl report --mrc --json` at every point of its
curve and at --for-size sizes:

  mrc_ref.py LOG REPORT.json --bucket B [--tolerance 0.005]

Exits 1 with the first size that differs by more than the tolerance (or a
report that is not exact, or has < 64 points when the footprint allows).
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lackey_ref import parse_log  # noqa: E402


def distances(buckets):
    """hist {distance: references}, and the cold (first) references."""
    lru = OrderedDict()
    hist, cold = {}, 0
    for b in buckets:
        if b in lru:
            d = 1
            for k in reversed(lru):     # from the most recent
                if k == b:
                    break
                d += 1
            hist[d] = hist.get(d, 0) + 1
            lru.move_to_end(b)
        else:
            cold += 1
            lru[b] = True
    return hist, cold, len(lru)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("report")
    ap.add_argument("--bucket", type=int, required=True)
    ap.add_argument("--tolerance", type=float, default=0.005)
    a = ap.parse_args()
    acc = parse_log(a.log, 1)
    hist, cold, footprint = distances([addr // a.bucket for _, addr, _ in acc])
    n = len(acc)
    dist = sorted(hist)

    def miss(c):
        return 1 - sum(hist[d] for d in dist if d <= c) / n

    rep = json.load(open(a.report))
    info, curve = rep["mrc_info"], rep["mrc"]
    why = []
    if info["method"] != "exact":
        why.append("method %s, not exact" % info["method"])
    if info["references"] != n or info["cold"] != cold or info["footprint"] != footprint:
        why.append("references/cold/footprint %d/%d/%d, reference %d/%d/%d" % (
            info["references"], info["cold"], info["footprint"], n, cold, footprint))
    if len(curve) < min(64, footprint) or curve[0]["bytes"] != a.bucket or \
            curve[-1]["bytes"] != footprint * a.bucket:
        why.append("%d points from %d to %d bytes" % (len(curve), curve[0]["bytes"], curve[-1]["bytes"]))
    worst = 0.0
    for p in curve:
        ref = miss(p["bytes"] // a.bucket)
        worst = max(worst, abs(p["miss_ratio"] - ref))
        if abs(p["miss_ratio"] - ref) > a.tolerance:
            why.append("at %d bytes: miss ratio %.6f, reference %.6f" % (p["bytes"], p["miss_ratio"], ref))
            break
    fs = info.get("for_size")
    if fs and abs(fs["hit_ratio"] - (1 - miss(fs["bytes"] // a.bucket))) > a.tolerance:
        why.append("for_size %d: hit ratio %.6f, reference %.6f" % (
            fs["bytes"], fs["hit_ratio"], 1 - miss(fs["bytes"] // a.bucket)))
    if why:
        print("; ".join(why))
        return 1
    print("%d references, %d buckets, %d points: largest difference %.2g" % (n, footprint, len(curve), worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
