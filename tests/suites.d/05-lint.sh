#!/bin/bash
# 05-lint.sh - the tree carries no leftover merge-conflict markers (one was
# found in docs/performance.md two stops after its merge).
cd "$(dirname "$0")/../.." || exit 1
if hits=$(git ls-files -z 2>/dev/null | xargs -0 grep -nE '^(<<<<<<<|>>>>>>>) ' -- 2>/dev/null); then
	echo "FAIL merge_markers: $(echo "$hits" | head -5 | tr '\n' ' ')"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "ok   merge_markers ($(git ls-files | wc -l) tracked files)"
echo "1 passed, 0 failed"
