#!/bin/bash
# Integration tests of memtracectl record/report/dump with the perf backend
# (page-fault source) on real workloads.
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0
for t in record_pageramp record_threads record_tree record_cgroup record_postgres record_command record_stop record_files record_shmpair record_words record_memory bad_input; do
	start=$(date +%s.%N)
	if out=$(timeout 180 bash "tests/integration/$t.sh" 2>&1); then
		printf 'ok   %s (%.1f s)\n' "$t" "$(echo "$(date +%s.%N) - $start" | bc)"
		pass=$((pass + 1))
	else
		echo "FAIL $t: $(echo "$out" | tail -5 | tr '\n' ' ')"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
