"""check_mark_ramp.py RAMP.JSON: report --by-span --json of `pageramp -n 8 -c 2`
recorded at page faults with --mark BIN:touch_pages --mark-label int
--mark-arg 2.  pageramp calls touch_pages(region, page, claimed) with claimed
1..8 then 7..0 in each cycle: labels "0" and "8" twice, "1".."7" four times.
It faults even page p when claimed = p + 1 first reaches it: once per cycle in
the spans labelled 1, 3, 5 and 7.  Prints one summary line; exits 1 with the
reason.  Used by tests/integration/mark_errors.sh (host) and
tests/suites.d/56-allocs-guest.sh (the Debian 6.12 guest)."""
import json
import sys


def check(path):
    r = json.load(open(path))
    g = {x["label"]: x for x in r["by_span"]}
    spans = {k: v["spans"] for k, v in g.items()}
    want = {"0": 2, "8": 2, **{str(i): 4 for i in range(1, 8)}}
    assert spans == want, spans
    assert r["spans"] == 32, r["spans"]
    for k in ("3", "5", "7"):   # one fault per cycle on one page
        assert (g[k]["samples"], g[k]["buckets"], g[k]["max_buckets"]) == (2, 1, 1), g[k]
        assert g[k]["avg_buckets"] == 0.5, g[k]
    # label 1: page 0 in both cycles, and the first call may fault its own text page
    assert g["1"]["samples"] in (2, 3) and g["1"]["buckets"] in (1, 2), g["1"]
    for k in ("0", "2", "4", "6", "8"):
        assert g[k]["samples"] == 0, g[k]
    return "32 spans in 9 labels as called; faults in spans 1/3/5/7: %s" % (
        "/".join(str(g[k]["samples"]) for k in ("1", "3", "5", "7")))


if __name__ == "__main__":
    try:
        print(check(sys.argv[1]))
    except (AssertionError, OSError, ValueError, KeyError) as e:
        print("check_mark_ramp: %r" % (e,))
        sys.exit(1)
