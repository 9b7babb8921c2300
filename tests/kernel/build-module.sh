#!/bin/bash
# build-module.sh KDIR OUTDIR - builds memtrace.ko against the kernel
# headers in KDIR, in a copy of the sources under OUTDIR (the source tree
# stays clean).  Fails on any compiler warning.  Prints the .ko path.
set -eu
kdir=$1
mkdir -p "$2" && out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out/kernel" "$out/include/uapi"
cp "$top"/kernel/Kbuild "$top"/kernel/Makefile "$top"/kernel/memtrace*.c \
	"$top"/kernel/memtrace*.h "$top"/kernel/pebs_hook.c \
	"$top"/kernel/pebs_hook.h "$out/kernel/"
cp "$top/include/uapi/memtrace.h" "$out/include/uapi/"
log=$out/build.log
# BTF for modules needs pahole and vmlinux; the module works without it.
if ! make -C "$kdir" M="$out/kernel" CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: warnings building against $kdir" >&2
	exit 1
fi
echo "$out/kernel/memtrace.ko"
