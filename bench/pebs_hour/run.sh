#!/bin/sh
# bench/pebs_hour/run.sh - memtracectl report on a PEBS-rate hour (100 M
# samples written by build/bench/pebs_gen), medians of RUNS (docs/performance.md).
exec /usr/bin/python3 "$(dirname "$0")/bench_pebs_hour.py" "$@"
