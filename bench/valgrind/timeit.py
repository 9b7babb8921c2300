#!/usr/bin/python3
"""timeit.py CMD...: runs CMD (stdio to /dev/null), prints 'WALL CPU' in seconds:
wall clock, and user + system time of CMD and everything it waited for
(getrusage(RUSAGE_CHILDREN), microseconds, unlike time(1)'s 10 ms)."""
import os
import resource
import subprocess
import sys
import time

t0 = time.monotonic()
with open(os.devnull, 'r+b') as null:
    subprocess.run(sys.argv[1:], stdin=null, stdout=null, stderr=null, check=False)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print('%.4f %.4f' % (wall, ru.ru_utime + ru.ru_stime))
