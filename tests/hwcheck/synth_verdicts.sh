#!/bin/bash
# memtrace-hwcheck-analyze check on synthetic recordings with known answers
# (tests/hwcheck/mksynth.c): every verdict line and the exit status exactly
# as in tests/hwcheck/expected/CASE.txt (pass and fail cases of every check).
set -u
cd "$(dirname "$0")/../.." || exit 1
build=${BUILD:-build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
# case kind expected-exit
while read -r c kind rc; do
	"$build/tests/hwcheck/mksynth" "$c" "$dir" || { echo "mksynth $c failed"; exit 1; }
	"$build/hwcheck/memtrace-hwcheck-analyze" check --kind "$kind" "$dir/$c.mtrace" \
		"$dir/$c.layout" > "$dir/$c.out" 2>&1
	got=$?
	if [ "$got" != "$rc" ]; then
		echo "$c: exit $got, expected $rc"
		fail=1
	fi
	if ! diff -u "tests/hwcheck/expected/$c.txt" "$dir/$c.out"; then
		echo "$c: verdicts differ"
		fail=1
	fi
done <<'CASES'
loads-pass loads 0
loads-fail loads 1
loads-lost loads 0
loads-throttled loads 0
loads-short loads 1
loads-incomplete loads 1
stores-pass stores 0
stores-fail stores 1
ibs-loads loads 0
faults-pass page-faults 0
faults-fail page-faults 1
CASES
exit $fail
