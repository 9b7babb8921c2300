#!/bin/bash
# pageramp recorded with -p and the page-fault source at period 1: exact
# addresses, order and tid; WSS series with tau = T, tau = 2T and other buckets.
. "$(dirname "$0")/lib.sh"
PAGES=1024 CYCLES=10
"$WL/pageramp" -n $PAGES -c $CYCLES -g 100 -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 10 || fail "pageramp did not start"
"$MT" record -p $wl -e page-faults -c 1 -o "$TMP/t.mtrace" 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/t.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" dump "$TMP/t.mtrace" >"$TMP/dump.csv" || fail "dump failed"
$PY "$TOP/tests/integration/check_pageramp.py" "$TMP/dump.csv" "$TMP/wl.out" $PAGES $CYCLES || exit 1
start=$("$MT" dump --meta "$TMP/t.mtrace" | sed -n 's/^start_time=//p')
for spec in "20ms 20ms 4K 20000000 20000000 512" "40ms 20ms 4K 40000000 20000000 512" \
	    "20ms 20ms 8K 20000000 20000000 512"; do
	set -- $spec
	"$MT" report "$TMP/t.mtrace" --window $1 --interval $2 --bucket $3 --series "$TMP/s.csv" >/dev/null ||
		fail "report $spec failed"
	$PY "$TOP/tests/integration/check_series.py" "$TMP/s.csv" "$TMP/dump.csv" "$start" $4 $5 $6 $CYCLES ||
		fail "series with window $1 interval $2 bucket $3"
done
for spec in "64 512" "4K 512" "8K 512" "16K 256" "32K 128"; do
	set -- $spec
	"$MT" report "$TMP/t.mtrace" --bucket $1 --json >"$TMP/b.json" || fail "report --bucket $1"
	$PY -c "import json,sys; t=json.load(open('$TMP/b.json'))['wss_data']['total']; sys.exit(0 if t == $2 else f'bucket $1: {t} buckets, want $2')" || exit 1
done
"$MT" report "$TMP/t.mtrace" --json >"$TMP/r.json" || fail "report --json failed"
$PY - "$TMP/r.json" <<'PY' || exit 1
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["samples"] == 5120, r["samples"]
assert r["wss_data"]["total"] == 512, r["wss_data"]
assert r["complete"] and r["end_reason"] == "target-exited", r["end_reason"]
assert r["source"] == "page-faults" and r["backend"] == os.environ.get("MEMTRACE_BACKEND", "perf"), r["backend"]
assert [h["count"] for h in r["hot_data"]] == [10] * 10
PY
# every fault comes from the one store in touch_pages: each hot data bucket
# is "accessed by" touch_pages alone, and its code page runs only that
"$MT" report "$TMP/t.mtrace" -n 3 >"$TMP/r.txt" || fail "report failed"
$PY - "$TMP/r.json" "$TMP/r.txt" <<'PY' || exit 1
import json, re, sys
r = json.load(open(sys.argv[1]))
for h in r["hot_data"]:
    assert h["ip_samples"] == 10, h
    assert h["functions"] == [{"name": "touch_pages", "count": 10}], h
    assert len(h["ips"]) == 1 and h["ips"][0]["location"].startswith("touch_pages+0x"), h
code = r["hot_code"][0]
assert code["count"] == 5120 and code["functions"] == [{"name": "touch_pages", "count": 5120}], code
assert code["location"].startswith("pageramp+0x") and " " not in code["location"], code
text = open(sys.argv[2]).read()
rows = re.findall(r"^ +10  0x[0-9a-f]{16}  \[anon\]\+0x[0-9a-f]+  \[touch_pages 100 %\]$", text, re.M)
assert len(rows) == 3, text
assert re.search(r"^ +5120  0x[0-9a-f]{16}  pageramp\+0x[0-9a-f]+  \[touch_pages 100 %\]$", text, re.M), text
PY
