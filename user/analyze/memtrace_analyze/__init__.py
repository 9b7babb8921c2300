"""memtrace-analyze: offline analysis and plots of memtrace traces (.mtrace).

Modules: trace (reader), crc (CRC32C), maps (/proc/PID/maps), binning
(address-axis compaction, time bins), units (axis labels), one module per
verb (heatmap, wss, hot, regions, compare, report) and cli.
"""
__version__ = "1.0"
