#!/bin/bash
# debug-suite.sh - `make check-kernel-debug`: the guest tests of memtrace.ko
# (tests/kernel/mtktest, record, the race test mtkrace) in a debug build of
# Debian's 6.12 kernel: KASAN (kasan.fault=panic), lockdep (PROVE_LOCKING),
# DEBUG_ATOMIC_SLEEP, KCOV, booted with panic_on_warn and oops=panic.  The
# kernel carries kernel/perf-pebs-hook.patch: pebs-boot checks that
# memtrace.ko finds the PEBS sink hook (tests/kernel/guest-pebs.sh);
# pebs-drain runs the patch's drain on synthetic PEBS records through its
# test entry (CONFIG_PERF_X86_PEBS_SINK_SELFTEST, tests/pebs/draintest);
# pebs-drain-e2e and ibs-inject deliver synthetic PEBS records and IBS op
# samples into memtrace.ko (selftest=1) while memtracectl records, and check
# the trace (tests/kernel/guest-e2e.sh, tests/pebs/e2etest).
# The kernel is built once (tests/kernel/build-debug-kernel.sh, tens of
# minutes on 2 cores) and cached in $MEMTRACE_CACHE.  Any splat fails the
# run with the console excerpt.  One line per test, then "N passed, N failed".
#   KERNEL_TESTS="race"   run only these guest tests ("race=600": the race
#                         test stops after 600 s, FAIL with the calls made;
#                         "race-ops=N": N calls instead of 100,000)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
build=${BUILD:-build}
pass=0 fail=0
tally() {
	while IFS= read -r l; do
		echo "$l"
		case "$l" in
		"ok "*) pass=$((pass + 1)) ;;
		"FAIL "*) fail=$((fail + 1)) ;;
		esac
	done
}
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit; }
for t in qemu-system-x86_64 cpio gzip bc flex bison; do
	command -v $t >/dev/null || { echo "FAIL debug-prereqs: no $t (tools/deps/kernel.txt; make deps)"; fail=1; finish; }
done
if ! make -s --no-print-directory static kernel-tests >/tmp/mt-dbgk-make.$$ 2>&1; then
	echo "FAIL debug-build-tests: $(tail -3 /tmp/mt-dbgk-make.$$ | tr '\n' ' ')"
	fail=$((fail + 1))
fi
rm -f /tmp/mt-dbgk-make.$$
t0=$(date +%s)
if ! kern=$(tests/kernel/build-debug-kernel.sh 2>/tmp/mt-dbgk-kernel.$$); then
	echo "FAIL debug-kernel: $(tail -5 /tmp/mt-dbgk-kernel.$$ | tr '\n' ' ')"
	rm -f /tmp/mt-dbgk-kernel.$$
	fail=$((fail + 1))
	finish
fi
echo "ok   debug-kernel: $(cat /tmp/mt-dbgk-kernel.$$ | tail -1 | grep . || echo cached), ready in $(($(date +%s) - t0)) s"
pass=$((pass + 1))
rm -f /tmp/mt-dbgk-kernel.$$
read -r abi root <<<"$kern"
# race-ops=20000: a fifth of the race test's calls (the KASAN kernel made
# 50,293 calls in its 1,400 s limit on a loaded 2-core host)
tests=${KERNEL_TESTS:-pebs-boot pebs-drain pebs-drain-e2e ibs-inject pages overflow faulttp probe ioctl fuzz perm lifecycle cpuoff targets security record accessed race-ops=20000}
out=$build/kernel-guest/$abi
. tests/kernel/debug-guest.conf
tally < <(GUEST_TIMEOUT=${GUEST_TIMEOUT:-3000} GUEST_CPU=$debug_cpu GUEST_APPEND=$debug_append \
	tests/kernel/run-guest.sh "$abi" "$root" "$out" $tests)
# the race line counts the module's KCOV sites its calls reached; of how many
ko=$out/module/kernel/memtrace.ko
[ -e "$ko" ] && echo "    memtrace.ko: $(objdump -dr "$ko" | grep -c 'R_X86_64_.*__sanitizer_cov_trace_pc') KCOV sites in all"
if echo " $tests " | grep -q " record " && [ -s "$out/console.log.txt" ]; then
	tally < <(SERIES_CYCLES=0 tests/kernel/check-record.sh "$out/console.log.txt" "$out/record" "[debug]")
fi
if echo " $tests " | grep -q " accessed " && [ -s "$out/console.log.txt" ]; then
	tally < <(tests/kernel/check-accessed.sh "$out/console.log.txt" "$out/accessed" "[debug]")
fi
finish
