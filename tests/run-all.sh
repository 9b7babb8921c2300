#!/bin/bash
# Runs every test suite in tests/suites.d in name order.  Each suite prints
# one line per test ("ok", "FAIL" or "skip NAME [CAP]: why") and ends with
# "N passed, N failed[, N skipped]"; this script adds them up, lists every
# skip with its reason, and ends with "N passed, N failed, N skipped" for the
# whole run.  MEMTRACE_REQUIRE (tests/suite-lib.sh) turns skips of required
# capabilities into failures.  Each suite's wall time follows its summary
# ("suite NAME took N s"; CI has 90 minutes for all of it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
total_pass=0 total_fail=0 total_skip=0 broken="" skips="" fails="" times=""
for suite in tests/suites.d/*.sh; do
	name=$(basename "$suite" .sh)
	[ -n "${SUITES:-}" ] && ! echo " $SUITES " | grep -q " $name " && continue
	echo "=== suite $name"
	log=$(mktemp)
	t0=$SECONDS
	bash "$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "suite $name took $((SECONDS - t0)) s"
	times="$times $name=$((SECONDS - t0))"
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	# every skip line of the suite, whichever runner printed it
	n=$(grep -c '^skip ' "$log")
	total_skip=$((total_skip + n))
	[ "$n" = 0 ] || skips="$skips$(grep '^skip ' "$log" | sed "s/^skip /  $name: /")"$'\n'
	# every failure line again at the end (a CI excerpt shows the head and the tail)
	fails="$fails$(grep -aE '^(FAIL|not ok) ' "$log" | cut -c1-600 | sed "s/^/  $name: /")"
	[ -z "$fails" ] || [ "${fails: -1}" = $'\n' ] || fails="$fails"$'\n'
	rm -f "$log"
	if [ -z "$line" ]; then
		echo "suite $name: no summary line (exit $rc)"
		total_fail=$((total_fail + 1)); broken="$broken $name"
		continue
	fi
	p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
	f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "suite $name: exit $rc with no failed test"
		total_fail=$((total_fail + 1))
	fi
	[ "$f" != 0 ] || [ "$rc" != 0 ] && broken="$broken $name"
done
[ -n "$broken" ] && echo "failing suites:$broken"
[ -n "$fails" ] && printf 'failed:\n%s' "$fails"
[ -n "$skips" ] && printf 'skipped (this machine lacks what they need; MEMTRACE_REQUIRE makes a skip fail):\n%s' "$skips"
echo "suite times (s):$times; all $SECONDS s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
