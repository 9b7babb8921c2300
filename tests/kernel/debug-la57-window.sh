#!/bin/bash
# debug-la57-window.sh [CPU] - reproduces on demand the early-boot KASAN
# report of the debug kernel with 5-level paging (docs/kernel-module.md,
# "Debug kernel"): boots it under qemu's gdb stub with -cpu CPU (default
# max), stops the boot CPU at identify_cpu() and at get_cpu_cap() (its
# feature bits, LA57 included, are cleared in between) for 2 s each, so a
# timer interrupt becomes pending and arrives inside that window.  With LA57
# ("max") this gives "BUG: KASAN: wild-memory-access in do_raw_spin_lock"
# every time; with "max,la57=off" (tests/kernel/debug-guest.conf) the boot
# completes.  Prints the first KASAN/BOOT-OK line; not part of any suite.
# Needs gdb.
set -u
cpu=${1:-max}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/build/debug-la57-window}
kern=$("$top/tests/kernel/build-debug-kernel.sh") || exit 1
read -r abi root <<<"$kern"
vmlinux=$root/usr/src/linux-headers-$abi-amd64/vmlinux
mkdir -p "$out/initramfs/bin"
cp /bin/busybox "$out/initramfs/bin/busybox"
printf '#!/bin/busybox sh\necho BOOT-OK\n/bin/busybox reboot -f\n' >"$out/initramfs/init"
chmod +x "$out/initramfs/init"
(cd "$out/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"
port=$((20000 + $$ % 10000))
timeout 600 qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu "$cpu" -smp 2 \
	-m 1536 -nographic -no-reboot -monitor none -serial stdio -gdb "tcp:127.0.0.1:$port" -S \
	-kernel "$root/boot/vmlinuz-$abi-amd64" -initrd "$out/initrd.gz" \
	-append "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=5 nokaslr kasan.fault=panic no_timer_check" \
	</dev/null >"$out/console.log" 2>&1 &
qemu=$!
sleep 1
timeout 600 gdb -q -batch -ex 'set pagination off' -ex "target remote 127.0.0.1:$port" \
	-ex 'hbreak identify_cpu' -ex continue -ex delete -ex 'shell sleep 2' \
	-ex 'hbreak get_cpu_cap' -ex continue -ex delete -ex 'shell sleep 2' -ex continue \
	"$vmlinux" >"$out/gdb.log" 2>&1
wait $qemu
tr -d '\r' <"$out/console.log" | grep -m2 -E 'BUG: KASAN|BOOT-OK|RIP: ' || echo "neither a KASAN report nor BOOT-OK: see $out/console.log"
