"""Polls /proc/PID/sched's mm->numa_scan_seq every 20 ms until PID exits
and prints the CLOCK_MONOTONIC ns of each change, one a line: the NUMA scan
passes as the kernel counts them, read apart from memtracectl (ground truth
for hint_blind.sh).  Usage: scan_seq_poll.py PID"""
import sys
import time

pid = int(sys.argv[1])
last = None
while True:
    try:
        with open("/proc/%d/sched" % pid) as f:
            seq = next((int(l.split(":")[1]) for l in f if l.startswith("mm->numa_scan_seq")), None)
    except (OSError, ValueError):
        break
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if seq is not None and last is not None and seq != last:
        print(now, flush=True)
    if seq is not None:
        last = seq
    time.sleep(0.02)
