#!/usr/bin/python3
"""Every memtracectl and memtrace-analyze verb on each crafted trace of
tests/analyze/crafted.py (<= 1 KB, timestamps, addresses or sample counts
claiming far more than the file holds), one process each under a 2 GB
address-space limit: the largest wall time and peak RSS per verb over the
traces, and which trace it was.  memtrace-analyze figures include the
interpreter with numpy and matplotlib (about 60 MB, 1-3 s on a loaded
machine); "analyze --version"-like startup is listed as its own row.

usage: bench_crafted.py
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "analyze"))

import crafted  # noqa: E402


def main():
    worst = {}
    with tempfile.TemporaryDirectory() as d:
        traces = crafted.write_all(d)
        for name, path in traces.items():
            runs = crafted.verbs(path, traces["one-sample"], d) + \
                [(label, [crafted.PY, crafted.ANALYZE] + argv) for label, argv in crafted.analyze_verbs(path, d)]
            runs.append(("analyze startup (--help)", [crafted.PY, crafted.ANALYZE, "--help"]))
            for label, argv in runs:
                rc, out, err, secs, rss = crafted.run_measured(argv, 2 << 30, 120)
                w = worst.setdefault(label, [0, "", 0, "", set()])
                if secs > w[0]:
                    w[0], w[1] = secs, name
                if rss > w[2]:
                    w[2], w[3] = rss, name
                w[4].add("ok" if rc == 0 else "timeout" if rc is None else "exit %s" % rc)
    print("%-26s %8s  %-14s %8s  %-14s %s" % ("verb", "max s", "(trace)", "max MB", "(trace)", "exits"))
    for label, (s, sn, r, rn, rcs) in worst.items():
        print("%-26s %8.2f  %-14s %8.1f  %-14s %s" % (label, s, sn, r / 1e6, rn, ",".join(sorted(rcs))))


if __name__ == "__main__":
    main()
