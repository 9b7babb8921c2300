#!/bin/bash
# memtrace-hwcheck-analyze check on synthetic recordings with known answers
# (tests/hwcheck/mksynth.c): every verdict line and the exit status exactly
# as in tests/hwcheck/expected/NAME.txt (pass and fail cases of every check).
set -u
cd "$(dirname "$0")/../.." || exit 1
build=${BUILD:-build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
# name case kind expected-exit [more options]
while read -r name c kind rc opts; do
	"$build/tests/hwcheck/mksynth" "$c" "$dir" || { echo "mksynth $c failed"; exit 1; }
	# shellcheck disable=SC2086
	"$build/hwcheck/memtrace-hwcheck-analyze" check --kind "$kind" $opts "$dir/$c.mtrace" \
		"$dir/$c.layout" > "$dir/$name.out" 2>&1
	got=$?
	if [ "$got" != "$rc" ]; then
		echo "$name: exit $got, expected $rc"
		fail=1
	fi
	if ! diff -u "tests/hwcheck/expected/$name.txt" "$dir/$name.out"; then
		echo "$name: verdicts differ"
		fail=1
	fi
done <<'CASES'
loads-pass loads-pass loads 0
loads-fail loads-fail loads 1
loads-lost loads-lost loads 0
loads-throttled loads-throttled loads 0
loads-short loads-short loads 1
loads-incomplete loads-incomplete loads 1
loads-early loads-early loads 1
loads-tolerance loads-pass loads 1 --tolerance 0.003
stores-pass stores-pass stores 0
stores-fail stores-fail stores 1
ibs-loads ibs-loads loads 0
faults-pass faults-pass page-faults 0
faults-fail faults-fail page-faults 1
hooked-pmis-pass module-hooked loads 0 --pmis 12
hooked-pmis-fail module-hooked loads 1 --pmis 4000
compatible-pmis-pass module-compatible loads 0 --pmis 4100
compatible-pmis-fail module-compatible loads 1 --pmis 100
CASES
exit $fail
