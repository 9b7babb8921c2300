#!/bin/bash
# record --mark on a function (uprobe at entry, uretprobe at return) with an
# integer label, exact span counts on pageramp; a USDT pair of usdtspans; and the one-line errors of
# --mark and --labels.
. "$(dirname "$0")/lib.sh"

# pageramp -n 8 -c 2 calls touch_pages(region, page, claimed) with claimed
# 1..8 then 7..0 in each cycle: labels "0" and "8" twice, "1".."7" four
# times.  It faults even page p when claimed = p + 1 first reaches it (the
# down phase drops pages it no longer touches): once per cycle in the spans
# labelled 1, 3, 5 and 7.
"$MT" record -e page-faults --mark "$WL/pageramp:touch_pages" --mark-label int --mark-arg 2 \
	-o "$TMP/ramp.mtrace" -- "$WL/pageramp" -n 8 -c 2 >/dev/null 2>"$TMP/rec.err" ||
	fail "record --mark failed: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/ramp.mtrace" --by-span --json >"$TMP/ramp.json" || fail "report failed"
$PY "$TOP/tests/integration/check_mark_ramp.py" "$TMP/ramp.json" >"$TMP/check.out" ||
	fail "$(cat "$TMP/check.out")"

# span times in 64 ns grains by default (start rounded down, end up: every
# stored time a multiple of 64), exact with --mark-grain 1; the same spans
"$MT" record -e page-faults --mark "$WL/pageramp:touch_pages" --mark-label int --mark-arg 2 \
	--mark-grain 1 -o "$TMP/exact.mtrace" -- "$WL/pageramp" -n 8 -c 2 >/dev/null 2>"$TMP/rec.err" ||
	fail "record --mark-grain 1 failed: $(cat "$TMP/rec.err")"
PYTHONPATH="$TOP/user/analyze" MEMTRACE_LIB="$TOP/build/libmemtrace.so" \
	$PY - "$TMP/ramp.mtrace" "$TMP/exact.mtrace" >"$TMP/grain.out" 2>&1 <<'PY' || fail "$(tail -5 "$TMP/grain.out")"
import sys
from memtrace_analyze.lib import Trace
def spans(path):
    with Trace(path) as t:
        return [(s[0], s[1], s[4]) for s in t.spans()]
g, e = spans(sys.argv[1]), spans(sys.argv[2])
assert len(g) == len(e) == 32, (len(g), len(e))
assert all(a % 64 == 0 and b % 64 == 0 and b >= a for a, b, _ in g), g[:4]
assert sum(a % 64 != 0 for a, _, _ in e) > 16, e[:4]   # exact: nearly never on the grain
assert sorted(x[2] for x in g) == sorted(x[2] for x in e)
PY

# a USDT probe pair of a test binary (usdtspans: SDT notes, string labels)
"$MT" record -e page-faults --mark "$WL/usdtspans:phase__start" -o "$TMP/usdt.mtrace" -- \
	"$WL/usdtspans" -r 3 >/dev/null 2>"$TMP/rec.err" || fail "record --mark (USDT) failed: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/usdt.mtrace" --by-span --json >"$TMP/usdt.json" || fail "report failed"
$PY "$TOP/tests/integration/check_mark_usdt.py" "$TMP/usdt.json" 3 >"$TMP/check.out" ||
	fail "$(cat "$TMP/check.out")"

printf '0x1000 4096 fine\n# c\n0x2000 0 zero\n' >"$TMP/bad.labels"
expect_error "$TMP/bad.labels:3: size is 0" "$MT" record --labels "$TMP/bad.labels" -- true
expect_error "cannot open labels file $TMP/none" "$MT" record --labels "$TMP/none" -- true
expect_error "$TMP/bad.labels:3: size is 0" "$MT" report "$TMP/ramp.mtrace" --labels "$TMP/bad.labels"
expect_error "--mark: no binary 'nosuchbinary'" "$MT" record --mark nosuchbinary:f -- true
expect_error "expected BINARY:PROBE, BINARY:PROVIDER:PROBE or START,END" \
	"$MT" record --mark justaname -- true
expect_error "has no USDT probe nosuch:probe" "$MT" record --mark "$WL/pageramp:nosuch:probe" -- true
expect_error "cannot attach to no_such_function" "$MT" record -e page-faults \
	--mark "$WL/pageramp:no_such_function" -- "$WL/pageramp" -n 2 -c 1
expect_error "--mark-label, --mark-arg and --mark-grain need --mark" "$MT" record --mark-label int -- true
expect_error "--mark-label, --mark-arg and --mark-grain need --mark" "$MT" record --mark-grain 1 -- true
expect_error "invalid --mark-grain '48ns' (a power of two of ns, 1 to 2^31)" "$MT" record \
	--mark "$WL/pageramp:touch_pages" --mark-grain 48ns -- true
expect_error "invalid --mark-label 'x'" "$MT" record --mark "$WL/pageramp:touch_pages" --mark-label x -- true
expect_error "invalid --mark-arg '9'" "$MT" record --mark "$WL/pageramp:touch_pages" --mark-arg 9 -- true
expect_error "--mark needs the perf, bpf or module backend" "$MT" record -b valgrind \
	--mark "$WL/pageramp:touch_pages" -- "$WL/pageramp" -n 2 -c 1
expect_error "--span UPDATE: no span's label contains it (32 spans in the trace)" \
	"$MT" report "$TMP/ramp.mtrace" --span UPDATE
exit 0
