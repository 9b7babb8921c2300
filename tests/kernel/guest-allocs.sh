#!/bin/sh
# guest-allocs.sh - record --allocs and --mark inside a guest (Debian 6.12:
# tests/suites.d/56-allocs-guest.sh).  allocsites (known allocation sites)
# recorded with --allocs at page faults, the accesses from the perf backend
# and then from the module (memtrace.ko), the allocations from the BPF
# uprobes in both; pageramp recorded with --mark on its function
# touch_pages (uprobe/uretprobe, integer label), usdtspans with --mark on its
# USDT probes (string label).  Ships the reports (JSON)
# and the workloads' lines to the host, which checks them with
# tests/integration/check_alloc_sites.py, check_mark_ramp.py and
# check_mark_usdt.py.
MT=/bin/memtracectl
. /bin/guest-lib.sh	# ship
wait_file() {	# wait_file FILE TENTHS
	i=0
	while [ ! -s "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# allocs B: allocsites -w under record -p --allocs with backend B
allocs() {
	b=$1
	rm -f /tmp/$b.out /tmp/$b.mtrace /tmp/$b.err
	/bin/allocsites -w >/tmp/$b.out &
	wl=$!
	wait_file /tmp/$b.out 100 || echo "FAIL allocs-$b: allocsites did not start"
	$MT record --backend $b -p $wl -e page-faults -c 1 --allocs --alloc-rate 1 \
		-o /tmp/$b.mtrace 2>/tmp/$b.err &
	rec=$!
	wait_file /tmp/$b.mtrace 300 || echo "FAIL allocs-$b: record did not start: $(cat /tmp/$b.err)"
	kill -USR1 $wl
	if wait $rec; then
		echo "ok   allocs-$b-record: $(grep -- '--allocs:' /tmp/$b.err | sed 's/^memtracectl: //')"
		# the accesses came from backend b (the allocations from the BPF uprobes)
		if grep -q "samples to /tmp/$b.mtrace ($b backend)" /tmp/$b.err; then
			echo "ok   allocs-$b-backend: $(grep 'samples to' /tmp/$b.err | sed 's/^memtracectl: //')"
		else
			echo "FAIL allocs-$b-backend: $(tr '\n' ' ' </tmp/$b.err)"
		fi
	else
		echo "FAIL allocs-$b-record: $(tr '\n' ' ' </tmp/$b.err)"
		return
	fi
	$MT report /tmp/$b.mtrace --by-site --json >/tmp/$b.json 2>>/tmp/$b.err
	$MT report /tmp/$b.mtrace --by-site >/tmp/$b.txt 2>>/tmp/$b.err
	ship allocs-$b.json /tmp/$b.json
	ship allocs-$b.txt /tmp/$b.txt
	ship allocs-$b.out /tmp/$b.out
}
allocs perf
[ -e /dev/memtrace ] && allocs module

# --mark on a function of a static binary: uprobe at entry, uretprobe at return
rm -f /tmp/ramp.mtrace /tmp/ramp.err
if $MT record --backend perf -e page-faults --mark /bin/pageramp:touch_pages --mark-label int \
	--mark-arg 2 -o /tmp/ramp.mtrace -- /bin/pageramp -n 8 -c 2 >/dev/null 2>/tmp/ramp.err; then
	$MT report /tmp/ramp.mtrace --by-span --json >/tmp/ramp.json 2>>/tmp/ramp.err
	echo "ok   mark-record: $($MT report /tmp/ramp.mtrace --by-span 2>&1 | grep '^By span')"
	ship mark-ramp.json /tmp/ramp.json
else
	echo "FAIL mark-record: $(tr '\n' ' ' </tmp/ramp.err)"
fi
# --mark on a USDT probe pair of a static test binary (SDT notes, string labels)
rm -f /tmp/usdt.mtrace /tmp/usdt.err
if $MT record --backend perf -e page-faults --mark /bin/usdtspans:phase__start -o /tmp/usdt.mtrace -- \
	/bin/usdtspans -r 3 >/dev/null 2>/tmp/usdt.err; then
	$MT report /tmp/usdt.mtrace --by-span --json >/tmp/usdt.json 2>>/tmp/usdt.err
	echo "ok   mark-usdt-record: $($MT report /tmp/usdt.mtrace --by-span 2>&1 | grep '^By span')"
	ship mark-usdt.json /tmp/usdt.json
else
	echo "FAIL mark-usdt-record: $(tr '\n' ' ' </tmp/usdt.err)"
fi
