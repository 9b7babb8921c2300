#!/bin/bash
# Blind windows of hint faults against the kernel's own count of its NUMA
# scan sweeps: hintsets under record -p -e hint-faults for 24 s, 8 s windows
# every 500 ms (the kernel's scan period is 1 s at least and doubles while
# nothing migrates: some windows hold a whole sweep, others none); the test
# polls /proc/PID/sched's numa_scan_seq itself (scan_seq_poll.py), reads
# the sweeps' starts with perf (sched:sched_skip_vma_numa at offset 0, where
# the kernel has it: Linux 6.7+) and check_blind.py compares every window's
# blind flag with those times.  numa_balancing is put back.
. "$(dirname "$0")/lib.sh"
NB=/proc/sys/kernel/numa_balancing
[ -w $NB ] || skip numa-balancing "no writable $NB (root and CONFIG_NUMA_BALANCING)"
grep -q numa_scan_seq /proc/self/sched || skip numa-balancing "no numa_scan_seq in /proc/PID/sched"
before=$(cat $NB)
"$WL/hintsets" -n 2048 -t 2 -s 24 -w >"$TMP/wl.txt" &
wl=$!
wait_file "$TMP/wl.txt" 10 || fail "hintsets did not start"
$PY "$TOP/tests/integration/scan_seq_poll.py" $wl >"$TMP/passes.txt" &
: >"$TMP/starts.txt"
if [ -e /sys/kernel/tracing/events/sched/sched_skip_vma_numa ]; then
	command -v perf >/dev/null || fail "no perf (tools/deps/install.txt) to read the sweeps' starts"
	perf record -q -e sched:sched_skip_vma_numa --filter 'numa_scan_offset == 0' -k CLOCK_MONOTONIC \
		-a -o "$TMP/starts.data" -- sleep 27 >"$TMP/perf.err" 2>&1 &
	perfrec=$!
	# perf writes its header once its events are open: record turns NUMA
	# balancing on and the first sweep starts a second later, which perf
	# must not miss (a CI run's perf started after it: check_blind.py then
	# cannot judge the windows around the first sweep, and says so)
	wait_file "$TMP/starts.data" 1 || true
fi
"$MT" record -e hint-faults -p $wl -o "$TMP/h.mtrace" >"$TMP/out.txt" 2>"$TMP/err.txt" &
rec=$!
wait_file "$TMP/h.mtrace" 100 || fail "record did not start: $(cat "$TMP/err.txt")"
kill -USR1 $wl
wait $rec || fail "record failed: $(cat "$TMP/err.txt")"
if [ -n "${perfrec:-}" ]; then
	kill -INT $perfrec 2>/dev/null
	wait $perfrec
	perf script -i "$TMP/starts.data" -F pid,time 2>"$TMP/perf.err" |
		awk -v p=$wl '$1 == p { sub(":", "", $2); printf "%.0f\n", $2 * 1e9 }' >"$TMP/starts.txt" ||
		fail "perf script failed: $(cat "$TMP/perf.err")"
fi
wait
[ "$(cat $NB)" = "$before" ] || fail "numa_balancing is $(cat $NB), was $before"
grep -qx "passes=1" <("$MT" dump --meta "$TMP/h.mtrace") || fail "no HEADER passes=1"
"$MT" report "$TMP/h.mtrace" --window 8s --interval 500ms --series "$TMP/s.csv" >"$TMP/r.txt" ||
	fail "report failed"
grep -q "^blind: .* windows saw no whole NUMA scan sweep" "$TMP/r.txt" || fail "no blind line: $(cat "$TMP/r.txt")"
start=$("$MT" dump --meta "$TMP/h.mtrace" | sed -n 's/^start_time=//p')
# the sweeps memtracectl recorded partial (they skipped mappings holding
# much of the process's memory, from the same tracepoint): not judged seen
$PY - "$TOP" "$TMP/h.mtrace" >"$TMP/partial.txt" <<'PYEOF' || fail "reading the trace's passes"
import sys
sys.path.insert(0, sys.argv[1] + "/user/analyze")
from memtrace_analyze import lib
for t, pid, what in lib.Trace(sys.argv[2]).passes():
    if what == 5:   # MEMTRACE_PASS_NUMA_SCAN_PARTIAL
        print(t)
PYEOF
$PY "$TOP/tests/integration/check_blind.py" "$TMP/s.csv" "$TMP/passes.txt" "$start" 8000000000 500000000 \
	"$TMP/starts.txt" "$TMP/partial.txt"
