#!/bin/bash
# numa_balancing (and the state file) are put back exactly after a
# hint-faults recording ends by SIGINT, SIGTERM, the target's exit and a
# write error; after kill -9, status says what to do and the next
# recording puts the value back.  Run from each of 0, 1 and 2 (memory
# tiering, where the kernel has it).
. "$(dirname "$0")/lib.sh"
NB=/proc/sys/kernel/numa_balancing
STATE=/run/memtrace/numa_balancing.state
[ -w $NB ] || skip numa-balancing "no writable $NB (root and CONFIG_NUMA_BALANCING)"
orig=$(cat $NB)
sleep 25 &
victim=$!
trap 'kill $victim 2>/dev/null; echo $orig > $NB; rm -rf "$TMP"' EXIT
rm -f $STATE

# wait_nb VALUE: until numa_balancing reads VALUE (5 s max)
wait_nb() {
	for _ in $(seq 100); do
		[ "$(cat $NB)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

check() {	# check WHAT WANT
	[ "$(cat $NB)" = "$2" ] || fail "$1: numa_balancing is $(cat $NB), want $2"
	[ ! -e $STATE ] || fail "$1: $STATE left behind"
}

for start in 0 1 2; do
	echo $start > $NB 2>/dev/null || { echo "numa_balancing=$start not supported here"; continue; }
	on=$((start | 1))
	"$MT" record -e hint-faults -o "$TMP/e.mtrace" -- "$WL/hintsets" -n 256 -s 1 >/dev/null 2>&1 ||
		fail "record of a command failed"
	check "target exit from $start" $start
	for sig in INT TERM; do
		"$MT" record -e hint-faults -p $victim -o "$TMP/s.mtrace" 2>/dev/null &
		rec=$!
		wait_file "$TMP/s.mtrace" 100 || fail "record did not start"
		wait_nb $on || fail "SIG$sig from $start: numa_balancing $(cat $NB) while recording, want $on"
		kill -$sig $rec
		timeout 10 tail --pid=$rec -f /dev/null || fail "record ignored SIG$sig"
		wait $rec || fail "record exited non-zero after SIG$sig"
		check "SIG$sig from $start" $start
		rm -f "$TMP/s.mtrace"
	done
	"$MT" record -e hint-faults -o - -- "$WL/hintsets" -n 256 -s 1 >/dev/full 2>/dev/null &&
		fail "a write error did not fail the recording"
	check "write error from $start" $start
	[ $start = 1 ] && continue	# nothing to restore after kill -9
	"$MT" record -e hint-faults -p $victim -o "$TMP/k.mtrace" 2>/dev/null &
	rec=$!
	wait_file "$TMP/k.mtrace" 100 || fail "record did not start"
	wait_nb $on || fail "kill -9 from $start: numa_balancing $(cat $NB) while recording"
	kill -9 $rec
	wait $rec 2>/dev/null
	[ "$(cat $NB)" = $on ] || fail "kill -9 from $start: numa_balancing $(cat $NB), want $on"
	[ -e $STATE ] || fail "kill -9 from $start: no $STATE"
	"$MT" status 2>&1 | grep -qF "put back the value it found with \`echo $start > $NB\`" ||
		fail "status does not say to restore $start: $("$MT" status 2>&1 | grep -i numa)"
	"$MT" record -e hint-faults -o "$TMP/a.mtrace" -- "$WL/hintsets" -n 256 -s 1 >/dev/null \
		2>"$TMP/adopt.txt" || fail "record after kill -9 failed"
	grep -q "was killed with NUMA balancing changed: this one puts back $NB=$start" "$TMP/adopt.txt" ||
		fail "record after kill -9 did not say it restores: $(cat "$TMP/adopt.txt")"
	check "record after kill -9 from $start" $start
done
