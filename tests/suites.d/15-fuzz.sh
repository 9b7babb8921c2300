#!/bin/bash
# 15-fuzz.sh - every libFuzzer harness of tests/fuzz/ for FUZZ_CHECK_SECONDS
# (default 12) each, after its committed regression inputs (tests/fuzz/run.sh),
# from the seeds (FUZZ_FRESH: what `make fuzz` accumulated is not replayed).
# About 3 minutes for the fourteen harnesses on a 2-core machine.  `make fuzz` runs them longer.
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0
names=$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_\(.*\)\.c$|\1|')
for n in $names; do
	if FUZZ_FRESH=1 tests/fuzz/run.sh "$n" "${FUZZ_CHECK_SECONDS:-12}"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
