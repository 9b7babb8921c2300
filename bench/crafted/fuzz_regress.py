#!/usr/bin/python3
"""Every memtracectl and memtrace-analyze verb (tests/analyze/crafted.py's
lists) on each committed fuzz regression input of at most 1 KB
(tests/fuzz/regress/*/*), one process each under a 2 GB address-space
limit and a 120 s timeout: wall time and peak RSS, and every (input, verb)
past LIMIT_S seconds (default 1) or LIMIT_MB MB (default 100).  Inputs that
are not traces are refused by every verb with a one-line error; that is
measured too.  memtrace-analyze figures include the interpreter (its
`--help` is measured once as "analyze startup"); a second figure per
analyze verb is its time inside one process with the interpreter loaded
(crafted.run_analyze), which is what the library and the plotting cost.

usage: fuzz_regress.py       (docs/performance.md, "Cost bounded by what the trace holds")
"""
import glob
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "analyze"))

import crafted  # noqa: E402


def main():
    lim_s = float(os.environ.get("LIMIT_S", "1"))
    lim_mb = float(os.environ.get("LIMIT_MB", "100"))
    inputs = sorted(p for p in glob.glob(os.path.join(TOP, "tests", "fuzz", "regress", "*", "*"))
                    if os.path.isfile(p) and os.path.getsize(p) <= 1024)
    over, worst, n = [], {}, 0
    with tempfile.TemporaryDirectory() as d:
        other = crafted.write_all(d)["one-sample"]
        rc, _, _, secs, rss = crafted.run_measured([crafted.PY, crafted.ANALYZE, "--help"], 2 << 30, 120)
        print("analyze startup (--help): %.2f s, %.1f MB" % (secs, rss / 1e6))
        for path in inputs:
            name = os.path.relpath(path, os.path.join(TOP, "tests", "fuzz", "regress"))
            runs = crafted.verbs(path, other, d) + \
                [(label, [crafted.PY, crafted.ANALYZE] + argv) for label, argv in crafted.analyze_verbs(path, d)]
            inproc = crafted.run_analyze(crafted.analyze_verbs(path, d), 2 << 30, 300)
            net = {row[0]: row[3] for row in inproc[0]} if inproc else {}
            for label, argv in runs:
                rc, _, err, secs, rss = crafted.run_measured(argv, 2 << 30, 120)
                n += 1
                status = "ok" if rc == 0 else "timeout" if rc is None else "exit %s" % rc
                w = worst.setdefault(label, [0, "", 0, "", 0, set()])
                if secs > w[0]:
                    w[0], w[1] = secs, name
                if rss > w[2]:
                    w[2], w[3] = rss, name
                w[4] = max(w[4], net.get(label, 0))
                w[5].add(status)
                if rc is None or secs > lim_s or rss > lim_mb * 1e6:
                    over.append((name, label, secs, rss, net.get(label), status))
    print("%d inputs <= 1 KB, %d runs" % (len(inputs), n))
    print("%-22s %7s  %-34s %7s  %-34s %9s  %s" % ("verb", "max s", "(input)", "max MB", "(input)",
                                                  "in-proc s", "exits"))
    for label, (s, sn, r, rn, ns, rcs) in worst.items():
        print("%-22s %7.2f  %-34s %7.1f  %-34s %9s  %s" % (label, s, sn, r / 1e6, rn,
                                                          "%.2f" % ns if ns else "-", ",".join(sorted(rcs))))
    print("past %.3g s or %.3g MB: %d" % (lim_s, lim_mb, len(over)))
    for name, label, secs, rss, ns, status in over:
        print("  %-34s %-22s %6.2f s %7.1f MB  in-proc %s  %s" % (
            name, label, secs, rss / 1e6, "%.2f s" % ns if ns is not None else "-", status))


if __name__ == "__main__":
    main()
