#!/bin/sh
# guest-hint.sh - hint-faults inside a guest with two NUMA nodes
# (run-guest.sh with GUEST_NUMA_NODES=2), once with the perf backend and
# once with the module's (memtrace.ko's exceptions:page_fault_user counter):
# a single-threaded target's private memory on the other node is scanned
# (pages on the node it runs on are not, and on one node nothing of it is):
# hintsets -x writes its sets on CPU 0 (node 0) and sweeps set A from CPU 1
# (node 1).  Ships each trace and the workload's line to the host
# (tests/suites.d/55-hint-guest.sh), which checks the page sets with
# check_hintsets.py: files hint.* (perf) and hint-module.* (module).
MT=/bin/memtracectl
NB=/proc/sys/kernel/numa_balancing
. /bin/guest-lib.sh	# ship
# hint BACKEND NAME: one recording, its checks, its files shipped as NAME.*
hint() {
	b=$1 n=$2 h=/tmp/$2
	echo 0 > $NB	# start from off: the recording turns it on and puts 0 back
	if $MT record --backend "$b" -e hint-faults --scan-period 500ms -o $h.mtrace -- \
		/bin/hintsets -n 1024 -t 1 -s 25 -x >$h.out 2>$h.err; then
		echo "ok   $n-record: $(grep -c . $h.out) workload lines, $(grep ' hint faults, ' $h.err | sed 's/^memtracectl: //')"
	else
		echo "FAIL $n-record: $(tr '\n' ' ' <$h.err)"
	fi
	sed 's/^/    /' $h.err | head -8
	if [ "$(cat $NB)" = 0 ]; then
		echo "ok   $n-restore: numa_balancing back at 0"
	else
		echo "FAIL $n-restore: numa_balancing is $(cat $NB), want 0"
	fi
	# report's rows per fault kind: the hint row holds every hint fault the recorder counted
	$MT report --json $h.mtrace >$h.json 2>/dev/null
	kinds=$(tr -d ' \n' <$h.json | sed -n 's/.*"fault_kinds":\[\(.*\)\].*/\1/p' | sed 's/,"page_size":4096//g')
	hs=$(echo "$kinds" | sed -n 's/.*"kind":"hint","samples":\([0-9]*\),.*/\1/p')
	ft=$(echo "$kinds" | sed -n 's/.*"kind":"first-touch","samples":\([0-9]*\),.*/\1/p')
	want=$(sed -n 's/^memtracectl: \([0-9]*\) hint faults, \([0-9]*\) first touches.*/\1 \2/p' $h.err)
	if [ -n "$hs" ] && [ "$hs $ft" = "$want" ]; then
		echo "ok   $n-report-kinds: $kinds"
	else
		echo "FAIL $n-report-kinds: report '$hs $ft', recorder '$want': $kinds"
	fi
	$MT report $h.mtrace 2>/dev/null | sed -n '/^Fault kinds/,/^$/p' | sed 's/^/    /'
	$MT dump $h.mtrace >$h.csv 2>/dev/null
	$MT dump --meta $h.mtrace 2>/dev/null | grep -v "^[0-9]" >$h.meta	# not the samples again
	head -1 $h.out >$h.line
	gzip -1 $h.csv
	ship $n.csv.gz $h.csv.gz
	ship $n.meta $h.meta
	ship $n.line $h.line
	ship $n.err $h.err
}
echo "    nodes online: $(cat /sys/devices/system/node/online), numa_balancing=$(cat $NB)"
if $MT status >/tmp/hs.out 2>&1 && grep -q '^  module: hint-faults: available' /tmp/hs.out; then
	echo "ok   hint-module-status: $(grep 'module: hint-faults' /tmp/hs.out | sed 's/^ *//')"
else
	echo "FAIL hint-module-status: $(grep 'module' /tmp/hs.out | tr '\n' ' ')"
fi
hint perf hint
hint module hint-module
