#!/bin/sh
# bench/crafted/run.sh - every verb on the crafted <= 1 KB traces of
# tests/analyze/crafted.py: wall time and peak RSS of each (docs/performance.md).
exec /usr/bin/python3 "$(dirname "$0")/bench_crafted.py" "$@"
