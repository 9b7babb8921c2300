#!/bin/bash
# bpf backend, record --aggregate (docs/bpf-backend.md): a normal and an
# aggregated recording attached to the same pageramp see the same page
# faults; the aggregated trace's per-interval keys and counts, per-bucket
# totals and the library's WSS series equal those computed from the normal
# trace's samples on the same interval grid, and the region's page counts
# are the known ones (check_agg.py).  Then a bucket map of 64 keys: what it
# could not keep is counted (per interval samples = rows' counts + full, the
# END's lost = the sum of full), an aggregated recording in 1 s files
# (--switch-output) counts each fault once over its files, and bad option
# combinations are refused.
. "$(dirname "$0")/lib.sh"
PAGES=1024 CYCLES=4	# pageramp: 512 even pages faulted per cycle
# -g 250: cycles 250 ms apart, so no two fall in one 100 ms interval
"$WL/pageramp" -n $PAGES -c $CYCLES -g 250 -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 10 || fail "pageramp did not start"
"$MT" record --backend bpf -e page-faults -c 1 -p $wl -o "$TMP/n.mtrace" 2>"$TMP/n.err" &
rn=$!
"$MT" record --aggregate -e page-faults -c 1 -p $wl -o "$TMP/a.mtrace" 2>"$TMP/a.err" &
ra=$!
wait_file "$TMP/n.mtrace" 100 || fail "record did not start: $(cat "$TMP/n.err")"
wait_file "$TMP/a.mtrace" 100 || fail "record --aggregate did not start: $(cat "$TMP/a.err")"
kill -USR1 $wl
wait $wl || fail "pageramp failed"
wait $rn || fail "record failed: $(cat "$TMP/n.err")"
wait $ra || fail "record --aggregate failed: $(cat "$TMP/a.err")"
"$MT" dump "$TMP/n.mtrace" >"$TMP/n.csv" || fail "dump failed"
"$MT" dump --agg "$TMP/a.mtrace" >"$TMP/a.csv" || fail "dump --agg failed"
$PY "$TOP/tests/integration/check_agg.py" "$TMP/n.csv" "$TMP/a.csv" "$TMP/a.mtrace" "$TMP/wl.out" \
	$PAGES $CYCLES || fail "aggregated and normal recordings differ"
"$MT" report "$TMP/a.mtrace" | grep -q '^aggregated: counts per bucket and 100.000 ms interval' ||
	fail "report does not say the trace is aggregated"
[ "$(wc -c <"$TMP/a.mtrace")" -lt "$(wc -c <"$TMP/n.mtrace")" ] || fail "aggregated trace not smaller"

# --switch-output 1s: whole intervals per file, each fault counted once over the files
"$WL/pageramp" -n $PAGES -c 8 -g 250 -w >"$TMP/wl3.out" &
wl=$!
wait_file "$TMP/wl3.out" 10 || fail "pageramp did not start"
"$MT" record --aggregate -e page-faults -c 1 -p $wl --switch-output 1s -o "$TMP/s.mtrace" 2>"$TMP/s.err" &
rs=$!
for _ in $(seq 100); do ls "$TMP"/s.mtrace.* >/dev/null 2>&1 && break; sleep 0.05; done
sleep 0.5
kill -USR1 $wl
wait $wl || fail "pageramp failed"
wait $rs || fail "record --aggregate --switch-output failed: $(cat "$TMP/s.err")"
k=0 total=0
for f in "$TMP"/s.mtrace.*; do
	k=$((k + 1))
	"$MT" dump --agg --meta "$f" >"$TMP/s.csv" || fail "dump --agg $f failed"
	grep -qx "part=$k" "$TMP/s.csv" || fail "$f is not part $k"
	"$MT" report "$f" >/dev/null || fail "report $f failed"
	n=$(sed -n '/^# end/,$ s/^samples=//p' "$TMP/s.csv")
	[ "$(sed -n '/^# end/,$ s/^lost=//p' "$TMP/s.csv")" = 0 ] || fail "$f: lost samples"
	total=$((total + n))
done
[ $k -ge 2 ] || fail "--aggregate --switch-output 1s made $k file(s) over ~2.5 s"
[ $total = $((PAGES / 2 * 8)) ] || fail "--aggregate --switch-output: $total samples in $k files, pageramp faulted $((PAGES / 2 * 8))"

