#!/bin/bash
# build-drain-test.sh KDIR OUTDIR - builds pebs_drain_test.ko (the PEBS sink
# drain test, tests/pebs/draintest) against the kernel build tree KDIR (the
# debug kernel: kernel/perf-pebs-hook.patch with
# CONFIG_PERF_X86_PEBS_SINK_SELFTEST) in a copy under OUTDIR.  Fails on any
# compiler warning.  Prints the .ko path.
set -eu
kdir=$1
mkdir -p "$2" && out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
cp "$top"/tests/pebs/draintest/Kbuild "$top"/tests/pebs/draintest/pebs_drain_test.c \
	"$top"/kernel/pebs-hook/pebs_extract.h "$out/"
log=$out/build.log
if ! make -C "$kdir" M="$out" CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-drain-test: warnings building against $kdir" >&2
	exit 1
fi
echo "$out/pebs_drain_test.ko"
