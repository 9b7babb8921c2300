#!/bin/busybox sh
# guest-init.sh - /init of the test initramfs (tests/kernel/run-guest.sh).
# Loads memtrace.ko, runs the guest tests (one "ok"/"FAIL" line each),
# checks dmesg for splats and powers off.  Every test runs under timeout.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
# KCOV (a debug kernel: tests/kernel/mtkcov.h) lives in debugfs
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# page faults are software events (never throttled); keep perf from lowering
# the sample rate under the slow emulated CPU anyway
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
echo "GUEST-START $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

# A debug kernel (KASAN, lockdep, KCOV: tests/kernel/debug-suite.sh) runs the
# tests several times slower under TCG: its time limits are 5 times longer.
slow=1
[ -r /proc/lockdep_stats ] && slow=5
export GUEST_SLOW=$slow

run() {	# run NAME TIMEOUT CMD... : CMD prints its own ok/FAIL lines
	name=$1 t=$(($2 * slow)); shift 2
	# to a file, not $(...): a killed test may leave children holding a pipe
	timeout "$t" "$@" >/tmp/out.$name 2>&1; rc=$?
	grep -E '^(ok |FAIL )' /tmp/out.$name
	grep -vE '^(ok |FAIL )' /tmp/out.$name | sed 's/^/    /' | head -20
	if [ $rc != 0 ] && ! grep -q '^FAIL ' /tmp/out.$name; then
		echo "FAIL $name: exit $rc"
	fi
}

if insmod /memtrace.ko; then
	echo "ok   insmod: /dev/memtrace $(stat -c %a /dev/memtrace), mode $(cat /sys/module/memtrace/parameters/mode)"
	for t in $(cat /tests.list); do
		case $t in
		fuzz) run fuzz 240 /bin/mtktest fuzz 3000 ;;
		lifecycle) run lifecycle 120 /bin/mtktest lifecycle /memtrace.ko ;;
		record) timeout $((300 * slow)) /bin/guest-record.sh || echo "FAIL record: exit $?" ;;
		bpf) timeout $((300 * slow)) /bin/guest-record.sh bpf || echo "FAIL bpf: exit $?" ;;
		hint) timeout 300 /bin/guest-hint.sh || echo "FAIL hint: exit $?" ;;
		damon) timeout 300 /bin/guest-damon.sh || echo "FAIL damon: exit $?" ;;
		allocs) timeout $((300 * slow)) /bin/guest-allocs.sh || echo "FAIL allocs: exit $?" ;;
		accessed) timeout $((400 * slow)) /bin/guest-accessed.sh || echo "FAIL accessed: exit $?" ;;
		accessed-cost) timeout $((400 * slow)) /bin/guest-accessed.sh cost || echo "FAIL accessed-cost: exit $?" ;;
		pebs-drain) timeout $((120 * slow)) /bin/guest-drain.sh || echo "FAIL pebs-drain: exit $?" ;;
		pebs-boot) timeout $((300 * slow)) /bin/guest-pebs.sh || echo "FAIL pebs-boot: exit $?" ;;
		pebs-drain-e2e) timeout $((240 * slow)) /bin/guest-e2e.sh pebs || echo "FAIL pebs-drain-e2e: exit $?" ;;
		ibs-inject) timeout $((120 * slow)) /bin/guest-e2e.sh ibs || echo "FAIL ibs-inject: exit $?" ;;
		cost-compare) timeout $((1200 * slow)) /bin/guest-cost.sh || echo "FAIL cost-compare: exit $?" ;;
		bench) run bench 800 /bin/mtbench ${MTBENCH_REPS:-9} ;;
		race) run race 1500 /bin/mtkrace -n 100000 -s 1 -T 1400 ;;
		race=*) run race $((${t#race=} + 60)) /bin/mtkrace -n 100000 -s 1 -T ${t#race=} ;;
		race-ops=*) run race 1500 /bin/mtkrace -n ${t#race-ops=} -s 1 -T 1400 ;;
		fault_probe=0)	# page faults through perf's overflow path: the exact tests again
			echo N >/sys/module/memtrace/parameters/fault_probe
			[ "$(cat /sys/module/memtrace/parameters/fault_probe)" = N ] &&
				echo "ok   fault_probe=0: parameter N: page-fault sessions take perf's overflow path" ||
				echo "FAIL fault_probe=0: the parameter did not change"
			for s in pages overflow targets; do
				run "$s" 120 /bin/mtktest "$s" | sed -E 's/^(ok  |FAIL) /\1 fault_probe=0 /'
			done
			echo Y >/sys/module/memtrace/parameters/fault_probe ;;
		*) run "$t" 120 /bin/mtktest "$t" ;;
		esac
	done
	if [ -e /sys/module/memtrace ] && rmmod memtrace; then
		echo "ok   rmmod"
	else
		echo "FAIL rmmod: memtrace not unloadable at the end"
	fi
else
	echo "FAIL insmod: memtrace.ko did not load"
fi
# a debug kernel (tests/kernel/debug-suite.sh): its checkers were armed
# throughout (lockdep turns itself off after its first report)
if [ -r /proc/lockdep_stats ]; then
	if grep -qE 'debug_locks: +1$' /proc/lockdep_stats &&
	   dmesg | grep -q 'KernelAddressSanitizer initialized'; then
		echo "ok   debug: lockdep still armed at the end, KASAN initialized"
	else
		echo "FAIL debug: lockdep turned off or KASAN not initialized"
		grep debug_locks /proc/lockdep_stats
	fi
fi
# (a PROVE_LOCKING kernel says "RCU lockdep checking is enabled" at boot)
if dmesg | grep -v 'RCU lockdep checking is enabled' | grep -E 'WARNING:|BUG:|Oops|Call Trace|lockdep|possible circular|possible recursive|INFO: task|general protection|kernel BUG|UBSAN|KASAN|RCU stall|memtrace.*leak'; then
	echo "FAIL dmesg: splat in the guest kernel log"
else
	echo "ok   dmesg: no WARN/BUG/oops/lockdep splat"
fi
echo "GUEST-DONE"
# without ACPI (the debug kernel) poweroff halts: reboot ends qemu -no-reboot
[ -d /sys/firmware/acpi ] && poweroff -f
reboot -f
