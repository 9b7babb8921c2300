#!/bin/bash
# 25-import.sh - `memtracectl import --format perf` (tests/import/perf_import.sh:
# perf.data recorded here compared sample by sample with `perf script`,
# hand-built files with weight/data_src, pipe mode, bad input; ~25 s).
# Needs perf (linux-perf) and the software page-fault event.
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0
for t in perf_import; do
	start=$(date +%s.%N)
	if out=$(timeout 300 bash "tests/import/$t.sh" 2>&1); then
		printf 'ok   %s (%.1f s): %s\n' "$t" "$(echo "$(date +%s.%N) - $start" | bc)" \
			"$(echo "$out" | tr '\n' ';' | sed 's/;$//')"
		pass=$((pass + 1))
	else
		echo "FAIL $t: $(echo "$out" | tail -5 | tr '\n' ' ')"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
