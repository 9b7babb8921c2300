#!/bin/bash
# bench/kernel/accessed.sh - cost of memtrace.ko's accessed-bit scan
# (-e accessed) in qemu guests of the pinned Debian kernels, with guest time
# counted in instructions (-icount shift=0: 1 ns per instruction), so the
# scan's "ns per page" is guest instructions per page, free of host noise.
# Runs tests/kernel/guest-accessed.sh (its checks too) and prints its
# lines; the accessed-cost line has the median over the process scans, the
# "cost:" line the scan thread's and memtracectl's share of a vCPU.
# Figures: docs/performance.md ("Accessed-bit scan").  KERNELS= as for
# tests/suites.d/50-kernel.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s --no-print-directory kernel-tests static >/dev/null || exit 1
kernels=$(tests/kernel/fetch-kernels.sh) || exit 1
kernels=$(tests/kernel/select-kernels.sh <<<"$kernels") || exit 1	# $KERNELS
while read -r abi root; do
	GUEST_ICOUNT=${GUEST_ICOUNT-0} GUEST_TIMEOUT=1500 \
		tests/kernel/run-guest.sh "$abi" "$root" "build/kernel-bench-accessed/$abi" accessed |
		grep -E 'accessed-(record|busy|cost)|cost:|FAIL'
done <<<"$kernels"
