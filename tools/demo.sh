#!/bin/bash
# tools/demo.sh - what `make demo` runs after `make all`: records the bundled
# database-like workload (build/workloads/dbquery) with the best sample
# source this machine offers, twice (unclustered table = A, clustered and
# pruned table = B), and writes the analysis report with the A/B comparison.
#
#   source chosen              when
#   -e auto (PEBS/IBS loads)   `memtracectl status` lists hardware loads as available
#   --backend valgrind -c 100  no hardware PMU, valgrind installed (sees every access)
#   -e page-faults -c 1        neither (sees first touches of pages only)
#
# Environment: DEMO_OUT (default demo-out), DEMO_ROWS (workload size),
# DEMO_SOURCE (hw | valgrind | page-faults) to force a source.
# Takes about 1-2 minutes on a 2-core VM with the valgrind backend.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
OUT=${DEMO_OUT:-demo-out}
CTL=build/memtracectl
WL=build/workloads/dbquery
PY=/usr/bin/python3
ANALYZE=user/analyze/memtrace-analyze

for f in "$CTL" "$WL"; do
	if [ ! -x "$f" ]; then
		echo "demo: $f is missing: run 'make demo' (it builds first) or 'make all'" >&2
		exit 1
	fi
done
if ! $PY -c 'import numpy, matplotlib' 2>/dev/null; then
	echo "demo: /usr/bin/python3 lacks numpy/matplotlib: run 'make deps' (tools/deps/analyze.txt)" >&2
	exit 1
fi

status=$("$CTL" status 2>&1 || true)
source=${DEMO_SOURCE:-}
if [ -z "$source" ]; then
	if echo "$status" | grep -Eq '(loads|ibs-op): available'; then
		source=hw
	elif echo "$status" | grep -q 'valgrind: available'; then
		source=valgrind
	else
		source=page-faults
	fi
fi
case "$source" in
hw)          rec=(record -e auto);                  rows=${DEMO_ROWS:-2000000} ;;
valgrind)    rec=(record --backend valgrind -c 100); rows=${DEMO_ROWS:-100000} ;;
page-faults) rec=(record -e page-faults -c 1);      rows=${DEMO_ROWS:-2000000} ;;
*) echo "demo: DEMO_SOURCE must be hw, valgrind or page-faults" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
echo "demo: recording $WL $rows with '${rec[*]}' (source: $source)"
t0=$(date +%s)
"$CTL" "${rec[@]}" -o "$OUT/dbquery.mtrace" -- "$WL" "$rows"
echo "demo: recording the clustered variant (partition pruning) for the A/B comparison"
"$CTL" "${rec[@]}" -o "$OUT/dbquery-clustered.mtrace" -- "$WL" "$rows" --clustered
t1=$(date +%s)
echo "demo: recorded in $((t1 - t0)) s; writing the report"
"$PY" "$ANALYZE" report "$OUT/dbquery.mtrace" --compare "$OUT/dbquery-clustered.mtrace" -o "$OUT/report" \
	>/dev/null
echo "demo: done in $(($(date +%s) - t0)) s"
case "$OUT" in /*) where=$OUT ;; *) where=$top/$OUT ;; esac
echo "demo: open $where/report/index.html"
echo "demo: traces: $OUT/dbquery.mtrace (A), $OUT/dbquery-clustered.mtrace (B); try"
echo "      $ANALYZE heatmap $OUT/dbquery.mtrace -o heatmap.png --mapping memfd:query.positions"
