#!/bin/bash
# compare A B by span (memtracectl compare, memtrace-analyze compare): two
# recordings of pageramp -n 8 with --mark on touch_pages (integer label =
# pages claimed), A with 2 cycles, B with 4.  pageramp faults even page p
# once per cycle in the spans labelled p + 1 (1, 3, 5, 7), so in B the
# spans labelled 3, 5 and 7 double (4 -> 8) and so do their faults (2 -> 4),
# on the same page: touched +0 %, volume +100 %, per span 0.5 page in both.
. "$(dirname "$0")/lib.sh"
for c in 2 4; do
	"$MT" record -e page-faults --mark "$WL/pageramp:touch_pages" --mark-label int --mark-arg 2 \
		-o "$TMP/c$c.mtrace" -- "$WL/pageramp" -n 8 -c $c >/dev/null 2>"$TMP/rec.err" ||
		fail "record --mark (-c $c) failed: $(cat "$TMP/rec.err")"
done
"$MT" compare "$TMP/c2.mtrace" "$TMP/c4.mtrace" --json >"$TMP/all.json" || fail "compare failed"
"$MT" compare "$TMP/c2.mtrace" "$TMP/c4.mtrace" --span 5 --json >"$TMP/five.json" || fail "compare --span failed"
"$MT" compare "$TMP/c2.mtrace" "$TMP/c4.mtrace" --by-span >"$TMP/all.txt" || fail "compare (text) failed"
PYTHONPATH="$TOP/user/analyze" MEMTRACE_LIB="$TOP/build/libmemtrace.so" MPLBACKEND=Agg \
	$PY - "$TMP" >"$TMP/py.out" 2>&1 <<'PY' || fail "$(tail -5 "$TMP/py.out")"
import json, sys
from memtrace_analyze import cli
from memtrace_analyze.libcompare import compare
d = sys.argv[1]
r = json.load(open(d + "/all.json"))
assert (r["a_spans"], r["b_spans"]) == (32, 64), (r["a_spans"], r["b_spans"])
rows = {x["key"]: x for x in r["spans"]}
assert sorted(rows) == [str(i) for i in range(9)], sorted(rows)
for k in ("3", "5", "7"):
    x = rows[k]
    got = (x["a_spans"], x["b_spans"], x["a_samples"], x["b_samples"], x["a_touched"], x["b_touched"],
           x["volume_change"], x["touched_change"], x["a_avg_touched"], x["b_avg_touched"], x["avg_touched_change"])
    assert got == (4, 8, 2, 4, 4096, 4096, 100.0, 0.0, 2048.0, 2048.0, 0.0), (k, got)
for k in ("0", "2", "4", "6", "8"):
    assert rows[k]["a_samples"] == rows[k]["b_samples"] == 0, rows[k]
assert (rows["0"]["a_spans"], rows["0"]["b_spans"]) == (2, 4)
f = json.load(open(d + "/five.json"))
assert (f["a_samples"], f["b_samples"], f["a_spans"], f["b_spans"]) == (2, 4, 4, 8), f
assert [x["key"] for x in f["spans"]] == ["5"] and f["regions_total"]["volume_change"] == 100.0
# the Python side: the same library rows, and the figure
py = compare(d + "/c2.mtrace", d + "/c4.mtrace")
assert [(x["key"], x["a_touched"], x["b_touched"], x["a_spans"], x["b_spans"]) for x in py["spans"]] == \
    [(x["key"], x["a_touched"], x["b_touched"], x["a_spans"], x["b_spans"]) for x in r["spans"]]
assert cli.main(["compare", d + "/c2.mtrace", d + "/c4.mtrace", "--by-span", "--span", "5",
                 "-o", d + "/c.png"]) == 0
assert open(d + "/c.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"
PY
grep -qE '^  5 +4 +8 +4\.0 KiB +4\.0 KiB +\+0\.0%' "$TMP/all.txt" || fail "compare text lacks the row of label 5: $(cat "$TMP/all.txt")"
expect_error "compare needs two trace files" "$MT" compare "$TMP/c2.mtrace"
expect_error "c2.mtrace: --span SELECT: no span's label contains it" \
	"$MT" compare "$TMP/c2.mtrace" "$TMP/c4.mtrace" --span SELECT
exit 0
