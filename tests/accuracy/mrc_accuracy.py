#!/usr/bin/python3
"""mrc_accuracy.py - how close the miss-ratio curve estimated from sampled
traces comes to the exact one (docs/sizing.md; `make accuracy` fixtures).

For each fixture's exact trace (valgrind, -c 1; tests/accuracy/accuracy.py
records and caches them in build/accuracy/v2), the exact curve is checked
against an OrderedDict LRU run over the trace's own samples (the same test
as mrc_ref.py, on the fixtures), then the trace is thinned as accuracy.py
does (every N-th, or random gaps in [N/2, 3N/2]) and the estimated curve is
compared with the exact one at the exact curve's sizes:

    mrc_accuracy.py [--fixtures dbquery,sort] [--periods 100] [--modes random]

Prints a markdown table: per fixture and N, the largest and the mean
|estimate - exact| over the sizes, the share of sizes whose 95 % interval
holds the exact value, and the sizes within 0.05.
"""
import argparse
import os
import sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import accuracy  # noqa: E402
from accuracy import lib  # noqa: E402
from mrc_ref import distances  # noqa: E402


def lru_miss(buckets, sizes):
    """Miss ratios at sizes by an OrderedDict LRU (mrc_ref.distances)."""
    hist, _, _ = distances(buckets)
    ds = np.array(sorted(hist), dtype=np.int64)
    cum = np.cumsum([hist[d] for d in ds]) if ds.size else np.zeros(0)
    n = len(buckets)
    out = []
    for c in sizes:
        i = np.searchsorted(ds, c, side="right")
        out.append(1 - (cum[i - 1] if i else 0) / n)
    return np.array(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default="pageramp,dbquery,sort")
    ap.add_argument("--periods", default="100")
    ap.add_argument("--modes", default="random,fixed")
    ap.add_argument("--no-lru", action="store_true", help="skip the OrderedDict check of the exact curves")
    a = ap.parse_args()
    rows = []
    for name in a.fixtures.split(","):
        exact = accuracy.exact_trace(name)
        tr = lib.Trace(exact)
        cols = tr.read(("time", "addr", "pid", "tid", "cpu", "ip"))
        tr.close()
        ex = lib.report(exact, flags=lib.REPORT_MRC)["mrc"]
        sizes = ex["bytes"]
        if not a.no_lru:
            ref = lru_miss((cols["addr"] >> 12).tolist(), (sizes // 4096).tolist())
            print("%s: exact curve vs OrderedDict LRU (%d references, %d sizes): largest |diff| %.2g"
                  % (name, cols["addr"].size, sizes.size, np.abs(ref - ex["miss_ratio"]).max()), file=sys.stderr)
        for period in [int(p) for p in a.periods.split(",")]:
            for mode in a.modes.split(","):
                path = accuracy.sampled_trace(exact, cols, name, period, mode)
                rep = lib.report(path, flags=lib.REPORT_MRC, mrc_sizes=sizes.tolist())
                os.unlink(path)
                at = rep["mrc_at"]
                est = np.array([at[int(b)][0] for b in sizes])
                lo = np.array([at[int(b)][1] for b in sizes])
                hi = np.array([at[int(b)][2] for b in sizes])
                err = np.abs(est - ex["miss_ratio"])
                cover = np.mean((lo <= ex["miss_ratio"] + 1e-12) & (ex["miss_ratio"] <= hi + 1e-12))
                rows.append((name, ex["references"], ex["footprint"], period, mode, rep["mrc"]["references"],
                             err.max(), err.mean(), np.mean(err <= 0.05), cover,
                             sizes[int(np.argmax(err))]))
    print("| fixture (references, footprint pages) | N | period | samples | max \\|err\\| | mean \\|err\\| | "
          "sizes within 0.05 | interval covers | worst at |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s (%d, %d) | %d | %s | %d | %.3f | %.3f | %.0f %% | %.0f %% | %s |" % (
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], 100 * r[8], 100 * r[9], lib_fmt(r[10])))
    return 0


def lib_fmt(b):
    b = int(b)
    return "%d KiB" % (b // 1024) if b < 1 << 20 else "%.1f MiB" % (b / 1048576)


if __name__ == "__main__":
    sys.exit(main())
