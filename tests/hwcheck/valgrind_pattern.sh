#!/bin/bash
# hwload's access pattern, counted exactly: one round recorded with the
# valgrind backend at period 1 (every access, no PMU needed) must show
# 1048576 loads of A, 349525 of B, 262144 stores of D and nothing in C, and
# pass mapped, untouched and stores-only-in-D.  Slow (lackey: ~20 s alone,
# minutes on a loaded machine): 65-hwcheck runs it with MEMTRACE_HWCHECK_VALGRIND=1.
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
a=build/hwcheck/memtrace-hwcheck-analyze
build/memtracectl record --backend valgrind -c 1 --fixed-period -o "$dir/vg.mtrace" -- \
	build/hwcheck/hwload -r 1 -o "$dir/vg.layout" 2> "$dir/err" || { cat "$dir/err"; exit 1; }
"$a" check --kind loads "$dir/vg.mtrace" "$dir/vg.layout" > "$dir/loads"
"$a" check --kind stores "$dir/vg.mtrace" "$dir/vg.layout" > "$dir/stores"
grep -qE '^PASS shares: A [0-9.]+ \(expected 0.750; 1048576\), B [0-9.]+ \(expected 0.250; 349525\), C 0.000 \(expected 0.000; 0\), D 0.000 \(expected 0.000; 0\)' "$dir/loads" ||
	{ cat "$dir/loads"; exit 1; }
grep -qE '^(PASS|FAIL) shares: A 0.000 \(expected 0.000; 0\), B 0.000 \(expected 0.000; 0\), C 0.000 \(expected 0.000; 0\), D [0-9.]+ \(expected 1.000; 262144\)' "$dir/stores" ||
	{ cat "$dir/stores"; exit 1; }
for f in loads stores; do
	grep -q '^PASS mapped: ' "$dir/$f" && grep -q '^PASS untouched: 0 samples in C' "$dir/$f" || { cat "$dir/$f"; exit 1; }
done
grep -q '^PASS stores-only-in-D: 262144 store samples' "$dir/stores" || { cat "$dir/stores"; exit 1; }
grep '^PASS shares' "$dir/loads" | sed 's/.*outside/loads outside/'
