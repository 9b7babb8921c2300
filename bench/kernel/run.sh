#!/bin/bash
# bench/kernel/run.sh - per-sample cost of memtrace.ko vs perf's ring buffer
# vs the bpf backend for the software page-fault event, in qemu guests of the
# pinned Debian kernels (bench/kernel/mtbench.c).  Figures: docs/kernel-module.md,
# docs/performance.md.  MTBENCH_REPS=N runs (default 9, on the guest's
# command line); GUEST_SMP=2 and
# GUEST_ICOUNT= (empty: real time) give the older set-up.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s --no-print-directory kernel-tests static || exit 1
kernels=$(tests/kernel/fetch-kernels.sh) || exit 1
kernels=$(tests/kernel/select-kernels.sh <<<"$kernels") || exit 1	# $KERNELS
while read -r abi root; do
	# one vCPU, guest time = instructions (-icount shift=0: 1 ns each), so
	# CPU times are instruction counts, free of host noise (mtbench.c)
	GUEST_SMP=${GUEST_SMP:-1} GUEST_ICOUNT=${GUEST_ICOUNT-0} GUEST_TIMEOUT=900 \
	GUEST_APPEND="${GUEST_APPEND:-} MTBENCH_REPS=${MTBENCH_REPS:-9}" \
		tests/kernel/run-guest.sh "$abi" "$root" "build/kernel-bench/$abi" bench
done <<<"$kernels"
