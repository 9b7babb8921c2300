#!/bin/bash
# debug-boot-loop.sh [N] - boots the debug kernel (tests/kernel/
# build-debug-kernel.sh, built first if not cached) N times (default 20)
# with an init that only prints "BOOT-OK ..." and reboots: the same machine
# and kernel command line as the guest tests (tests/kernel/run-guest.sh,
# tests/kernel/debug-suite.sh), to check that the boot itself is reliable.
# One line per boot (ok/FAIL, seconds), then "N clean of M boots"; a failed
# boot's console is kept in $OUT (default build/debug-boot-loop/).
#   DEBUG_CPU, DEBUG_APPEND: another -cpu, kernel command line (default:
#   tests/kernel/debug-guest.conf's)
set -u
n=${1:-20}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/build/debug-boot-loop}
. "$top/tests/kernel/debug-guest.conf"
cpu=${DEBUG_CPU:-$debug_cpu}
append=${DEBUG_APPEND:-$debug_append}
kern=$("$top/tests/kernel/build-debug-kernel.sh") || exit 1
read -r abi root <<<"$kern"
mkdir -p "$out/initramfs/bin" "$out/initramfs/proc"
cp /bin/busybox "$out/initramfs/bin/busybox"
cat >"$out/initramfs/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo "BOOT-OK cpus=$(/bin/busybox grep -c ^processor /proc/cpuinfo)"
/bin/busybox reboot -f
EOF
chmod +x "$out/initramfs/init"
(cd "$out/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"
clean=0
for i in $(seq 1 "$n"); do
	t0=$(date +%s)
	timeout 600 qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu "$cpu" -smp 2 \
		-m 1536 -nographic -no-reboot -monitor none -serial stdio \
		-kernel "$root/boot/vmlinuz-$abi-amd64" -initrd "$out/initrd.gz" \
		-append "console=ttyS0 panic_on_warn=1 oops=panic panic=-1 loglevel=5 nokaslr $append" \
		</dev/null 2>&1 | tr -d '\r' >"$out/console.txt"
	s=$(($(date +%s) - t0))
	if grep -q '^BOOT-OK cpus=2' "$out/console.txt" &&
	   ! grep -qE 'WARNING:|BUG:|Oops|Kernel panic|Call Trace|KASAN:|UBSAN' "$out/console.txt"; then
		clean=$((clean + 1))
		echo "ok   boot $i: ${s} s"
	else
		cp "$out/console.txt" "$out/console-$i.txt"
		echo "FAIL boot $i: ${s} s, see $out/console-$i.txt"
		grep -m1 -E 'BUG:|Kernel panic|WARNING:' "$out/console.txt" | sed 's/^/    /'
	fi
done
echo "$clean clean of $n boots"
[ "$clean" = "$n" ]
