#!/bin/bash
# bench/mark/probe_cost.sh [REPS] - what one --mark span costs the probed
# thread: build/bench/mark_cost calls a near-empty function 200000 times,
# alone and under `record -e page-faults --mark build/bench/mark_cost:mark_cost_span
# --mark-label int` (uprobe + uretprobe, two BPF ring records per call).
# Per span: (CPU time probed - CPU time alone) / calls, the task's own CPU
# time (getrusage: the probes run in its context), runs interleaved, REPS
# rounds (default 7), medians.  Root.  Figures: docs/performance.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-7}
calls=200000
MT=build/memtracectl MC=build/bench/mark_cost
[ -x $MT ] && [ -x $MC ] || { echo "bench/mark: build first (make all)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$reps"); do
	a=$($MC $calls | sed -n 's/.*cpu_ns=//p')
	b=$($MT record -e page-faults --mark $MC:mark_cost_span --mark-label int -o "$tmp/t.mtrace" \
		--force -- $MC $calls 2>/dev/null | sed -n 's/.*cpu_ns=//p')
	spans=$($MT report "$tmp/t.mtrace" --by-span --json | /usr/bin/python3 -c \
		'import json,sys; print(json.load(sys.stdin)["spans"])')
	echo "$a $b $spans" >>"$tmp/runs"
done
awk -v c=$calls '{ print ($2 - $1) / c, $1 / c, $3 }' "$tmp/runs" | sort -n >"$tmp/per"
n=$(wc -l <"$tmp/per")
echo "runs (ns per span, ns per call unprobed, spans recorded):"
sed 's/^/  /' "$tmp/per"
echo "median ns per span: $(awk -v n=$n 'NR == int((n + 1) / 2) {print $1}' "$tmp/per")"
