#!/bin/bash
# 75-accuracy.sh - the working-set estimator stays within the bounds of
# docs/accuracy.md (tests/accuracy/accuracy.py --check): exact traces of
# pageramp, dbquery and sort (valgrind backend, cached in build/accuracy),
# thinned with seeded random periods N = 100 and 1000.  About 1-3 min on a
# 2-core machine the first time (recording), seconds afterwards.
set -u
cd "$(dirname "$0")/../.."
if ! command -v valgrind >/dev/null; then
	echo "FAIL accuracy: valgrind is missing (tools/deps; run make deps)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 tests/accuracy/accuracy.py --fixtures pageramp,dbquery,sort --periods 100,1000 \
	--modes random --check
