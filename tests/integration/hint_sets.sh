#!/bin/bash
# hint-faults on a known workload (MEMTRACE_BACKEND: perf or bpf): two threads read set A all along, set B
# is written once, set C never touched (check_hintsets.py says what is
# expected); numa_balancing is back at its value afterwards.
. "$(dirname "$0")/lib.sh"
NB=/proc/sys/kernel/numa_balancing
[ -w $NB ] || skip numa-balancing "no writable $NB (root and CONFIG_NUMA_BALANCING)"
before=$(cat $NB)
"$MT" record -e hint-faults -o "$TMP/h.mtrace" -- "$WL/hintsets" -n 4096 -t 2 -s 10 \
	>"$TMP/out.txt" 2>"$TMP/err.txt" || fail "record failed: $(cat "$TMP/err.txt")"
[ "$(cat $NB)" = "$before" ] || fail "numa_balancing is $(cat $NB), was $before"
grep -q "one NUMA node: private memory of a single-threaded process" "$TMP/err.txt" ||
	[ "$(cat /sys/devices/system/node/online)" != 0 ] || fail "no line on what one node cannot show"
"$MT" dump --meta "$TMP/h.mtrace" >"$TMP/meta.txt"
grep -qx "sample_class=hint-fault" "$TMP/meta.txt" || fail "sample_class is not hint-fault"
grep -qx "fault_kinds=1" "$TMP/meta.txt" || fail "no fault_kinds=1"
# the backend asked for (26-hint runs this with perf and with bpf)
[ -z "${MEMTRACE_BACKEND:-}" ] || grep -qx "backend=$MEMTRACE_BACKEND" "$TMP/meta.txt" ||
	fail "recorded by $(grep '^backend=' "$TMP/meta.txt"), not $MEMTRACE_BACKEND"
"$MT" dump "$TMP/h.mtrace" >"$TMP/h.csv" || fail "dump failed"
$PY "$TOP/tests/integration/check_hintsets.py" "$TMP/h.csv" "$TMP/meta.txt" "$(head -1 "$TMP/out.txt")"
