"""Test-only writer of memtrace trace files, from docs/trace-format.md.

Independent of the reader under test: its own CRC32C (bitwise), its own
column encoder (plain Python/numpy), explicit choice of transform and width
per column so that every decoding path can be exercised.
"""

import struct

import zstandard

COLS = ("time", "addr", "pid", "tid", "cpu", "ip", "weight", "data_src")


def crc32c(data):
    c = 0xFFFFFFFF
    for b in bytes(data):
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


_TAB = None


def fast_crc32c(data):
    """Table-driven variant, same result as crc32c() (cross-checked in tests)."""
    global _TAB
    if _TAB is None:
        _TAB = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _TAB.append(c)
    c = 0xFFFFFFFF
    for b in bytes(data):
        c = _TAB[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def chunk(ctype, payload, count, codec=None, corrupt_crc=False):
    raw = bytes(payload)
    if codec is None:
        codec = 1 if ctype in (2, 3) else 0
    stored = zstandard.ZstdCompressor(level=3).compress(raw) if codec == 1 else raw
    pcrc = fast_crc32c(stored)
    if corrupt_crc:
        pcrc ^= 1
    head = b"MTCK" + struct.pack("<HHIIII", ctype, codec, len(stored), len(raw), count, pcrc)
    head += struct.pack("<I", fast_crc32c(head)) + b"\0\0\0\0"
    return head + stored


def kv(d):
    return "".join("%s=%s\n" % (k, v) for k, v in d.items()).encode()


def encode_column(values, transform=0, width=None):
    v = [int(x) & 0xFFFFFFFFFFFFFFFF for x in values]
    if transform == 0:
        base = min(v) if v else 0
        xs = [x - base for x in v]
    else:
        base = v[0] if v else 0
        xs, prev = [], base
        for x in v:
            d = (x - prev) & 0xFFFFFFFFFFFFFFFF
            sd = d - (1 << 64) if d >> 63 else d
            xs.append(((sd << 1) ^ (sd >> 63)) & 0xFFFFFFFFFFFFFFFF)   # zigzag
            prev = x
    need = max(xs) if xs else 0
    if width is None:
        width = 0 if need == 0 else 1 if need < 1 << 8 else 2 if need < 1 << 16 else \
            4 if need < 1 << 32 else 8
    assert need < (1 << (8 * width)) or (width == 0 and need == 0), "width too small"
    planes = bytearray()
    for k in range(width):
        planes += bytes((x >> (8 * k)) & 0xFF for x in xs)
    return struct.pack("<BBHIQ", transform, width, 0, 0, base) + bytes(planes)


def samples_payload(cols, enc=None):
    """cols: dict name -> list of ints (time, addr, pid, tid, cpu required).
    enc: dict name -> (transform, width or None)."""
    enc = enc or {}
    n = len(cols["time"])
    mask = 0
    body = b""
    for bit, name in enumerate(COLS):
        if name in cols:
            mask |= 1 << bit
            t, w = enc.get(name, (1 if name == "time" else 0, None))
            body += encode_column(cols[name], t, w)
    return struct.pack("<II", n, mask) + body, n


DEFAULT_HEADER = {
    "format": "memtrace-1", "host": "test", "kernel": "6.1.0", "arch": "x86_64",
    "backend": "valgrind", "source": "valgrind-lackey", "event": "loads",
    "sample_period": "1", "clock": "instructions", "time_unit": "insn",
    "start_time": "0", "bucket_default": "4096", "target_pid": "100",
    "target_comm": "test", "command": "synthetic",
}

DEFAULT_MAPS = (
    "00400000-00401000 r--p 00000000 08:01 42 /usr/bin/dbtest\n"
    "00401000-00480000 r-xp 00001000 08:01 42 /usr/bin/dbtest\n"
    "004c0000-004c8000 rw-p 000c0000 08:01 42 /usr/bin/dbtest\n"
    "004c8000-00500000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 [anon:column]\n"
    "7f0000400000-7f0000800000 rw-p 00000000 00:00 0 \n"
    "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n"
)


def make_trace(path=None, samples=None, header=None, maps=DEFAULT_MAPS, end=True,
               chunk_size=65536, enc=None, extra_chunks=(), windows=None, major=1, minor=0):
    """Builds a trace; samples: dict name -> sequence (numpy or list).
    Returns the bytes (and writes them to path if given)."""
    h = dict(DEFAULT_HEADER)
    h.update(header or {})
    out = b"MEMTRACE" + struct.pack("<HHI", major, minor, 0)
    out += chunk(1, kv(h), len(h))
    if maps is not None:
        out += chunk(3, struct.pack("<QII", int(h["start_time"]), 100, 0) + maps.encode(),
                     maps.count("\n"))
    n = 0
    if samples is not None:
        n = len(samples["time"])
        cols = {k: [int(x) for x in v] for k, v in samples.items()}
        for lo in range(0, n, chunk_size):
            part = {k: v[lo:lo + chunk_size] for k, v in cols.items()}
            payload, cnt = samples_payload(part, enc)
            out += chunk(2, payload, cnt)
    for c in extra_chunks:
        out += c
    if windows is not None:
        window, interval, shift, recs = windows
        body = struct.pack("<QQII", window, interval, shift, 0)
        body += b"".join(struct.pack("<QQQ", *r) for r in recs)
        out += chunk(6, body, len(recs), codec=0)
    if end:
        last = int(samples["time"][-1]) if n else int(h["start_time"])
        e = {"end_reason": "target-exited", "end_time": last, "samples": n, "lost": 0,
             "throttled": 0, "dropped": 0}
        if isinstance(end, dict):
            e.update(end)
        out += chunk(7, kv(e), len(e))
    if path:
        with open(path, "wb") as f:
            f.write(out)
    return out


def simple_samples(times, addrs, pid=100, tid=None, cpu=0, ip=None):
    n = len(times)
    s = {"time": list(times), "addr": list(addrs), "pid": [pid] * n,
         "tid": list(tid) if tid is not None else [pid] * n, "cpu": [cpu] * n}
    if ip is not None:
        s["ip"] = list(ip)
    return s
