#!/bin/bash
# run-guest.sh ABI ROOT OUT [TESTS...] - builds memtrace.ko against the
# unpacked Debian kernel in ROOT (tests/kernel/fetch-kernels.sh), packs an
# initramfs (busybox-static, the module, static test programs, memtracectl)
# and boots it in qemu (TCG, 2 CPUs, panic_on_warn).  Prints the guest's
# "ok"/"FAIL" lines prefixed with the kernel; exits non-zero on any failure,
# a splat on the console, or no clean end of the guest.
#   MEMTRACE_KO=path: boot this memtrace.ko instead of building one
#   GUEST_APPEND="...": more kernel command line (kasan.fault=panic)
#   GUEST_CPU=model: qemu's -cpu (default max)
#   GUEST_SMP=N: vCPUs (default 2)
#   GUEST_ICOUNT=S: qemu -icount shift=S (guest time = instructions executed
#     x 2^S ns: CPU times in the guest count instructions, free of host noise)
set -u
abi=$1 root=$2 out=$3; shift 3
tests=${*:-pages overflow ioctl fuzz perm lifecycle cpuoff targets security faulttp record race}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
tag="[${abi%%+*}]"
mkdir -p "$out" && out=$(cd "$out" && pwd)
fail=0

hdr=$root/usr/src/linux-headers-$abi-amd64
if [ -n "${MEMTRACE_KO:-}" ]; then
	ko=$MEMTRACE_KO
elif ko=$("$top/tests/kernel/build-module.sh" "$hdr" "$out/module" 2>"$out/module.err"); then
	echo "ok   $tag build: memtrace.ko against $abi headers, no warnings"
else
	echo "FAIL $tag build: $(head -5 "$out/module.err" | tr '\n' ' ')"
	exit 1
fi

# the PEBS sink drain test module (tests/pebs/draintest), when asked for
drain_ko=
if echo " $tests " | grep -q ' pebs-drain '; then
	if drain_ko=$("$top/tests/pebs/build-drain-test.sh" "$hdr" "$out/draintest" 2>"$out/draintest.err"); then
		echo "ok   $tag build: pebs_drain_test.ko against $abi, no warnings"
	else
		echo "FAIL $tag build: pebs_drain_test.ko: $(head -5 "$out/draintest.err" | tr '\n' ' ')"
		fail=1
		drain_ko=
	fi
fi

# the end-to-end test module (tests/pebs/e2etest), when asked for
e2e_ko=
if echo " $tests " | grep -qE ' (pebs-drain-e2e|ibs-inject) '; then
	if e2e_ko=$("$top/tests/pebs/build-drain-test.sh" "$hdr" "$out/e2etest" e2etest 2>"$out/e2etest.err"); then
		echo "ok   $tag build: pebs_e2e_test.ko against $abi, no warnings"
	else
		echo "FAIL $tag build: pebs_e2e_test.ko: $(head -5 "$out/e2etest.err" | tr '\n' ' ')"
		fail=1
		e2e_ko=
	fi
fi

# initramfs
ird=$out/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,proc,sys,dev,tmp,etc}
cp /bin/busybox "$ird/bin/busybox"
cp "$top/tests/kernel/guest-init.sh" "$ird/init"
cp "$top/tests/kernel/guest-record.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-hint.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-damon.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-allocs.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-accessed.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-cost.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-pebs.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-drain.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-e2e.sh" "$ird/bin/" 2>/dev/null || true
cp "$top/tests/kernel/guest-lib.sh" "$ird/bin/"
chmod +x "$ird/init"
cp "$ko" "$ird/memtrace.ko"
[ -z "$drain_ko" ] || cp "$drain_ko" "$ird/pebs_drain_test.ko"
[ -z "$e2e_ko" ] || cp "$e2e_ko" "$ird/pebs_e2e_test.ko"
for f in "$build"/kernel-tests/*; do [ -x "$f" ] && cp "$f" "$ird/bin/"; done
[ -x "$build/static/memtracectl" ] && cp "$build/static/memtracectl" "$ird/bin/"
for f in "$build"/workloads/*; do [ -x "$f" ] && cp "$f" "$ird/bin/"; done
echo "root:x:0:0:root:/:/bin/sh" >"$ird/etc/passwd"
echo $tests | tr ' ' '\n' >"$ird/tests.list"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"

# GUEST_NUMA_NODES=2: two NUMA nodes, one CPU and half the memory each
numa=()
if [ "${GUEST_NUMA_NODES:-1}" = 2 ]; then
	numa=(-smp 2,sockets=2,cores=1,threads=1 -object memory-backend-ram,id=m0,size=768M -object memory-backend-ram,id=m1,size=768M
	      -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1)
fi
log=$out/console.log
# One host thread for both vCPUs (thread=single): multi-threaded TCG let a
# vCPU run a stale translation of kernel text that another vCPU was patching
# (text_poke_bp of a perf static key: "Oops: int3" in __schedule, seen once
# in CI on 6.12); real CPUs and single-threaded TCG keep that coherent.
# no_timer_check: the IO-APIC timer check (a busy wait against the TSC while
# TCG translates the first timer interrupts) panicked a 6.1 guest under a
# loaded host once ("IO-APIC + timer doesn't work!"); qemu's timer works.
timeout "${GUEST_TIMEOUT:-900}" qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu "${GUEST_CPU:-max}" -smp "${GUEST_SMP:-2}" \
	${GUEST_ICOUNT:+-icount shift=$GUEST_ICOUNT} \
	-m 1536 "${numa[@]}" -nographic -no-reboot -monitor none -serial stdio \
	-kernel "$root/boot/vmlinuz-$abi-amd64" -initrd "$out/initrd.gz" \
	-append "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=5 nokaslr no_timer_check ${GUEST_APPEND:-}" \
	</dev/null >"$log" 2>&1
rc=$?
tr -d '\r' <"$log" >"$log.txt"
grep -E '^(ok |FAIL |    )' "$log.txt" | sed -E "s/^(ok  |FAIL) ?/\1 $tag /"
grep -q '^FAIL ' "$log.txt" && fail=1
splat='WARNING:|BUG:|Oops|Kernel panic|Call Trace|lockdep|possible circular|KASAN|UBSAN'
benign='RCU lockdep checking is enabled'	# boot message of PROVE_LOCKING
if first=$(grep -vE '^(ok |FAIL )' "$log.txt" | grep -nE "$splat" | grep -v "$benign" | head -1 | cut -d: -f1) &&
   [ -n "$first" ]; then
	echo "FAIL $tag console: kernel splat (see $log.txt):"
	grep -vE '^(ok |FAIL )' "$log.txt" | sed -n "$first,$((first + 40))p" | sed 's/^/    /'
	fail=1
fi
if ! grep -q '^GUEST-DONE' "$log.txt"; then
	echo "FAIL $tag boot: guest did not finish (qemu exit $rc, see $log.txt)"
	tail -15 "$log.txt" | sed 's/^/    /'
	fail=1
fi
exit $fail
