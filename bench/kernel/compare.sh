#!/bin/bash
# bench/kernel/compare.sh - the cost of watching a PostgreSQL-like workload
# for its re-accesses, side by side in one guest of Debian's 6.12 kernel
# with one vCPU: untraced, memtrace.ko's accessed-bit scan (-e accessed),
# DAMON vaddr at its default intervals (-e damon --damon-budget 0) and at
# memtracectl's default 2 % budget (-e damon), REPS rounds of the four in
# turn (tests/kernel/guest-cost.sh).  Prints per mode the medians of the
# workload's throughput (rounds its busy children complete in a run), its
# slowdown against untraced, the monitoring kernel thread's and
# memtracectl's share of the vCPU, that share per GiB of the target's
# memory, and the monitor's CPU per page it looked at.  Real time under TCG
# by default (a run takes its own seconds); GUEST_ICOUNT=0 counts
# instructions instead (-icount shift=0: 1 ns each, free of host noise, but
# about a minute of wall time per guest second).  Figures:
# docs/performance.md ("Accessed bits against DAMON").
#   COST_REPS=5 COST_SECS=5 COST_RUN=4xSECS (under icount: GUEST_ICOUNT=3
#   COST_SECS=4 COST_RUN=14, as in docs/performance.md) (pglike's seconds) KERNELS=6.12.117+deb12 (as tests/suites.d/50-kernel.sh)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s --no-print-directory kernel-tests static >/dev/null || exit 1
kernels=$(tests/kernel/fetch-kernels.sh) || exit 1
kernels=$(KERNELS=${KERNELS:-6.12.117+deb12} tests/kernel/select-kernels.sh <<<"$kernels") || exit 1
while read -r abi root; do
	out=build/kernel-bench-compare/$abi
	mkdir -p "$out"
	GUEST_SMP=1 GUEST_ICOUNT=${GUEST_ICOUNT:-} GUEST_TIMEOUT=${GUEST_TIMEOUT:-5400} \
		GUEST_APPEND="memtrace_cost_reps=${COST_REPS:-5} memtrace_cost_secs=${COST_SECS:-5} ${COST_RUN:+memtrace_cost_run=$COST_RUN}" \
		tests/kernel/run-guest.sh "$abi" "$root" "$out" cost-compare | tee "$out.log"
	# target memory: the 256 MiB segment once, 2 x 5 MiB private, a 2 MiB THP
	grep -h 'cost-run ' "$out.log" | ICOUNT_SHIFT=${GUEST_ICOUNT:--1} python3 -c '
import os, statistics, sys
# under -icount shift=S guest time is instructions x 2^S ns: CPU shares and
# ns per page divided by 2^S are those of a 1-instruction-per-ns CPU (what
# the monitors do per pass and per sample interval does not depend on S)
shift = int(os.environ["ICOUNT_SHIFT"])
norm = 2 ** shift if shift >= 0 else 1
if shift >= 0:
    print("-icount shift=%d: shares and per-page figures in instructions, as on a CPU running one instruction per ns; slowdown measured at 2^%d ns per instruction, divided by %d" % (shift, shift, norm))
runs = {}
for line in sys.stdin:
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    # a run whose monitor ended before its CPU was read (FAIL line) is left out
    if f["mode"] != "none" and f["mon_ns"] == "0" and f["rec_ns"] == "0":
        continue
    runs.setdefault(f["mode"], []).append(f)
gib = (256 + 2 * 5 + 2) / 1024
med = lambda m, k: statistics.median(float(r[k]) for r in runs[m])
base = statistics.median(float(r["rounds"]) for r in runs["none"]) if "none" in runs else None
def per_page(r):
    """CPU ns (icount: instructions) of the monitor thread per page it looked at:
    the accessed-bit scan: present pages per process scan; DAMON: one page
    per region per 5 ms sample interval (its default)"""
    ns_per_s = float(r["mon_ns"]) / float(r["secs"])
    if "looked" in r:
        pages_per_s = float(r["looked"]) / float(r["run_secs"])
    elif "rows" in r and int(r["aggregations"]):
        pages_per_s = float(r["rows"]) / float(r["aggregations"]) * 200
    else:
        return None
    return ns_per_s / pages_per_s / norm if pages_per_s else None
print("| mode | runs | rounds per run (median) | slowdown | monitor thread, % of the vCPU | memtracectl, % | both, % per GiB of target | monitor CPU ns per page looked at |")
print("|---|---|---|---|---|---|---|---|")
for m, rs in runs.items():
    rate = statistics.median(float(r["rounds"]) for r in rs)
    mon = statistics.median(float(r["mon_ns"]) / 1e7 / float(r["secs"]) for r in rs) / norm
    rec = statistics.median(float(r["rec_ns"]) / 1e7 / float(r["secs"]) for r in rs) / norm
    slow = "-" if m == "none" or not base else "%.1f %%" % (100 * (1 - rate / base) / norm)
    name = m if m == "none" else "%s (%s)" % (m, rs[0]["mon"])
    pp = [x for x in (per_page(r) for r in rs) if x is not None]
    print("| %s | %d | %.0f | %s | %.2f | %.2f | %.2f | %s |" % (name, len(rs), rate, slow, mon, rec,
          (mon + rec) / gib, "%.0f" % statistics.median(pp) if pp else "-"))
'
done <<<"$kernels"
