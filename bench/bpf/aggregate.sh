#!/bin/bash
# bench/bpf/aggregate.sh [REPS] [LONG_SEC] - record --aggregate vs the bpf
# backend's normal mode on this host, page faults at period 1.
# 1. Per-sample cost, as bench/bpf/run.sh measures it: `memtracectl record
#    -- build/bench/fault_cost 4096 20` (81920 faults), modes interleaved,
#    REPS (default 7) runs each; target: the faulting task's CPU time minus
#    the untraced run's of the same round, per sample; collector:
#    memtracectl's CPU time minus the target's and its fixed cost (median of
#    3 runs of an empty target), per sample.  Medians (range).
# 2. Trace size and collector CPU on a long run: one pageramp -n 1024 -g 0
#    (512 pages re-faulted back to back), recorded with -p for LONG_SEC
#    (default 60) s in each mode, one after the other.
# Figures: docs/performance.md ("Aggregation mode").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-7} long=${2:-60}
MT=build/memtracectl FC=build/bench/fault_cost WL=build/workloads/pageramp
[ -x $MT ] && [ -x $FC ] && [ -x $WL ] || { echo "bench/bpf: build first (make all)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/bpf: needs GNU time (/usr/bin/time)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modes="bpf bpf-agg"
rec() {	# rec MODE ARGS...
	local m=$1 agg=
	shift
	[ "$m" = bpf-agg ] && agg=--aggregate
	/usr/bin/time -f "%U %S" -o "$tmp/time" $MT record --backend bpf $agg -e page-faults -c 1 \
		-o "$tmp/t.mtrace" --force "$@"
}
for b in $modes; do
	for i in 1 2 3; do
		rec $b -- $FC 1 1 >/dev/null 2>&1
		read -r u s <"$tmp/time"
		echo "$b $u $s" >>"$tmp/fixed"
	done
done
for i in $(seq "$reps"); do
	base=$($FC 4096 20 1 | sed -n 's/.*cpu_ns=//p')
	for b in $modes; do
		rec $b -- $FC 4096 20 1 >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		read -r u s <"$tmp/time"
		n=$($MT dump --meta --agg "$tmp/t.mtrace" | sed -n 's/^samples=//p')
		lost=$($MT dump --meta --agg "$tmp/t.mtrace" | sed -n 's/^lost=//p')
		t=$(sed -n 's/.*cpu_ns=//p' "$tmp/out")
		echo "$b $i $base $t $u $s $n $lost" >>"$tmp/runs"
	done
done
# the long run: one pageramp, recorded with -p (GNU time then counts the
# collector alone) for LONG_SEC in each mode, one after the other
$WL -n 1024 -c 1000000000 -g 0 >/dev/null &
wl=$!
for b in $modes; do
	rec $b --duration "$long" -p $wl >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; kill $wl; exit 1; }
	read -r u s <"$tmp/time"
	n=$($MT dump --meta --agg "$tmp/t.mtrace" | sed -n 's/^samples=//p')
	lost=$($MT dump --meta --agg "$tmp/t.mtrace" | sed -n 's/^lost=//p')
	echo "$b $(stat -c %s "$tmp/t.mtrace") $n $lost $u $s" >>"$tmp/long"
done
kill $wl
/usr/bin/python3 - "$tmp/runs" "$tmp/fixed" "$tmp/long" "$long" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
modes = ("bpf", "bpf-agg")
fixed = {b: statistics.median((float(x[1]) + float(x[2])) * 1e9 for x in map(str.split, open(sys.argv[2]))
                              if x[0] == b) for b in modes}
print("%-8s %5s %22s %22s %9s %6s" % ("", "runs", "target ns/sample", "collector ns/sample", "samples", "lost"))
res = {}
for b in modes:
    r = [x for x in rows if x[0] == b]
    tgt = [(float(x[3]) - float(x[2])) / int(x[6]) for x in r]
    col = [((float(x[4]) + float(x[5])) * 1e9 - float(x[3]) - fixed[b]) / int(x[6]) for x in r]
    res[b] = (statistics.median(tgt), statistics.median(col))
    print("%-8s %5d %10.0f (%4.0f-%4.0f) %10.0f (%4.0f-%4.0f) %9s %6s" % (
        b, len(r), res[b][0], min(tgt), max(tgt), res[b][1], min(col), max(col),
        r[-1][6], max(int(x[7]) for x in r)))
print("fixed collector cost (empty target), ms: " + ", ".join("%s %.0f" % (b, fixed[b] / 1e6) for b in fixed))
print("agg / bpf: target %.2f, collector %.2f" % (res["bpf-agg"][0] / res["bpf"][0], res["bpf-agg"][1] / res["bpf"][1]))
print("long run, %s s of pageramp -n 1024 -g 0:" % sys.argv[4])
for l in open(sys.argv[3]):
    b, size, n, lost, u, s = l.split()
    print("  %-8s %10d bytes  %10s samples  %6s lost  %.3f bytes/sample  collector CPU %.1f s" % (
        b, int(size), n, lost, int(size) / max(int(n), 1), float(u) + float(s)))
PY
