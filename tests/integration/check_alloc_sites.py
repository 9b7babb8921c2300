"""check_alloc_sites.py S.JSON WL.OUT [S.TXT] [--tag TAG]: report --by-site of an
allocsites recording (record -c 1 --allocs --alloc-rate 1, page faults): every
fault the workload made in a block is charged to exactly that block's site
(a retried fault may count twice: <= 2 more), the sizes, blocks and files as
allocsites made them, hot rows carry their sites.  Prints one summary line;
exits 1 with the reason.  Used by tests/integration/alloc_sites.sh (host) and
tests/suites.d/56-allocs-guest.sh (the Debian 6.12 guest)."""
import json
import sys

SIZE = {"make_matrix": 256 << 10, "make_vector": 640 << 10, "make_scratch": 256 << 10,
        "ht_buckets": 512 << 10, "ht_entries": 128 << 10, "ht_grow": 512 << 10, "map_table": 256 << 10}


def check(report, wl_out, text=None):
    r = json.load(open(report))
    want = {}
    for line in open(wl_out):
        f = line.split()
        if f and f[0] == "expect":
            want[f[1]] = int(f[2])
        elif f and f[0] == "reuse":
            assert f[1] == "1", "the scratch buffer did not reuse the matrix's address"
    sites = {s["function"]: s for s in r["sites"] if s["function"] in want}
    assert set(sites) == set(want), (sorted(sites), sorted(want))
    for fn, n in want.items():
        s = sites[fn]
        assert n <= s["samples"] <= n + 2, f"{fn}: {s['samples']} faults charged, want {n}"
        assert s["file"].endswith("allocsites.c") and s["line"] > 0, s
        assert s["blocks"] == 1 and s["est_blocks"] == 1 and s["freed"] == 1 and s["live"] == 0, s
        assert s["name"].startswith(fn + " (allocsites.c:"), s["name"]
    for fn, b in SIZE.items():
        assert sites[fn]["bytes"] == b, (fn, sites[fn]["bytes"], b)
    extra = r["attributed"] - sum(s["samples"] for s in sites.values())
    assert extra <= 2 * len(want), f"{extra} faults charged to other sites"
    hot = [h for h in r["hot_data"] if h["site"]]
    assert hot and all(h["site"].split()[0] in want for h in hot), r["hot_data"]
    if text:
        t = open(text).read()
        assert "make_scratch (allocsites.c:" in t and "charged to a recorded block" in t, t
    return "%d sites, %d faults charged as the workload counted (%s)" % (
        len(want), sum(s["samples"] for s in sites.values()),
        " ".join("%s=%d" % (fn, sites[fn]["samples"]) for fn in sorted(want)))


if __name__ == "__main__":
    try:
        print(check(*sys.argv[1:4]))
    except (AssertionError, OSError, ValueError, KeyError) as e:
        print("check_alloc_sites: %r" % (e,))
        sys.exit(1)
