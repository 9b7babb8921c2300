"""memtrace-analyze: offline plots of memtrace traces (.mtrace).

Every number (samples, WSS series, peaks, hot buckets and their names,
"accessed by", regions, the hot working-set curve) comes from libmemtrace
through lib.py (ctypes), the same computation `memtracectl report` prints.
Modules: lib (binding), select (filters), options (shared report options),
binning (heatmap axis and bins), units (formatting), one module per verb
(heatmap, wss, hot, regions, compare, report, info) and cli.
"""
__version__ = "2.0"
