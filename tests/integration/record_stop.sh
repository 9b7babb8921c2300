#!/bin/bash
# --duration and SIGINT/SIGTERM end a recording with a complete file; kill -9
# of the recorder leaves a file whose complete chunks still read back.
. "$(dirname "$0")/lib.sh"
sleep 30 &
victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$TMP"' EXIT
timeout 20 "$MT" record -p $victim --duration 0.5 -o "$TMP/d.mtrace" 2>/dev/null || fail "--duration record failed"
"$MT" dump --meta "$TMP/d.mtrace" | grep -q '^end_reason=duration' || fail "no duration end"
for sig in INT TERM; do
	"$MT" record -p $victim -o "$TMP/s.mtrace" 2>/dev/null &
	rec=$!
	wait_file "$TMP/s.mtrace" 100 || fail "record did not start"
	kill -$sig $rec
	timeout 10 tail --pid=$rec -f /dev/null || fail "record ignored SIG$sig"
	wait $rec || fail "record exited non-zero after SIG$sig"
	"$MT" dump --meta "$TMP/s.mtrace" | grep -q '^end_reason=signal' || fail "no signal end after SIG$sig"
	rm -f "$TMP/s.mtrace"
done
# kill -9 in the middle of a busy recording
"$WL/pageramp" -n 1024 -c 400 >/dev/null &
wl=$!
"$MT" record -p $wl -c 1 -o "$TMP/k.mtrace" 2>/dev/null &
rec=$!
wait_file "$TMP/k.mtrace" 20000 || fail "record wrote nothing"
kill -9 $rec
wait $rec 2>/dev/null
kill $wl 2>/dev/null
wait $wl 2>/dev/null
"$MT" report "$TMP/k.mtrace" >"$TMP/k.txt" 2>"$TMP/k.err" || fail "killed trace unreadable: $(cat "$TMP/k.err")"
grep -q "warning" "$TMP/k.err" || fail "no warning about the unfinished trace"
n=$("$MT" dump "$TMP/k.mtrace" 2>/dev/null | wc -l)
[ "$n" -gt 1000 ] || fail "only $n samples recovered"
