"""check_mark_usdt.py SPANS.JSON ROUNDS: report --by-span --json of
`usdtspans -r ROUNDS` recorded at page faults with --mark
BIN:phase__start (USDT, string label; ends at phase__done).  Per round the
phases "scan 8" (8 fresh pages written), "scan 16" (16) and "idle" (none),
after one "warm": spans as called, and every span's own distinct pages
exact (a retried fault may count twice: <= 2 more samples in all).  Prints one
summary line; exits 1 with the reason.  Used by tests/integration/mark_errors.sh
(host) and tests/suites.d/56-allocs-guest.sh (the Debian 6.12 guest)."""
import json
import sys


def check(path, rounds):
    r = json.load(open(path))
    g = {x["label"]: x for x in r["by_span"]}
    assert {k: v["spans"] for k, v in g.items()} == {"warm": 1, "scan 8": rounds, "scan 16": rounds,
                                                     "idle": rounds}, g
    assert r["spans"] == 1 + 3 * rounds, r["spans"]
    for label, pages in (("scan 8", 8), ("scan 16", 16)):
        x = g[label]
        assert pages * rounds <= x["samples"] <= pages * rounds + 2, (label, x)
        assert (x["avg_buckets"], x["max_buckets"]) == (pages, pages), (label, x)
    assert g["idle"]["samples"] == 0, g["idle"]
    return "%d spans from USDT probes as called; faults per round in scan 8 / scan 16: %s / %s" % (
        r["spans"], g["scan 8"]["samples"] / rounds, g["scan 16"]["samples"] / rounds)


if __name__ == "__main__":
    try:
        print(check(sys.argv[1], int(sys.argv[2])))
    except (AssertionError, OSError, ValueError, KeyError, IndexError) as e:
        print("check_mark_usdt: %r" % (e,))
        sys.exit(1)
