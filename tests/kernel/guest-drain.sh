#!/bin/sh
# guest-drain.sh - the pebs-drain test (tests/kernel/guest-init.sh): loads
# pebs_drain_test.ko (tests/pebs/draintest, built by run-guest.sh against the
# debug kernel), which runs the PEBS sink drain of kernel/perf-pebs-hook.patch
# on synthetic DS buffers through x86_pebs_sink_selftest_drain() at load and
# says one "ok/FAIL pebs-drain-GROUP" line per record format group in the
# kernel log; prints them and unloads it.
ko=/pebs_drain_test.ko
if [ ! -e $ko ]; then
	echo "FAIL pebs-drain: no $ko in the initramfs (run-guest.sh builds it when pebs-drain is asked for)"
	exit 1
fi
if ! grep -qE ' [Tt] x86_pebs_sink_selftest_drain$' /proc/kallsyms; then
	echo "FAIL pebs-drain: no x86_pebs_sink_selftest_drain in this kernel (CONFIG_PERF_X86_PEBS_SINK_SELFTEST)"
	exit 1
fi
if ! insmod $ko; then
	echo "FAIL pebs-drain: insmod $ko failed"
	exit 1
fi
dmesg | sed -n 's/.*pebs_drain_test: //p' >/tmp/drain.out
rmmod pebs_drain_test || echo "FAIL pebs-drain: rmmod pebs_drain_test failed"
grep -E '^(ok |FAIL )' /tmp/drain.out
if ! grep -q '^done: ' /tmp/drain.out; then
	echo "FAIL pebs-drain: no 'done' line from pebs_drain_test: $(tail -3 /tmp/drain.out | tr '\n' ' ')"
	exit 1
fi
grep '^done: ' /tmp/drain.out | sed 's/^/    /'
! grep -q '^FAIL ' /tmp/drain.out
