#!/usr/bin/python3
"""Writes a synthetic database-like trace of N samples (default 10 M) for the
analysis benchmark: a table scan, a sort that reads a column indirectly, a
hash join with a skewed key, plus stack and binary accesses.  Written with
libmemtrace's writer (memtrace_writer_*, through memtrace_analyze.lib).
Usage: gen_trace.py OUT.mtrace [N]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "user", "analyze"))
from memtrace_analyze.lib import Writer  # noqa: E402

MAPS = (
    "00400000-004c0000 r-xp 00000000 08:01 42 /usr/local/bin/dbquery\n"
    "004c0000-004c8000 rw-p 000c0000 08:01 42 /usr/local/bin/dbquery\n"
    "004c8000-004f0000 rw-p 00000000 00:00 0 [heap]\n"
    "7f3a00000000-7f3a04000000 rw-p 00000000 00:00 0 [anon:orders.totalprice]\n"
    "7f3a04000000-7f3a06000000 rw-p 00000000 00:00 0 [anon:positions]\n"
    "7f3a06000000-7f3a07000000 rw-p 00000000 00:00 0 [anon:hashtable]\n"
    "7ffc12300000-7ffc12321000 rw-p 00000000 00:00 0 [stack]\n"
)


def synth(n, seed=1):
    rng = np.random.default_rng(seed)
    col, pos, ht = 0x7f3a00000000, 0x7f3a04000000, 0x7f3a06000000
    q = n // 4
    scan = col + (np.arange(q, dtype=np.uint64) * np.uint64((64 << 20) // q) // np.uint64(8) * np.uint64(8))
    sort_pos = pos + rng.integers(0, 32 << 20, q).astype(np.uint64)
    sort_col = col + rng.integers(0, 64 << 20, q).astype(np.uint64)
    sortp = np.empty(2 * q, np.uint64)
    sortp[0::2], sortp[1::2] = sort_pos, sort_col
    keys = np.minimum(rng.zipf(1.3, q), 1 << 20).astype(np.uint64)
    join = ht + (keys * np.uint64(2654435761) % np.uint64(16 << 20)) // np.uint64(16) * np.uint64(16)
    rest = n - 4 * q
    addr = np.concatenate([scan, sortp, join, np.full(rest, 0x7ffc12320000, np.uint64)])
    misc = rng.random(n) < 0.05
    addr[misc] = np.where(rng.random(int(misc.sum())) < 0.5,
                          0x7ffc12320000 - rng.integers(0, 8192, int(misc.sum())).astype(np.uint64),
                          0x4c8000 + rng.integers(0, 0x20000, int(misc.sum())).astype(np.uint64))
    time = np.cumsum(rng.integers(50, 150, n)).astype(np.uint64)
    return time, addr


def main():
    out = sys.argv[1]
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10_000_000
    time, addr = synth(n)
    w = Writer(out, {"format": "memtrace-1", "host": "bench", "backend": "valgrind", "source": "valgrind-lackey",
                     "event": "loads", "sample_period": 100, "clock": "instructions", "time_unit": "insn",
                     "start_time": 0, "bucket_default": 4096, "target_pid": 4242, "target_comm": "synthetic-db",
                     "command": "bench/analyze/gen_trace.py"})
    w.maps(0, 4242, MAPS)
    for lo in range(0, time.size, 65536):
        t, a = time[lo:lo + 65536], addr[lo:lo + 65536]
        m = t.size
        w.samples(time=t, addr=a, pid=np.full(m, 4242, np.uint32), tid=np.full(m, 4242, np.uint32),
                  cpu=np.zeros(m, np.uint32))
    w.close({"end_reason": "target-exited", "end_time": int(time[-1]), "samples": time.size, "lost": 0,
             "throttled": 0, "dropped": 0})


if __name__ == "__main__":
    main()
