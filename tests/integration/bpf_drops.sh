#!/bin/bash
# bpf backend, a tiny ring while the collector is stalled: every sample the
# BPF program kept is either in the trace or counted as dropped (produced =
# read + dropped, and the trace's samples + lost = produced), and the storm's
# region faults are all among the produced ones.  The collector is stopped
# (SIGSTOP) while the workload runs, so the 4 KiB ring must overflow whatever
# the machine's speed.
. "$(dirname "$0")/lib.sh"
PAGES=16384 CYCLES=4	# pageramp touches every other page: 32768 region faults
"$WL/pageramp" -n $PAGES -c $CYCLES -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 10 || fail "pageramp did not start"
MEMTRACE_BPF_COUNTS=1 "$MT" record --backend bpf --ring 16 -c 1 -p $wl -o "$TMP/d.mtrace" \
	>/dev/null 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/d.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -STOP $rec
kill -USR1 $wl
wait $wl || fail "pageramp failed"
kill -CONT $rec
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
line=$(grep '^memtracectl: bpf: ' "$TMP/rec.err") || fail "no counts line: $(cat "$TMP/rec.err")"
set -- $(echo "$line" | sed -E 's/.*bpf: ([0-9]+) samples produced, ([0-9]+) read, ([0-9]+) dropped.*/\1 \2 \3/')
produced=$1 read=$2 dropped=$3
samples=$("$MT" dump --meta "$TMP/d.mtrace" | sed -n 's/^samples=//p')
lost=$("$MT" dump --meta "$TMP/d.mtrace" | sed -n 's/^lost=//p')
[ "$produced" = $((read + dropped)) ] || fail "produced $produced != read $read + dropped $dropped"
[ "$samples" = "$read" ] || fail "trace has $samples samples, the collector read $read"
[ "$lost" = "$dropped" ] || fail "trace has lost=$lost, the BPF program dropped $dropped"
[ "$produced" -ge $((PAGES / 2 * CYCLES)) ] || fail "produced $produced < $((PAGES / 2 * CYCLES)) region faults"
[ "$read" -le $((PAGES / 2 * CYCLES / 2)) ] || fail "read $read of $produced with a 4 KiB ring and a stalled collector"
[ "$dropped" -gt 0 ] || fail "no drop with a 4 KiB ring and a stalled collector (produced $produced)"
# the drops are in LOST chunks (a record per CPU and drain with drops)
chunks=$($PY "$TOP/tests/integration/chunks.py" "$TMP/d.mtrace")
echo "$chunks" | grep -q '^LOST [1-9]' || fail "no LOST chunk: $chunks"
echo "produced $produced, read $read, dropped $dropped"
