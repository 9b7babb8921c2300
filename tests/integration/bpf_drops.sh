#!/bin/bash
# bpf backend, a tiny ring under a fault storm: every sample the BPF program
# kept is either in the trace or counted as dropped (produced = read +
# dropped, and the trace's samples + lost = produced), and every page of the
# storm's region is among them.
. "$(dirname "$0")/lib.sh"
PAGES=16384 CYCLES=4	# pageramp touches every other page: 32768 region faults
for try in 1 2 3; do
	MEMTRACE_BPF_COUNTS=1 "$MT" record --backend bpf --ring 16 -c 1 -o "$TMP/d.mtrace" --force \
		-- "$WL/pageramp" -n $PAGES -c $CYCLES >/dev/null 2>"$TMP/rec.err" ||
		fail "record failed: $(cat "$TMP/rec.err")"
	line=$(grep '^memtracectl: bpf: ' "$TMP/rec.err") || fail "no counts line: $(cat "$TMP/rec.err")"
	set -- $(echo "$line" | sed -E 's/.*bpf: ([0-9]+) samples produced, ([0-9]+) read, ([0-9]+) dropped.*/\1 \2 \3/')
	produced=$1 read=$2 dropped=$3
	samples=$("$MT" dump --meta "$TMP/d.mtrace" | sed -n 's/^samples=//p')
	lost=$("$MT" dump --meta "$TMP/d.mtrace" | sed -n 's/^lost=//p')
	[ "$produced" = $((read + dropped)) ] || fail "produced $produced != read $read + dropped $dropped"
	[ "$samples" = "$read" ] || fail "trace has $samples samples, the collector read $read"
	[ "$lost" = "$dropped" ] || fail "trace has lost=$lost, the BPF program dropped $dropped"
	[ "$produced" -ge $((PAGES / 2 * CYCLES)) ] || fail "produced $produced < $((PAGES / 2 * CYCLES)) region faults"
	[ "$dropped" -gt 0 ] && break
done
[ "$dropped" -gt 0 ] || fail "no drop in 3 tries with a 4 KiB ring (produced $produced)"
# the drops are in LOST chunks (a record per CPU and drain with drops)
chunks=$($PY "$TOP/tests/integration/chunks.py" "$TMP/d.mtrace")
echo "$chunks" | grep -q '^LOST [1-9]' || fail "no LOST chunk: $chunks"
