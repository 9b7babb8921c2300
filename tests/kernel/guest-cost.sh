#!/bin/sh
# guest-cost.sh - what watching pglike's re-accesses costs, side by side:
# untraced, memtrace.ko's accessed-bit scan (-e accessed, 1 s passes, TLB
# flush on) and DAMON vaddr (-e damon, its default intervals), REPS rounds
# of the three in turn (bench/kernel/compare.sh boots it with one vCPU and
# -icount: CPU times count instructions).  Workload: pglike -b, two busy
# children re-reading every 4th page of a 256 MiB shared anonymous segment
# and 1,024 private pages each, for SECS s; the children's completed rounds
# are the throughput the monitor takes away.  One line per run:
#   cost-run mode=M rep=R rounds=N secs=S mon_ticks=T mon=COMM rec_ticks=T
# (ticks of 10 ms over the measured S seconds; mon: the kernel thread that
# does the monitoring, memtrace_scan or kdamond.N).
MT=/bin/memtracectl
# (the kernel hands memtrace_cost_*= of its command line to init as variables)
REPS=${memtrace_cost_reps:-5} SECS=${memtrace_cost_secs:-10}
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null || echo 0; }
kthread() {	# the first process named $1*
	for p in /proc/[0-9]*; do
		case "$(cat $p/comm 2>/dev/null)" in $1*) echo ${p#/proc/}; return ;; esac
	done
}
one() {	# one MODE REP
	mode=$1 rep=$2 h=/tmp/cost-$1-$2
	/bin/pglike -b -n 2 -s 65536 -q 1024 -Q 4096 -t $SECS >$h.oracle 2>&1 &
	pid=$!
	i=0
	while ! grep -qx ready $h.oracle && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	t0=$(awk '{ print $1 }' /proc/uptime)
	rec= kt= comm=none k0=0 m0=0
	if [ $mode != none ]; then
		$MT record -p $pid -e $mode -o $h.mtrace >$h.rec 2>$h.err &
		rec=$!
		case $mode in accessed) comm=memtrace_scan ;; damon) comm=kdamond ;; esac
		i=0
		while [ -z "$kt" ] && [ $i -lt 100 ]; do sleep 0.1; kt=$(kthread $comm); i=$((i + 1)); done
		[ -n "$kt" ] && comm=$(cat /proc/$kt/comm) k0=$(ticks $kt)
		m0=$(ticks $rec)
	fi
	# the monitor's CPU up to just before the target's end
	sleep $((SECS - 2))
	t1=$(awk '{ print $1 }' /proc/uptime)
	k1=0 m1=0
	[ -n "$kt" ] && k1=$(ticks $kt)
	[ -n "$rec" ] && m1=$(ticks $rec)
	wait $pid
	[ -n "$rec" ] && wait $rec
	rounds=$(awk '$1 == "rounds" { sub("n=", "", $3); n += $3 } END { print n + 0 }' $h.oracle)
	echo "    cost-run mode=$mode rep=$rep rounds=$rounds secs=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }') mon_ticks=$((k1 - k0)) mon=$comm rec_ticks=$((m1 - m0))"
	if [ $mode != none ] && ! [ -s $h.mtrace ]; then
		echo "FAIL cost-$mode-$rep: no trace: $(tr '\n' ' ' <$h.err)"
	elif [ "$rounds" = 0 ]; then
		echo "FAIL cost-$mode-$rep: pglike reported no rounds: $(tr '\n' ' ' <$h.oracle)"
	fi
	[ $mode != none ] && grep -E 'accessed bits:|damon:' $h.err | sed 's/^/    /' | head -2
	rm -f $h.mtrace
}
modes="none accessed"
[ -d /sys/kernel/mm/damon/admin/kdamonds ] && modes="$modes damon"
r=1
while [ $r -le $REPS ]; do
	for m in $modes; do one $m $r; done
	r=$((r + 1))
done
echo "ok   cost-compare: $REPS rounds of $modes"
