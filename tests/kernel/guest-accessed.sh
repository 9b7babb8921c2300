#!/bin/sh
# guest-accessed.sh - memtrace.ko's accessed-bit source (-e accessed) in a
# guest without a PMU, on pglike (tests/workloads/pglike.c: a parent, forked
# single-threaded children sharing a MAP_SHARED|MAP_ANONYMOUS segment, a hot
# subset re-read every 100 ms, private hot and cold pages, a THP region):
#   accessed:       record -p PARENT -e accessed, TLB flush on;
#   accessed-noflush: the same with --no-tlb-flush (what is lost: reported);
#   accessed-busy(-noflush): one child re-reading without a pause (its
#                   translations stay in the TLB), with and without flush;
#   accessed-churn: children forking, exiting and unmapping during 50 ms
#                   passes; rmmod refused while the session is open;
#   accessed-cost:  a 256 MiB shared segment: ns per page, the scan
#                   thread's and memtracectl's CPU (not in a debug kernel).
# Ships each trace (dump CSV), the workload's output (the oracle) and
# memtracectl's stderr to the host (tests/kernel/check-accessed.sh), which
# checks the page sets with tests/integration/check_accessed.py.
MT=/bin/memtracectl
. /bin/guest-lib.sh	# ship, kthread
# starts pglike (a child of this shell: $pid), waits for its "ready" (its
# oracle printed)
start_pglike() {
	out=$1; shift
	/bin/pglike "$@" >$out 2>&1 &
	pid=$!
	i=0
	while ! grep -qx ready $out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
# acc NAME "PGLIKE-OPTIONS" RECORD-OPTIONS... : one recording of pglike, its
# files shipped
acc() {
	n=$1 w=$2; shift 2
	h=/tmp/$n
	start_pglike $h.oracle $w -s 1024 -q 64 -Q 192 -t 12
	if ! grep -qx ready $h.oracle; then
		echo "FAIL $n-workload: pglike not ready: $(tr '\n' ' ' <$h.oracle)"
		return
	fi
	if $MT record -p $pid -e accessed "$@" -d 6 -o $h.mtrace >$h.rec 2>$h.err; then
		echo "ok   $n-record: $(grep 'accessed bits:' $h.err | sed 's/^memtracectl: //')"
	else
		echo "FAIL $n-record: $(tr '\n' ' ' <$h.err)"
	fi
	kill $pid 2>/dev/null
	wait $pid
	$MT dump $h.mtrace >$h.csv 2>/dev/null
	$MT dump --meta $h.mtrace 2>/dev/null | grep -v "^[0-9]" >$h.meta	# not the samples again
	$MT report --window 1s $h.mtrace >$h.report 2>&1
	gzip -1 $h.csv
	ship $n.csv.gz $h.csv.gz
	ship $n.meta $h.meta
	ship $n.oracle $h.oracle
	ship $n.err $h.err
	ship $n.report $h.report
}
# "cost": only the cost part (bench/kernel/accessed.sh)
only=${1:-all}
[ "$only" = cost ] || {
if $MT status >/tmp/as.out 2>&1 && grep -q 'module: accessed bits: available' /tmp/as.out; then
	echo "ok   accessed-status: $(grep 'module: accessed' /tmp/as.out | sed 's/^ *//')"
else
	echo "FAIL accessed-status: $(grep 'module' /tmp/as.out | tr '\n' ' ')"
fi
# -e auto picks the accessed bits here (no PMU, module loaded), and the
# trace carries a pass per process scan: the report's 1 s windows are seen
h=/tmp/accessed-auto
start_pglike $h.oracle -n 2 -s 256 -q 32 -Q 64 -t 60
$MT record -p $pid -d 5 -o $h.mtrace >/dev/null 2>$h.err
kill $pid 2>/dev/null
wait $pid
$MT dump --meta $h.mtrace 2>/dev/null | grep -v "^[0-9]" >$h.meta	# not the samples again
$MT report --window 1s $h.mtrace >$h.report 2>&1
if grep -q '^sample_class=accessed-bit' $h.meta && grep -q '^passes=3' $h.meta &&
   grep -q 'memtracectl: -e auto: no hardware memory sampling here' $h.err &&
   grep -q '^passes: ' $h.report; then
	echo "ok   accessed-auto: -e auto picked the accessed bits; $(grep '^passes: \|^blind: ' $h.report | tr '\n' ' ')"
else
	echo "FAIL accessed-auto: $(grep '^sample_class\|^passes' $h.meta | tr '\n' ' ') $(tr '\n' ' ' <$h.err) $(grep '^passes\|^blind' $h.report | tr '\n' ' ')"
fi

# no PMU here: the source must not need one
acc accessed "-n 3"
acc accessed-noflush "-n 3" --no-tlb-flush
# one child re-reading without a pause, alone on a vCPU: no context switch
# flushes its TLB, so only the scan's flush makes its accesses set the bits
acc accessed-busy "-n 1 -b"
acc accessed-busy-noflush "-n 1 -b" --no-tlb-flush

# churn: 50 ms passes over processes that fork, exit and unmap all along
n=accessed-churn h=/tmp/$n
start_pglike $h.oracle -c -n 3 -s 512 -q 32 -Q 32 -t 12
$MT record -p $pid -e accessed --scan-period 50ms -d 6 -o $h.mtrace >$h.rec 2>$h.err &
rec=$!
sleep 3
if rmmod memtrace 2>/tmp/rmmod.err; then
	echo "FAIL $n-rmmod: memtrace unloaded while a session was open"
	insmod /memtrace.ko
else
	echo "ok   $n-rmmod: refused while the session is open ($(head -1 /tmp/rmmod.err))"
fi
if wait $rec; then
	echo "ok   $n-record: $(grep 'accessed bits:' $h.err | sed 's/^memtracectl: //')"
else
	echo "FAIL $n-record: $(tr '\n' ' ' <$h.err)"
fi
# every record of the workload's tree: pids seen (the grandchildren come and go)
$MT dump $h.mtrace 2>/dev/null | awk -F, 'NR > 1 { p[$2] = 1 } END { print length(p) }' >$h.pids
if [ "$(cat $h.pids)" -gt 4 ]; then
	echo "ok   $n-descendants: pages of $(cat $h.pids) processes (parent, children, short-lived grandchildren)"
else
	echo "FAIL $n-descendants: pages of $(cat $h.pids) processes only"
fi
kill $pid 2>/dev/null
wait $pid

# the targets exit: the session ends by itself (no -d), the trace says so
n=accessed-exit h=/tmp/$n
start_pglike $h.oracle -n 2 -s 256 -q 16 -Q 16 -t 4
if timeout 120 $MT record -p $pid -e accessed -o $h.mtrace >$h.rec 2>$h.err &&
   $MT report $h.mtrace 2>/dev/null | grep -q 'ended: target-exited'; then
	echo "ok   $n: the recording ended with its targets (end target-exited)"
else
	echo "FAIL $n: $(tr '\n' ' ' <$h.err) $($MT report $h.mtrace 2>&1 | grep -E 'ended|samples' | tr '\n' ' ')"
fi
wait $pid

}
# cost: 256 MiB shared, 1/4 of it hot, two children.  Not in a debug kernel
# (GUEST_SLOW > 1: KASAN's shadow checks are what such a scan would time,
# and its minutes are CI's)
[ "${GUEST_SLOW:-1}" = 1 ] || [ "$only" = cost ] || exit 0
n=accessed-cost h=/tmp/$n
start_pglike $h.oracle -n 2 -s 65536 -q 1024 -Q 4096 -t 40
$MT record -p $pid -e accessed -d 20 -o $h.mtrace >$h.rec 2>$h.err &
rec=$!
# the scan thread, once memtracectl has started the session (slow guests: up to 60 s)
kt= i=0
while [ -z "$kt" ] && [ $i -lt 120 ]; do
	sleep 0.5
	i=$((i + 1))
	kt=$(kthread memtrace_scan)
done
sleep 2	# past the baseline pass
[ -n "$kt" ] || echo "FAIL $n-thread: no memtrace_scan thread while recording"
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
k0=$(ticks $kt) m0=$(ticks $rec) t0=$(awk '{ print $1 }' /proc/uptime)
sleep 8
k1=$(ticks $kt) m1=$(ticks $rec) t1=$(awk '{ print $1 }' /proc/uptime)
wait $rec
hz=100
echo "    cost: scan thread (pid $kt) $(awk -v a=$k0 -v b=$k1 -v s=$t0 -v e=$t1 -v hz=$hz 'BEGIN { printf "%.2f", 100 * (b - a) / hz / (e - s) }') % of a CPU ($k0 -> $k1 ticks), memtracectl (pid $rec) $(awk -v a=$m0 -v b=$m1 -v s=$t0 -v e=$t1 -v hz=$hz 'BEGIN { printf "%.2f", 100 * (b - a) / hz / (e - s) }') % ($m0 -> $m1 ticks) over $(awk -v s=$t0 -v e=$t1 'BEGIN { printf "%.1f", e - s }') s"
if grep -q 'accessed bits:' $h.err; then
	echo "ok   $n: $(grep 'accessed bits:' $h.err | sed 's/^memtracectl: //')"
else
	echo "FAIL $n: $(tr '\n' ' ' <$h.err)"
fi
kill $pid 2>/dev/null
wait $pid
exit 0
