#!/bin/bash
# bench/bpf/run.sh [REPS] - per-sample cost of the bpf backend vs the perf
# backend (perf's own ring buffer) on this host: page faults at period 1,
# `memtracectl record -- build/bench/fault_cost` (81920 faults), modes
# interleaved, REPS (default 7) runs each.  Target: the faulting task's CPU
# time minus the untraced run's of the same round, per sample.  Collector:
# memtracectl's CPU time (GNU time, minus the reaped target's), per sample:
# drain, merge, encoding, zstd and writing the trace, less its fixed cost
# (median of 3 runs of an empty target).  Medians.
# Figures: docs/performance.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-7}
procs=${PROCS:-1}	# PROCS=2: two processes fault at once (ring contention)
MT=build/memtracectl FC=build/bench/fault_cost
[ -x $MT ] && [ -x $FC ] || { echo "bench/bpf: build first (make all)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/bpf: needs GNU time (/usr/bin/time)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the collector's fixed cost (start, BPF verifier, maps, END): an empty target
modes="perf bpf bpf-percpu"
# bpf-percpu: MEMTRACE_BPF_RING=percpu, a BPF ring per CPU instead of one shared
rec() {	# rec MODE ARGS...
	local m=$1 ring=shared
	shift
	[ "$m" = bpf-percpu ] && ring=percpu
	MEMTRACE_BPF_RING=$ring /usr/bin/time -f "%U %S" -o "$tmp/time" $MT record \
		--backend "${m%-percpu}" -c 1 -o "$tmp/t.mtrace" --force -- $FC "$@"
}
for b in $modes; do
	for i in 1 2 3; do
		rec $b 1 1 >/dev/null 2>&1
		read -r u s <"$tmp/time"
		echo "$b $u $s" >>"$tmp/fixed"
	done
done
for i in $(seq "$reps"); do
	base=$($FC 4096 20 "$procs" | sed -n 's/.*cpu_ns=//p')
	for b in $modes; do
		rec $b 4096 20 "$procs" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		read -r u s <"$tmp/time"
		n=$($MT dump --meta "$tmp/t.mtrace" | sed -n 's/^samples=//p')
		lost=$($MT dump --meta "$tmp/t.mtrace" | sed -n 's/^lost=//p')
		t=$(sed -n 's/.*cpu_ns=//p' "$tmp/out")
		echo "$b $i $base $t $u $s $n $lost" >>"$tmp/runs"
	done
done
/usr/bin/python3 - "$tmp/runs" "$tmp/fixed" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
fixed = {b: statistics.median((float(x[1]) + float(x[2])) * 1e9 for x in map(str.split, open(sys.argv[2]))
                              if x[0] == b) for b in ("perf", "bpf", "bpf-percpu")}
print("%-10s %6s %22s %22s %9s %6s" % ("", "runs", "target ns/sample", "collector ns/sample",
                                     "samples", "lost"))
res = {}
for b in ("perf", "bpf", "bpf-percpu"):
    r = [x for x in rows if x[0] == b]
    tgt = [(float(x[3]) - float(x[2])) / int(x[6]) for x in r]
    col = [((float(x[4]) + float(x[5])) * 1e9 - float(x[3]) - fixed[b]) / int(x[6]) for x in r]
    res[b] = (statistics.median(tgt), statistics.median(col))
    print("%-10s %6d %10.0f (%4.0f-%4.0f) %10.0f (%4.0f-%4.0f) %9s %6s" % (
        b, len(r), res[b][0], min(tgt), max(tgt), res[b][1], min(col), max(col),
        r[-1][6], max(int(x[7]) for x in r)))
print("fixed collector cost (empty target), ms: " +
      ", ".join("%s %.0f" % (b, fixed[b] / 1e6) for b in fixed))
for b in ("bpf", "bpf-percpu"):
    print("%s / perf: target %.2f, collector %.2f" % (b, res[b][0] / res["perf"][0],
                                                      res[b][1] / res["perf"][1]))
PY
