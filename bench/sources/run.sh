#!/bin/bash
# Target slowdown and samples/s of each perf source on one workload, side by
# side with untraced runs: hintsets (two threads reading a 64 MiB set A,
# 64 MiB set B written once) for 16 s; its sweeps of A count its progress.
# Medians of RUNS runs (default 5), interleaved.  Needs root for hint-faults.
# Figures: docs/performance.md.
set -u
cd "$(dirname "$0")/../.." || exit 1
RUNS=${RUNS:-5}
MT=build/memtracectl
WL="build/workloads/hintsets -n 16384 -t 2 -s 16"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for r in $(seq "$RUNS"); do
	for src in none page-faults hint-faults; do
		if [ $src = none ]; then
			$WL >"$tmp/out" 2>/dev/null
			echo 0 >>"$tmp/$src.samples"
		else
			$MT record -e $src -o "$tmp/t.mtrace" --force -- $WL >"$tmp/out" 2>"$tmp/err"
			sed -n 's/.*wrote \([0-9]*\) samples.*/\1/p' "$tmp/err" >>"$tmp/$src.samples"
		fi
		sed -n 's/^sweeps=//p' "$tmp/out" >>"$tmp/$src.sweeps"
	done
done
base=$(median <"$tmp/none.sweeps")
printf '%-12s %12s %10s %12s\n' source "sweeps/16s" slowdown "samples/s"
for src in none page-faults hint-faults; do
	s=$(median <"$tmp/$src.sweeps")
	n=$(median <"$tmp/$src.samples")
	printf '%-12s %12s %9.2fx %12.0f\n' $src "$s" "$(echo "$base / $s" | bc -l)" "$(echo "$n / 16" | bc -l)"
done
"$(dirname "$0")/redis.sh"
