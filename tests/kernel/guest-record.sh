#!/bin/sh
# guest-record.sh [BACKEND] - memtracectl with the module backend (or BACKEND:
# bpf, whose traces are shipped as bpf-NAME) inside the guest.
# Records pageramp (page-fault source, period 1), mtfork and mtktree through
# /dev/memtrace, prints ok/FAIL lines and ships the traces to the host as
# base64 between "BEGIN-FILE NAME" and "END-FILE" lines; the host checks
# them exactly like the perf backend's traces (tests/suites.d/50-kernel.sh).
MT=/bin/memtracectl
B=${1:-module}
P=; [ "$B" = module ] || P=$B-
# a second run (module, then bpf) must not find the first one's files
rm -f /tmp/wl.out /tmp/wl3.out /tmp/mtfork.out /tmp/tree.out /tmp/ramp.mtrace /tmp/fork.mtrace \
	/tmp/tree.mtrace /tmp/all.mtrace /tmp/all.csv /tmp/rec.err /tmp/rec2.err /tmp/rec3.err \
	/tmp/rec4.err /tmp/status.out /tmp/p16.mtrace /tmp/p16.csv /tmp/wlp.out
if [ ! -x $MT ]; then
	echo "FAIL record: no static memtracectl in the initramfs (make static)"
	exit 1