# a bucket map of 64 keys: most of a cycle's 512 pages find it full
"$MT" record --aggregate --ring 64 -e page-faults -c 1 -o "$TMP/f.mtrace" -- \
	"$WL/pageramp" -n $PAGES -c $CYCLES -g 250 >/dev/null 2>"$TMP/f.err" || fail "record failed: $(cat "$TMP/f.err")"
grep -q '^memtracectl: bpf --aggregate: [0-9]* samples counted, [1-9][0-9]* of them not kept (bucket map of 64 entries full' \
	"$TMP/f.err" || fail "no map-full line: $(cat "$TMP/f.err")"
"$MT" dump --agg --meta "$TMP/f.mtrace" >"$TMP/f.csv" || fail "dump --agg failed"
$PY - "$TMP/f.csv" $PAGES $CYCLES <<'PYEOF' || fail "map-full counts wrong"
import re, sys
text = open(sys.argv[1]).read()
pages, cycles = int(sys.argv[2]), int(sys.argv[3])
ivl = [tuple(map(int, m)) for m in re.findall(r"# interval end=(\d+) length=\d+ samples=(\d+) full=(\d+) rows=(\d+)", text)]
rows = {}
for line in text.splitlines():
    if re.match(r"\d+,\d+,0x", line):
        t, pid, addr, c = line.split(",")
        rows[int(t)] = rows.get(int(t), 0) + int(c)
end = dict(l.split("=", 1) for l in text.split("# end\n")[1].splitlines() if "=" in l)
assert ivl, "no AGG chunk"
for t, samples, full, n in ivl:
    assert n <= 64, "interval %d: %d rows in a map of 64" % (t, n)
    assert samples == rows.get(t, 0) + full, "interval %d: samples %d != kept %d + full %d" % (t, samples, rows.get(t, 0), full)
kept, full = sum(rows.values()), sum(i[2] for i in ivl)
assert int(end["samples"]) == kept and int(end["lost"]) == full > 0, (end, kept, full)
assert kept + full >= pages // 2 * cycles, "counted %d < %d region faults" % (kept + full, pages // 2 * cycles)
print("kept %d, not kept (map full) %d" % (kept, full))
PYEOF

# refused, one line each
expect_error "--aggregate needs the bpf backend" "$MT" record --aggregate --backend perf -o "$TMP/x" -- true
# $MEMTRACE_BACKEND is a default: --aggregate records with bpf (and says so);
# the option -b perf stays an error, with or without the environment
MEMTRACE_BACKEND=perf "$MT" record --aggregate -e page-faults -c 1 -o "$TMP/e.mtrace" -- \
	"$WL/pageramp" -n 64 -c 1 -g 0 >/dev/null 2>"$TMP/e.err" || fail "MEMTRACE_BACKEND=perf --aggregate failed: $(cat "$TMP/e.err")"
grep -qx 'memtracectl: --aggregate records with the bpf backend ($MEMTRACE_BACKEND=perf is not used)' "$TMP/e.err" ||
	fail "no note on MEMTRACE_BACKEND: $(cat "$TMP/e.err")"
"$MT" dump --agg --meta "$TMP/e.mtrace" | grep -qx 'backend=bpf' ||
	fail "MEMTRACE_BACKEND=perf --aggregate not recorded by bpf"
MEMTRACE_BACKEND=bpf expect_error "--aggregate needs the bpf backend" "$MT" record --aggregate -b perf -o "$TMP/x" -- true
expect_error "invalid --aggregate interval" "$MT" record --aggregate=0 -o "$TMP/x" -- true
expect_error "--mark needs a recording without it" "$MT" record --aggregate --mark /bin/true:main -o "$TMP/x" -- true
expect_error "no samples to dump" "$MT" dump "$TMP/a.mtrace"
expect_error "multiples of its interval" "$MT" report --window 150ms "$TMP/a.mtrace"
expect_error "--per-process needs a recording without --aggregate" "$MT" report --per-process "$TMP/a.mtrace"
expect_error "smaller than the aggregated trace" "$MT" report --bucket 1K "$TMP/a.mtrace"
expect_error "a region table (--regions, compare) needs a recording without --aggregate" "$MT" compare "$TMP/a.mtrace" "$TMP/a.mtrace"
echo ok
