"""Distinct 4 KiB pages of a recording's samples, by fault kind.

usage: check_db_wss.py DUMP_CSV [KIND]

Prints the number of distinct pages whose samples have data_src fault
kind KIND (2 = hint fault; absent: every sample).
"""
import sys

kind = int(sys.argv[2]) if len(sys.argv) > 2 else None
pages = set()
with open(sys.argv[1]) as fh:
    next(fh)
    for row in fh:
        f = row.split(",")
        if kind is None or int(f[7], 16) >> 56 == kind:
            pages.add(int(f[4], 16) >> 12)
print(len(pages))
