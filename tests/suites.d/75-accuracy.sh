#!/bin/bash
# 75-accuracy.sh - the working-set estimator stays within the bounds of
# docs/accuracy.md (tests/accuracy/accuracy.py --check): exact traces of
# pageramp, dbquery (10 000, 60 000 and 100 000 rows), sort and kvstore (valgrind
# backend, cached in build/accuracy), thinned with seeded random periods
# N = 100 and 1000 (seeds 3, 4 and 5, their windows pooled).
# Measured on a 2-core machine: 6.4 s with the exact traces recorded fresh
# (as in CI), 3.4 s with them cached.
set -u
cd "$(dirname "$0")/../.."
if ! command -v valgrind >/dev/null; then
	echo "FAIL accuracy: valgrind is missing (tools/deps; run make deps)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 tests/accuracy/accuracy.py --fixtures pageramp,dbquery,dbquery-60k,dbquery-100k,sort,kvstore --periods 100,1000 \
	--modes random --check