fi
. /bin/guest-lib.sh	# ship
wait_file() {	# wait_file FILE TENTHS
	i=0
	while [ ! -s "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# status sees the module (bpf: can load its programs) in the mode it must
# report: pebs-hook in a kernel with the PEBS sink hook
# (kernel/perf-pebs-hook.patch: the debug kernel), else perf-overflow
want=perf-overflow
grep -qE ' [Tt] x86_pebs_sink_attach$' /proc/kallsyms && want=pebs-hook
if [ "$B" = bpf ]; then
	if $MT status 2>&1 | grep -q 'bpf: page-faults: available'; then
		echo "ok   status: $($MT status 2>&1 | grep 'bpf: page-faults' | sed 's/^ *//')"
	else
		echo "FAIL status: $($MT status 2>&1 | grep 'bpf:' | tr '\n' ' ')"
	fi
elif $MT status >/tmp/status.out 2>&1 && grep -q "module: loaded, mode $want " /tmp/status.out &&
   grep -q 'module: available' /tmp/status.out; then
	echo "ok   status: $(grep 'module: loaded' /tmp/status.out | sed 's/^ *//')"
else
	echo "FAIL status: $(grep module: /tmp/status.out | head -3 | tr '\n' ' ')"
fi

# pageramp through -p, like tests/integration/record_pageramp.sh
/bin/pageramp -n 1024 -c 10 -g 100 -w >/tmp/wl.out &
wl=$!
wait_file /tmp/wl.out 100 || echo "FAIL record: pageramp did not start"
$MT record --backend $B -p $wl -e page-faults -c 1 -o /tmp/ramp.mtrace 2>/tmp/rec.err &
rec=$!
wait_file /tmp/ramp.mtrace 200 || echo "FAIL record: record did not start: $(cat /tmp/rec.err)"
sleep 0.2
kill -USR1 $wl
if wait $rec; then
	echo "ok   record: --backend $B -p pageramp ($(wc -c </tmp/ramp.mtrace) bytes)"
	ship ${P}ramp.mtrace /tmp/ramp.mtrace
	ship ${P}ramp.out /tmp/wl.out
else
	echo "FAIL record: memtracectl record --backend $B failed: $(cat /tmp/rec.err)"
fi

# bpf: page faults through tp_btf/page_fault_user, and -c 16 on pageramp
# pinned to CPU 0: exactly its every 16th fault (2048 region faults in a
# row: 128 samples, 32 pages apart); the perf events when asked for
if [ "$B" = bpf ]; then
	attach=$($MT dump --meta /tmp/ramp.mtrace | sed -n 's/^bpf_attach=//p')
	if [ "$attach" = tp_btf/page_fault_user ]; then
		echo "ok   record: bpf page faults through $attach"
	else
		echo "FAIL record: bpf page faults through '$attach', want tp_btf/page_fault_user"
	fi
	for faults in tp perf; do
		rm -f /tmp/p16.mtrace /tmp/p16.csv /tmp/wlp.out
		taskset -c 0 /bin/pageramp -n 4096 -c 1 -w >/tmp/wlp.out &
		wl=$!
		wait_file /tmp/wlp.out 100 || echo "FAIL record: pageramp did not start"
		MEMTRACE_BPF_FAULTS=$faults $MT record --backend bpf -p $wl -e page-faults -c 16 \
			-o /tmp/p16.mtrace 2>/tmp/rec.err &
		rec=$!
		wait_file /tmp/p16.mtrace 200 || echo "FAIL record: record -c 16 did not start: $(cat /tmp/rec.err)"
		sleep 0.2
		kill -USR1 $wl
		if ! wait $rec || ! $MT dump /tmp/p16.mtrace >/tmp/p16.csv; then
			echo "FAIL record: -c 16 ($faults) failed: $(cat /tmp/rec.err)"
			continue
		fi
		b=$(($(sed -n 's/.*base=\(0x[0-9a-f]*\).*/\1/p' /tmp/wlp.out)))
		# region pages of the samples, in order (addr is column 5)
		pages=$(grep '^[0-9]' /tmp/p16.csv | cut -d, -f5 | while read -r a; do
			[ $((a)) -ge $b ] && [ $(((a - b) / 4096)) -lt 4096 ] && echo $(((a - b) / 4096))
		done)
		n=$(echo "$pages" | grep -c .)
		steps=$(echo "$pages" | awk 'NR > 1 && $1 - p != 32 { bad++ } { p = $1 } END { print bad + 0 }')
		if [ $faults = perf ]; then
			# the per-CPU perf event counts every task's faults on the CPU
			echo "ok   record: -c 16 through the perf events: $n samples of pageramp's 2048 region faults"
		elif [ "$n" = 128 ] && [ "$steps" = 0 ]; then
			echo "ok   record: -c 16 through tp_btf: 128 of pageramp's 2048 region faults, 32 pages apart"
		else
			echo "FAIL record: -c 16 through tp_btf: $n samples (want 128), $steps steps not 32 pages"
		fi
	done
fi

# bpf: record --aggregate of pageramp through -p: the BPF bucket map's
# counts add up to the 512 even pages x 4 cycles (at most 2 retried faults)
if [ "$B" = bpf ]; then
	rm -f /tmp/agg.mtrace /tmp/agg.csv /tmp/wla.out
	/bin/pageramp -n 1024 -c 4 -g 250 -w >/tmp/wla.out &
	wl=$!
	wait_file /tmp/wla.out 100 || echo "FAIL record: pageramp did not start"
	$MT record --aggregate -p $wl -e page-faults -c 1 -o /tmp/agg.mtrace 2>/tmp/rec.err &
	rec=$!
	wait_file /tmp/agg.mtrace 200 || echo "FAIL record: record --aggregate did not start: $(cat /tmp/rec.err)"
	sleep 0.2
	kill -USR1 $wl
	if wait $rec && $MT dump --agg /tmp/agg.mtrace >/tmp/agg.csv; then
		sum=$(awk -F, '/^[0-9]/ { n += $4 } END { print n + 0 }' /tmp/agg.csv)
		full=$(awk '/^# interval/ { sub(/.*full=/, ""); sub(/ .*/, ""); f += $0 } END { print f + 0 }' /tmp/agg.csv)
		if [ "$sum" -ge 2048 ] && [ "$sum" -le 2050 ] && [ "$full" = 0 ]; then
			echo "ok   record: --aggregate -p pageramp: $sum faults counted in the BPF map, 0 not kept"
		else
			echo "FAIL record: --aggregate -p pageramp: $sum faults counted (want 2048-2050), $full not kept"
		fi
	else
		echo "FAIL record: --aggregate failed: $(cat /tmp/rec.err)"
	fi
fi

# threads created before and after, and a forked child, through -- CMD
if $MT record --backend $B -c 1 -o /tmp/fork.mtrace -- /bin/mtfork -b 3 -a 3 -k 40 -f \
	>/tmp/mtfork.out 2>/tmp/rec2.err; then
	echo "ok   record: --backend $B -- mtfork ($(wc -c </tmp/fork.mtrace) bytes)"
	ship ${P}fork.mtrace /tmp/fork.mtrace
	ship ${P}fork.out /tmp/mtfork.out
else
	echo "FAIL record: -- mtfork failed: $(cat /tmp/rec2.err)"
fi

# a process tree through -p ROOT: the root's thread, child and grandchild
# exist at START, a late child is forked after; the grandchild touches
# after the root exited (tests/kernel/mtktree.c)
/bin/mtktree -k 64 >/tmp/tree.out &
wl=$!
wait_file /tmp/tree.out 100 || echo "FAIL record: mtktree did not start"
$MT record --backend $B -p $wl -e page-faults -c 1 -o /tmp/tree.mtrace 2>/tmp/rec4.err &
rec=$!
wait_file /tmp/tree.mtrace 200 || echo "FAIL record: record -p mtktree did not start: $(cat /tmp/rec4.err)"
sleep 0.2
kill -USR1 $wl
if wait $rec; then
	line=$(grep 'attached to' /tmp/rec4.err)
	# (bpf adds ": mtktree PID and 2 descendants", as perf does)
	want="memtracectl: attached to 3 processes, 4 threads"
	if [ "$line" = "$want" ] || [ "${line%%: mtktree *}" = "$want" ]; then
		echo "ok   record: --backend $B -p mtktree: '$line'"
	else
		echo "FAIL record: -p mtktree said '$line', want 'memtracectl: attached to 3 processes, 4 threads'"
	fi
	ship ${P}tree.mtrace /tmp/tree.mtrace
	ship ${P}tree.out /tmp/tree.out
else
	echo "FAIL record: -p mtktree failed: $(cat /tmp/rec4.err)"
fi
wait $wl

# system-wide: every CPU, for a fixed duration, while pageramp runs (its
# 2048 faults took over 2.5 s in the debug kernel on a loaded host:
# GUEST_SLOW from guest-init.sh)
dur=3
[ "${GUEST_SLOW:-1}" = 1 ] || dur=60
$MT record --backend $B -a --duration $dur -o /tmp/all.mtrace 2>/tmp/rec3.err &
rec=$!
wait_file /tmp/all.mtrace 200
sleep 0.5
/bin/pageramp -n 512 -c 4 >/tmp/wl3.out
tid=$(sed -n 's/.*tid=\([0-9]*\).*/\1/p' /tmp/wl3.out)
if wait $rec && $MT dump /tmp/all.mtrace >/tmp/all.csv 2>/dev/null; then
	n=$(awk -F, -v t="$tid" '$2 == t' /tmp/all.csv | wc -l)
	reason=$($MT dump --meta /tmp/all.mtrace | sed -n 's/^end_reason=//p')
	if [ "$n" -ge 1024 ] && [ "$reason" = duration ]; then
		echo "ok   record: --backend $B -a --duration $dur: $n faults of pageramp (>= 1024), end_reason=duration"
	else
		echo "FAIL record: -a: $n faults of pageramp tid $tid (want >= 1024), end_reason=$reason"
	fi
else
	echo "FAIL record: -a failed: $(cat /tmp/rec3.err)"
fi
