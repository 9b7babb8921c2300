#!/bin/sh
# guest-cost.sh - what watching pglike's re-accesses costs, side by side:
# untraced, memtrace.ko's accessed-bit scan (-e accessed, 1 s passes, TLB
# flush on) and DAMON vaddr (-e damon, its default intervals), REPS rounds
# of the three in turn (bench/kernel/compare.sh boots it with one vCPU and
# -icount: CPU times count instructions).  damon-fixed: DAMON's default
# intervals (--damon-budget 0); damon: memtracectl's default 2 % budget.  Workload: pglike -b, two busy
# children re-reading every 4th page of a 256 MiB shared anonymous segment
# and 1,024 private pages each, for RUN s (pglike's clock, default 4 x SECS); the
# children's completed rounds are the throughput the monitor takes away.
# The monitor's CPU is measured over SECS s from its start, well before the
# end (a starved guest shell wakes late).  One line per run:
#   cost-run mode=M rep=R rounds=N secs=S mon_ns=T mon=COMM rec_ns=T
# (CPU time from /proc/PID/schedstat over the measured S seconds; mon: the
# kernel thread
# that does the monitoring, memtrace_scan or kdamond.N; rec: memtracectl).
MT=/bin/memtracectl
# (the kernel hands memtrace_cost_*= of its command line to init as variables)
REPS=${memtrace_cost_reps:-5} SECS=${memtrace_cost_secs:-5} RUN=${memtrace_cost_run:-$((4 * ${memtrace_cost_secs:-5}))}
cpu_ns() { awk '{ print $1 }' /proc/$1/schedstat 2>/dev/null | grep . || echo gone; }
. /bin/guest-lib.sh	# kthread
one() {	# one MODE REP
	mode=$1 rep=$2 h=/tmp/cost-$1-$2
	/bin/pglike -b -n 2 -s 65536 -q 1024 -Q 4096 -t $RUN >$h.oracle 2>&1 &
	pid=$!
	i=0
	while ! grep -qx ready $h.oracle && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	rec= kt= comm=none k0=0 m0=0
	if [ $mode != none ]; then
		case $mode in
		damon-fixed) $MT record -p $pid -e damon --damon-budget 0 -o $h.mtrace >$h.rec 2>$h.err & ;;
		*) $MT record -p $pid -e $mode -o $h.mtrace >$h.rec 2>$h.err & ;;
		esac
		rec=$!
		case $mode in accessed) comm=memtrace_scan ;; damon*) comm=kdamond ;; esac
		i=0
		while [ -z "$kt" ] && [ $i -lt 100 ]; do sleep 0.1; kt=$(kthread $comm); i=$((i + 1)); done
		[ -n "$kt" ] && comm=$(cat /proc/$kt/comm) k0=$(cpu_ns $kt)
		m0=$(cpu_ns $rec)
	fi
	t0=$(awk '{ print $1 }' /proc/uptime)
	sleep $SECS
	t1=$(awk '{ print $1 }' /proc/uptime)
	k1=0 m1=0
	[ -n "$kt" ] && k1=$(cpu_ns $kt)
	[ -n "$rec" ] && m1=$(cpu_ns $rec)
	wait $pid
	[ -n "$rec" ] && wait $rec
	case "$k0$k1$m0$m1" in *gone*)
		echo "FAIL cost-$mode-$rep: the monitor ended before its CPU was read ($k0 $k1 $m0 $m1)"
		k0=0 k1=0 m0=0 m1=0 ;;
	esac
	rounds=$(awk '$1 == "rounds" { sub("n=", "", $3); n += $3 } END { print n + 0 }' $h.oracle)
	# what the monitor looked at: pages per process scan, or DAMON's regions
	seen=$(sed -n 's/.*accessed bits: \([0-9]*\) process scans.*found accessed, \([0-9]*\) present pages looked at.*/scans=\1 looked=\2/p; s/.*damon: \([0-9]*\) aggregations, \([0-9]*\) region rows.*/aggregations=\1 rows=\2/p' $h.err 2>/dev/null | head -1)
	echo "    cost-run mode=$mode rep=$rep rounds=$rounds run_secs=$RUN secs=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }') mon_ns=$((k1 - k0)) mon=$comm rec_ns=$((m1 - m0)) $seen"
	if [ $mode != none ] && ! [ -s $h.mtrace ]; then
		echo "FAIL cost-$mode-$rep: no trace: $(tr '\n' ' ' <$h.err)"
	elif [ "$rounds" = 0 ]; then
		echo "FAIL cost-$mode-$rep: pglike reported no rounds: $(tr '\n' ' ' <$h.oracle)"
	fi
	[ $mode != none ] && grep -E 'accessed bits:|damon:' $h.err | sed 's/^/    /' | head -3
	rm -f $h.mtrace
}
modes="none accessed"
[ -d /sys/kernel/mm/damon/admin/kdamonds ] && modes="$modes damon-fixed damon"
r=1
while [ $r -le $REPS ]; do
	for m in $modes; do one $m $r; done
	r=$((r + 1))
done
echo "ok   cost-compare: $REPS rounds of $modes"
