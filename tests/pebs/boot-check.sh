#!/bin/bash
# boot-check.sh - boot a tiny kernel built from the patched tree in qemu and
# run the module glue (kernel/pebs_hook.c, inside tests/pebs/hookprobe) in it.
#
# Opt-in (MEMTRACE_PEBS_BOOT=1 in tests/suites.d/60-pebs.sh): the kernel build
# takes ~6-10 min on 2 cores the first time (cached after).  Needs the tree
# that tests/pebs/kbuild-check.sh prepares.
#
# In the guest (TCG: no PMU, so no PEBS) it checks that the patched kernel
# boots, that the glue finds the hook with symbol_get(), reports the mode,
# refuses what it must, and that pebs_hook=0 gives the compatible mode.
# Prints "ok   NAME" / "FAIL NAME: why" lines; exits 1 on a failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pebs/kernel-pin.sh"
cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/pebs
jobs=${PEBS_KBUILD_JOBS:-$(nproc)}
patched=$cache/patched-$PIN_DEB_VERSION
obj=$cache/obj-boot-$PIN_DEB_VERSION
work=$cache/boot
logdir=$cache/logs
mkdir -p "$work" "$logdir"
fails=0
t0=$(date +%s)
ok()   { echo "ok   pebs-boot-$1"; }
fail() { echo "FAIL pebs-boot-$1: $2"; fails=$((fails + 1)); }

if [ ! -f "$patched/.memtrace-patch" ]; then
	fail kernel "no patched tree; run tests/pebs/kbuild-check.sh first"
	exit 1
fi

# A small config: tinyconfig plus what the guest and the PEBS code need.
if [ ! -f "$obj/.config" ]; then
	mkdir -p "$obj"
	make -s -C "$patched" O="$obj" tinyconfig >"$logdir/boot-config.log" 2>&1
	"$patched/scripts/config" --file "$obj/.config" \
		-e 64BIT -e SMP -e PRINTK -e TTY -e SERIAL_8250 \
		-e SERIAL_8250_CONSOLE -e BLK_DEV_INITRD -e RD_GZIP -e BINFMT_ELF \
		-e BINFMT_SCRIPT -e DEVTMPFS -e PROC_FS -e SYSFS -e TMPFS \
		-e MODULES -e MODULE_UNLOAD -e PERF_EVENTS -e CPU_SUP_INTEL \
		-e FUTEX -e EPOLL -e SIGNALFD -e TIMERFD -e EVENTFD -e SHMEM \
		-e MULTIUSER -e POSIX_TIMERS -e PCI -e ACPI -e HIGH_RES_TIMERS \
		-e X86_LOCAL_APIC -e PANIC_ON_OOPS -d MODULE_SIG
	make -s -C "$patched" O="$obj" olddefconfig >>"$logdir/boot-config.log" 2>&1
fi
for opt in PERF_EVENTS CPU_SUP_INTEL MODULES BLK_DEV_INITRD SERIAL_8250_CONSOLE; do
	if ! grep -q "^CONFIG_$opt=y" "$obj/.config"; then
		fail config "CONFIG_$opt not set in $obj/.config"
		exit 1
	fi
done

t=$(date +%s)
if ! make -C "$patched" O="$obj" -j"$jobs" bzImage modules >"$logdir/boot-build.log" 2>&1; then
	fail kernel "build failed (see $logdir/boot-build.log)"
	exit 1
fi
ok "kernel-build ($(( $(date +%s) - t )) s)"

# The probe module, with the repository's layout (kernel/ next to include/).
m=$work/probe
rm -rf "$m"
mkdir -p "$m/kernel" "$m/include/uapi"
cp "$top/tests/pebs/hookprobe/Kbuild" "$top/tests/pebs/hookprobe/probe.c" \
	"$top/kernel/pebs_hook.c" "$top/kernel/pebs_hook.h" "$m/kernel/"
cp "$top/include/uapi/memtrace.h" "$m/include/uapi/"
if ! make -C "$obj" M="$m/kernel" modules >"$logdir/boot-probe.log" 2>&1 ||
   grep -q 'warning:' "$logdir/boot-probe.log"; then
	fail probe-build "hookprobe.ko (see $logdir/boot-probe.log)"
	exit 1
fi
ok probe-build

ird=$work/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,proc,sys,dev}
cp /bin/busybox "$ird/bin/busybox"
cp "$m/kernel/hookprobe.ko" "$ird/"
cat >"$ird/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "GUEST-START $(uname -r)"
echo "== run hooked"
insmod /hookprobe.ko 2>&1 && rmmod hookprobe 2>&1 && echo "RMMOD-OK 1"
echo "== run pebs_hook=0"
insmod /hookprobe.ko pebs_hook=0 2>&1 && rmmod hookprobe 2>&1 && echo "RMMOD-OK 2"
echo "== dmesg"
dmesg | grep -E 'hookprobe|memtrace|Performance Events|WARNING|BUG'
echo GUEST-DONE
poweroff -f
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

log=$work/console.log
timeout 300 qemu-system-x86_64 -machine q35,accel=tcg -cpu max -smp 2 -m 512 \
	-nographic -no-reboot -monitor none -serial stdio \
	-kernel "$obj/arch/x86/boot/bzImage" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=4" \
	</dev/null >"$log" 2>&1
tr -d '\r' <"$log" >"$log.txt"
if ! grep -q '^GUEST-DONE' "$log.txt"; then
	fail boot "guest did not finish (see $log.txt)"
	exit 1
fi
ok boot

# Two runs, in order: hooked, then pebs_hook=0.  Expected lines per run.
dm=$(sed -n '/^== dmesg/,$p' "$log.txt")
run1=$(echo "$dm" | grep 'hookprobe:' | sed -n '1,/hookprobe: done/p')
run2=$(echo "$dm" | grep 'hookprobe:' | sed '1,/hookprobe: done/d')
expect() {	# expect NAME TEXT PATTERN
	if echo "$2" | grep -q "$3"; then ok "$1"; else fail "$1" "no '$3' in: $(echo "$2" | tr '\n' ' ' | cut -c1-300)"; fi
}
expect hook-found "$dm" 'memtrace: PEBS sink hook v1 found'
expect available "$run1" 'hookprobe: available=1'
expect mode-hook "$run1" 'hookprobe: mode=pebs-hook'
# qemu TCG has no PMU: x86_pmu.pebs is 0, so the kernel says -EOPNOTSUPP
expect attach-sw-refused "$run1" 'hookprobe: attach_sw=-95'
expect attach-null-ops-refused "$run1" 'hookprobe: attach_null_ops=-22'
expect no-pebs-event "$run1" 'hookprobe: create_pebs=-'
expect disabled-param "$run2" 'hookprobe: available=0'
if [ "$(grep -c '^RMMOD-OK' "$log.txt")" != 2 ]; then
	fail rmmod "hookprobe did not load and unload twice (see $log.txt)"
fi
if [ "$(echo "$dm" | grep -c 'hookprobe: done')" != 2 ]; then
	fail runs "expected 2 probe runs in dmesg, got $(echo "$dm" | grep -c 'hookprobe: done')"
fi
expect mode-compat "$run2" 'hookprobe: mode=perf-overflow'
expect compat-attach-refused "$run2" 'hookprobe: attach_sw=-95'
if grep -qE 'WARNING:|BUG:|Oops|Call Trace' "$log.txt"; then
	fail console "kernel splat (see $log.txt)"
else
	ok console-clean
fi
echo "pebs-boot: $(( $(date +%s) - t0 )) s in all"
[ "$fails" = 0 ]
