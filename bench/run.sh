#!/bin/bash
# make bench: every benchmark, medians of 5 runs.  Figures: docs/performance.md.
set -u
cd "$(dirname "$0")/.." || exit 1
echo "== engine and trace encoding (bench/engine_bench.c)"
build/bench/engine_bench 5
echo "== exact miss-ratio curve, 100 M references (bench/mrc_bench.c)"
build/bench/mrc_bench 5
for b in bench/*/run.sh; do
	[ -x "$b" ] || continue
	echo "== $(dirname "$b")"
	"$b"
done
echo "== bench/record/hint.sh (hint-fault stream; root, toggles numa_balancing)"
bench/record/hint.sh
echo "== bench/record/rotate.sh (a 10-minute rotating recording beside a single file)"
bench/record/rotate.sh
