#!/usr/bin/python3
"""Writes a synthetic database-like trace of N samples (default 10 M) for the
analysis benchmark: a table scan, a sort that reads a column indirectly, a
hash join with a skewed key, plus stack and binary accesses.  numpy encoder
(offset transform, minimal width, byte-plane shuffle), CRC32C from
python3-crc32c.  Usage: gen_trace.py OUT.mtrace [N]
"""
import struct
import sys

import numpy as np
import zstandard

try:
    from crc32c import crc32c
except ImportError:  # same fallback order as the reader
    sys.path.insert(0, __file__.rsplit("/bench/", 1)[0] + "/user/analyze")
    from memtrace_analyze.crc import crc32c

MAPS = (
    "00400000-004c0000 r-xp 00000000 08:01 42 /usr/local/bin/dbquery\n"
    "004c0000-004c8000 rw-p 000c0000 08:01 42 /usr/local/bin/dbquery\n"
    "004c8000-004f0000 rw-p 00000000 00:00 0 [heap]\n"
    "7f3a00000000-7f3a04000000 rw-p 00000000 00:00 0 [anon:orders.totalprice]\n"
    "7f3a04000000-7f3a06000000 rw-p 00000000 00:00 0 [anon:positions]\n"
    "7f3a06000000-7f3a07000000 rw-p 00000000 00:00 0 [anon:hashtable]\n"
    "7ffc12300000-7ffc12321000 rw-p 00000000 00:00 0 [stack]\n"
)


def chunk(ctype, raw, count, codec):
    stored = zstandard.ZstdCompressor(level=1).compress(raw) if codec else raw
    h = b"MTCK" + struct.pack("<HHIIII", ctype, codec, len(stored), len(raw), count, crc32c(stored))
    return h + struct.pack("<I", crc32c(h)) + b"\0\0\0\0" + stored


def column(v):
    base = int(v.min())
    x = (v - np.uint64(base)).astype(np.uint64)
    m = int(x.max())
    w = 0 if m == 0 else 1 if m < 1 << 8 else 2 if m < 1 << 16 else 4 if m < 1 << 32 else 8
    planes = x.astype("<u%d" % w).view(np.uint8).reshape(-1, w).T.tobytes() if w else b""
    return struct.pack("<BBHIQ", 0, w, 0, 0, base) + planes


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
    hdr = ("format=memtrace-1\nhost=bench\nbackend=valgrind\nsource=valgrind-lackey\nevent=loads\n"
           "sample_period=100\nclock=instructions\ntime_unit=insn\nstart_time=0\nbucket_default=4096\n"
           "target_pid=4242\ntarget_comm=synthetic-db\ncommand=bench/analyze/gen_trace.py\n").encode()
    with open(out, "wb") as f:
        f.write(b"MEMTRACE" + struct.pack("<HHI", 1, 0, 0))
        f.write(chunk(1, hdr, hdr.count(b"\n"), 0))
        f.write(chunk(3, struct.pack("<QII", 0, 4242, 0) + MAPS.encode(), MAPS.count("\n"), 1))
        for lo in range(0, time.size, 65536):
            t, a = time[lo:lo + 65536], addr[lo:lo + 65536]
            m = t.size
            body = struct.pack("<II", m, 0x1F) + column(t) + column(a) + column(np.full(m, 4242, np.uint64)) \
                + column(np.full(m, 4242, np.uint64)) + column(np.zeros(m, np.uint64))
            f.write(chunk(2, body, m, 1))
        end = ("end_reason=target-exited\nend_time=%d\nsamples=%d\nlost=0\nthrottled=0\ndropped=0\n"
               % (int(time[-1]), time.size)).encode()
        f.write(chunk(7, end, end.count(b"\n"), 0))


if __name__ == "__main__":
    main()
