#!/bin/bash
# bench/allocs/run.sh [REPS] [SECONDS] - what record --allocs costs a
# malloc-heavy program: build/bench/malloc_churn's malloc+free pairs per
# second (a dynamic binary: the probes are in libc.so.6) run alone, under
# `memtracectl record` (perf backend, page faults) without --allocs, with
# --allocs (defaults: blocks >= 64 KiB all, smaller ones one per 512 KiB
# allocated), and with --allocs --alloc-rate 1 (every block).  Modes
# interleaved, REPS (default 5) runs of SECONDS (default 2) each; medians.
# Figures: docs/performance.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-5} secs=${2:-2}
MT=build/memtracectl W=build/bench/malloc_churn
[ -x $MT ] && [ -x $W ] || { echo "bench/allocs: build first (make all)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {	# run MODE
	case $1 in
	alone) $W "$secs" ;;
	record) $MT record -b perf -e page-faults -o "$tmp/t.mtrace" --force -- $W "$secs" 2>/dev/null ;;
	allocs) $MT record -b perf -e page-faults --allocs -o "$tmp/t.mtrace" --force -- $W "$secs" 2>"$tmp/err" ;;
	every) $MT record -b perf -e page-faults --allocs --alloc-rate 1 -o "$tmp/t.mtrace" --force -- \
		$W "$secs" 2>"$tmp/err" ;;
	esac
}
modes="alone record allocs every"
for i in $(seq "$reps"); do
	for m in $modes; do
		v=$(run $m | sed -n 's/^ops_per_s=//p')
		[ -n "$v" ] || { echo "bench/allocs: $m failed: $(cat "$tmp/err" 2>/dev/null)"; exit 1; }
		ev=0
		[ "$m" = allocs ] || [ "$m" = every ] && ev=$(sed -n 's/.*--allocs: \([0-9]*\) events.*/\1/p' "$tmp/err")
		echo "$m $v ${ev:-0}" >>"$tmp/runs"
	done
done
/usr/bin/python3 - "$tmp/runs" "$secs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
secs = float(sys.argv[2])
names = {"alone": "malloc_churn alone", "record": "record (no --allocs)",
         "allocs": "record --allocs", "every": "record --allocs --alloc-rate 1"}
base = statistics.median(float(r[1]) for r in rows if r[0] == "alone")
print("%-32s %5s %16s %10s %14s %12s" % ("", "runs", "ops/s (median)", "vs alone", "ns/op added", "events/s"))
for m in ("alone", "record", "allocs", "every"):
    v = [float(r[1]) for r in rows if r[0] == m]
    med = statistics.median(v)
    ev = statistics.median(float(r[2]) for r in rows if r[0] == m) / secs
    print("%-32s %5d %16.0f %9.1f%% %14.1f %12.0f" % (names[m], len(v), med, 100 * med / base,
                                                     1e9 / med - 1e9 / base, ev))
PY
