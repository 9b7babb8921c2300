#!/bin/bash
# bench/kernel/run.sh [REPS] - per-sample cost of memtrace.ko vs perf's ring
# buffer for the software page-fault event, in qemu guests of the pinned
# Debian kernels (bench/kernel/mtbench.c).  Figures: docs/kernel-module.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s --no-print-directory kernel-tests || exit 1
kernels=$(tests/kernel/fetch-kernels.sh) || exit 1
while read -r abi root; do
	[ -n "${KERNELS:-}" ] && ! echo " $KERNELS " | grep -q " $abi " && continue
	GUEST_TIMEOUT=900 tests/kernel/run-guest.sh "$abi" "$root" "build/kernel-bench/$abi" bench
done <<<"$kernels"
