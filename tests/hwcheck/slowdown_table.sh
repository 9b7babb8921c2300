#!/bin/bash
# memtrace-hwcheck-analyze slowdown: the Table 1 layout from a fixed runs
# file with known medians (tests/hwcheck/runs-sample.txt: 5 runs at period
# 200 out of order, 2 runs and a failed module run at 4000, one stores run),
# exactly tests/hwcheck/expected/slowdown.md; --min-runs marks short cells.
set -u
cd "$(dirname "$0")/../.." || exit 1
a=${BUILD:-build}/hwcheck/memtrace-hwcheck-analyze
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$a" slowdown tests/hwcheck/runs-sample.txt > "$out" || exit 1
diff -u tests/hwcheck/expected/slowdown.md "$out" || exit 1
# the numbers, spelled out: medians 100 ms untraced, 230 ms perf over 500000
# samples -> x2.30 and (230 - 100) ms / 500000 = 260 ns per sample
grep -qx '| memtrace, perf backend | ×2.30 | - | ×1.06 (2 runs) |' "$out" || exit 1
grep -A1 'memtrace, perf backend' "$out" | grep -qx '| ns/sample | 260 | - | 240 |' || exit 1
"$a" slowdown --min-runs 2 tests/hwcheck/runs-sample.txt | grep -qx '| memtrace, perf backend | ×2.30 | - | ×1.06 |' || exit 1
