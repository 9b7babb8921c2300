#!/bin/bash
# 05-lint.sh - the tree carries no leftover merge-conflict markers (one was
# found in docs/performance.md two stops after its merge), and the suites'
# runner counts passes, failures and skips as tests/suite-lib.sh says.
cd "$(dirname "$0")/../.." || exit 1
if hits=$(git ls-files -z 2>/dev/null | xargs -0 grep -nE '^(<<<<<<<|>>>>>>>) ' -- 2>/dev/null); then
	echo "FAIL merge_markers: $(echo "$hits" | head -5 | tr '\n' ' ')"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "ok   merge_markers ($(git ls-files | wc -l) tracked files)"
# the suites' own counting: skips, required capabilities, exit 77
if out=$(bash tests/harness/skip_rules.sh 2>&1); then
	echo "ok   skip_rules: $out"
	pass=2 failed=0
else
	echo "$out"
	pass=1 failed=1
fi
# suites run in name order: one number each
dup=$(ls tests/suites.d | cut -c1-2 | uniq -d | tr '\n' ' ')
if [ -z "$dup" ]; then
	echo "ok   suite_numbers ($(ls tests/suites.d | wc -l) suites)"
	pass=$((pass + 1))
else
	echo "FAIL suite_numbers: more than one suite numbered $dup"
	failed=$((failed + 1))
fi
echo "$pass passed, $failed failed"
[ $failed = 0 ]
