#!/bin/bash
# The hint-faults source (NUMA-balancing hint faults, perf backend): a known
# workload's page sets, and numa_balancing put back on every exit path.
# Needs root and CONFIG_NUMA_BALANCING (each test says "skip" otherwise).
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0
for t in hint_sets hint_restore hint_redis; do
	start=$(date +%s.%N)
	if out=$(timeout 180 bash "tests/integration/$t.sh" 2>&1); then
		printf 'ok   %s (%.1f s) %s\n' "$t" "$(echo "$(date +%s.%N) - $start" | bc)" \
			"$(echo "$out" | tail -1)"
		pass=$((pass + 1))
	else
		echo "FAIL $t: $(echo "$out" | tail -5 | tr '\n' ' ')"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
