#!/bin/sh
# bench/analyze/run.sh - analysis benchmark (10 M samples -> heatmap PNG).
exec /usr/bin/python3 "$(dirname "$0")/bench_heatmap.py" "$@"
