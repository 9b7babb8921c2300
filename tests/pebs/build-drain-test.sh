#!/bin/bash
# build-drain-test.sh KDIR OUTDIR [TEST] - builds pebs_drain_test.ko (the
# PEBS sink drain test, tests/pebs/draintest; TEST "e2etest":
# pebs_e2e_test.ko, tests/pebs/e2etest, records into memtrace.ko end to end)
# against the kernel build tree KDIR (the debug kernel:
# kernel/perf-pebs-hook.patch with CONFIG_PERF_X86_PEBS_SINK_SELFTEST) in a
# copy under OUTDIR.  Fails on any compiler warning.  Prints the .ko path.
set -eu
kdir=$1
mkdir -p "$2" && out=$(cd "$2" && pwd)
test=${3:-draintest}
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
case $test in
draintest) name=pebs_drain_test ;;
e2etest) name=pebs_e2e_test
	cp "$top"/kernel/memtrace_selftest.h "$out/" ;;
*) echo "build-drain-test: unknown test $test" >&2; exit 2 ;;
esac
cp "$top"/tests/pebs/$test/Kbuild "$top"/tests/pebs/$test/$name.c \
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
echo "$out/$name.ko"
