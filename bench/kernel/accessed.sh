#!/bin/bash
# bench/kernel/accessed.sh - cost of memtrace.ko's accessed-bit scan
# (-e accessed) in qemu guests of the pinned Debian kernels, one vCPU, guest
# time counted in instructions (-icount shift=0: 1 ns per instruction), so
# the scan's "ns per page" is guest instructions per page and the CPU
# shares count instructions, free of host noise.  Runs the cost part of
# tests/kernel/guest-accessed.sh: a 256 MiB shared segment mapped by a
# parent and two children, 1 s passes for 20 s; the accessed-cost line has
# the median over the process scans, the "cost:" line the scan thread's and
# memtracectl's share of the vCPU over 8 s.  Figures: docs/performance.md
# ("Accessed-bit scan").  KERNELS= as for tests/suites.d/50-kernel.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s --no-print-directory kernel-tests static >/dev/null || exit 1
kernels=$(tests/kernel/fetch-kernels.sh) || exit 1
kernels=$(tests/kernel/select-kernels.sh <<<"$kernels") || exit 1	# $KERNELS
while read -r abi root; do
	GUEST_SMP=${GUEST_SMP:-1} GUEST_ICOUNT=${GUEST_ICOUNT-0} GUEST_TIMEOUT=1500 \
		tests/kernel/run-guest.sh "$abi" "$root" "build/kernel-bench-accessed/$abi" accessed-cost
done <<<"$kernels"
