#!/bin/sh
# guest-hint.sh - hint-faults (perf backend) inside a guest with two NUMA
# nodes (run-guest.sh with GUEST_NUMA_NODES=2): a single-threaded target's
# private memory on the other node is scanned (pages on the node it runs
# on are not, and on one node nothing of it is): hintsets -x writes its
# sets on CPU 0 (node 0) and sweeps set A from CPU 1 (node 1).  Ships the trace
# and the workload's line to the host (tests/suites.d/55-hint-guest.sh),
# which checks the page sets with check_hintsets.py.
MT=/bin/memtracectl
NB=/proc/sys/kernel/numa_balancing
ship() {
	echo "BEGIN-FILE $1"
	base64 "$2"
	echo "END-FILE"
}
echo "    nodes online: $(cat /sys/devices/system/node/online), numa_balancing=$(cat $NB)"
echo 0 > $NB	# start from off: the recording turns it on and puts 0 back
if $MT record --backend perf -e hint-faults --scan-period 500ms -o /tmp/h.mtrace -- \
	/bin/hintsets -n 1024 -t 1 -s 25 -x >/tmp/h.out 2>/tmp/h.err; then
	echo "ok   hint-record: $(grep -c . /tmp/h.out) workload lines, $(tail -2 /tmp/h.err | head -1 | sed 's/^memtracectl: //')"
else
	echo "FAIL hint-record: $(tr '\n' ' ' </tmp/h.err)"
fi
sed 's/^/    /' /tmp/h.err | head -8
if [ "$(cat $NB)" = 0 ]; then
	echo "ok   hint-restore: numa_balancing back at 0"
else
	echo "FAIL hint-restore: numa_balancing is $(cat $NB), want 0"
fi
# report's rows per fault kind: the hint row holds every hint fault the recorder counted
$MT report --json /tmp/h.mtrace >/tmp/h.json 2>/dev/null
kinds=$(tr -d ' \n' </tmp/h.json | sed -n 's/.*"fault_kinds":\[\(.*\)\].*/\1/p' | sed 's/,"page_size":4096//g')
hs=$(echo "$kinds" | sed -n 's/.*"kind":"hint","samples":\([0-9]*\),.*/\1/p')
ft=$(echo "$kinds" | sed -n 's/.*"kind":"first-touch","samples":\([0-9]*\),.*/\1/p')
want=$(sed -n 's/^memtracectl: \([0-9]*\) hint faults, \([0-9]*\) first touches.*/\1 \2/p' /tmp/h.err)
if [ -n "$hs" ] && [ "$hs $ft" = "$want" ]; then
	echo "ok   hint-report-kinds: $kinds"
else
	echo "FAIL hint-report-kinds: report '$hs $ft', recorder '$want': $kinds"
fi
$MT report /tmp/h.mtrace 2>/dev/null | sed -n '/^Fault kinds/,/^$/p' | sed 's/^/    /'
$MT dump /tmp/h.mtrace >/tmp/h.csv 2>/dev/null
$MT dump --meta /tmp/h.mtrace >/tmp/h.meta 2>/dev/null
head -1 /tmp/h.out >/tmp/h.line
gzip -1 /tmp/h.csv
ship hint.csv.gz /tmp/h.csv.gz
ship hint.meta /tmp/h.meta
ship hint.line /tmp/h.line
