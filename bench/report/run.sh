#!/bin/sh
# bench/report/run.sh - memtracectl report vs perf script | python (docs/performance.md).
exec /usr/bin/python3 "$(dirname "$0")/bench_report.py" "$@"
