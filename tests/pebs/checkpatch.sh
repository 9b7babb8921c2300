#!/bin/bash
# checkpatch.sh - kernel/'s C files and headers against the kernel's own style
# checker, `checkpatch.pl --strict`, from the pinned Debian source tree that
# tests/pebs/kbuild-check.sh unpacks (run it first).
# Two message types are left out, for one reason: memtrace.ko is built out of
# tree against kernels 6.1 to 6.18, so it must test LINUX_VERSION_CODE, and
# checkpatch reads "LINUX_VERSION_CODE >= KERNEL_VERSION(..)" as a constant on
# the left.  The patch kernel/perf-pebs-hook.patch is a diff, not checked here
# (its code compiles warning-free in the patched tree: kbuild-check.sh).
# Prints "ok   checkpatch-kernel ..." or "FAIL checkpatch-kernel: ..." lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pebs/kernel-pin.sh"
cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/pebs
cp=$cache/src-$PIN_DEB_VERSION/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	echo "FAIL checkpatch-kernel: no $cp (tests/pebs/kbuild-check.sh unpacks it)"
	exit 1
fi
cd "$top"
files=$(ls kernel/*.c kernel/*.h kernel/pebs-hook/*.h)
out=$(perl "$cp" --strict --no-tree --terse --show-types \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f $files 2>&1)
bad=$(echo "$out" | grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK)')
if [ -n "$bad" ]; then
	echo "FAIL checkpatch-kernel: $(echo "$bad" | wc -l) messages, first: $(echo "$bad" | head -3 | tr '\n' ' ')"
	exit 1
fi
echo "ok   checkpatch-kernel: checkpatch.pl --strict clean on $(echo $files | wc -w) files of kernel/ ($PIN_SERIES tree)"
