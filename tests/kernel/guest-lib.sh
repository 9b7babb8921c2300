# guest-lib.sh - sourced by the guest test scripts (tests/kernel/guest-*.sh).
#
# kthread NAME: the pid of the first process whose comm starts with NAME
# (memtrace_scan, kdamond), nothing if none.
#
# ship NAME FILE: the file to the host, base64 between "BEGIN-FILE NAME" and
# "END-FILE" lines on the console (tests/kernel/check-*.sh decode them).
# The kernel's console messages are held back meanwhile (console loglevel 1:
# emergencies only, e.g. a panic): a "clocksource: Long readout interval"
# line once landed in the middle of a base64 line and broke a file.  They
# stay in the kernel log, which guest-init.sh checks for splats at the end.
ship() {
	lvl=$(cut -f1 /proc/sys/kernel/printk)
	echo 1 >/proc/sys/kernel/printk
	echo "BEGIN-FILE $1"
	base64 "$2"
	echo "END-FILE"
	echo "$lvl" >/proc/sys/kernel/printk
}
kthread() {
	for p in /proc/[0-9]*; do
		case "$(cat $p/comm 2>/dev/null)" in $1*) echo ${p#/proc/}; return ;; esac
	done
}
