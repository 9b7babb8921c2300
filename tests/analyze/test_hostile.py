"""Hostile traces through memtrace-analyze: seeded byte mutations of a small
trace (half with the chunk CRCs recomputed, so the damage reaches the
decoders) never end in a traceback: exit 0, or exit 2 with one line on
stderr.  Plus the crafted cases of issue 11 with their exact messages."""
import contextlib
import io
import os
import random
import struct

import numpy as np
import pytest

from memtrace_analyze import cli
from tracegen import write_trace

FILE_HDR, CHUNK_HDR = 16, 28


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def chunks(data):
    """(offset, stored length) of every whole chunk."""
    out, pos = [], FILE_HDR
    while pos + CHUNK_HDR <= len(data):
        slen = struct.unpack_from("<I", data, pos + 8)[0]
        if pos + CHUNK_HDR + slen > len(data):
            break
        out.append((pos, slen))
        pos += CHUNK_HDR + slen
    return out


def fix_crcs(data):
    for pos, slen in chunks(data):
        struct.pack_into("<I", data, pos + 20, crc32c(bytes(data[pos + CHUNK_HDR:pos + CHUNK_HDR + slen])))
        struct.pack_into("<I", data, pos + 24, crc32c(bytes(data[pos:pos + 24])))
    return data


def run_cli(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = cli.main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, err.getvalue()


@pytest.fixture
def small(tmp):
    n = 400
    t = np.arange(n, dtype=np.uint64) * 1000 + 5
    a = 0x7f0000000000 + (np.arange(n, dtype=np.uint64) % 37) * 4096
    return write_trace(str(tmp / "small.mtrace"), t, a, ip=np.full(n, 0x400100, np.uint64),
                       time_unit="ns", chunk=100)


def test_mutated_traces_never_traceback(small, tmp, monkeypatch):
    monkeypatch.setenv("MEMTRACE_ANALYZE_MAX_MEM", "256M")
    base = open(small, "rb").read()
    rng = random.Random(11)
    bad = []
    for k in range(200):
        d = bytearray(base)
        for _ in range(rng.choice((1, 1, 2, 4))):
            i = rng.randrange(len(d))
            d[i] = rng.choice((0, 0xFF, rng.randrange(256), d[i] ^ (1 << rng.randrange(8))))
        if k % 2:
            fix_crcs(d)
        path = str(tmp / ("m%d.mtrace" % k))
        with open(path, "wb") as f:
            f.write(d)
        verb = ["info", path] if k % 4 < 2 else ["heatmap", path, "-o", str(tmp / "m.png"), "--width", "50"]
        rc, err = run_cli(verb)
        lines = [x for x in err.splitlines() if not x.startswith("memtrace-analyze: warning:")]
        if rc not in (0, 1, 2) or "Traceback" in err or (rc != 0 and len(lines) != 1):
            bad.append((k, rc, err[-300:]))
        os.unlink(path)
    assert not bad, bad[:3]


def test_two_samples_2_pow_63_ns_computed(tmp):
    """9.2e10 intervals of 100 ms, two with samples: a sparse series of 2 rows
    (it used to be refused; dense, it would take terabytes)."""
    p = write_trace(str(tmp / "a.mtrace"), [1, 1 << 63], [0x7f0000000000, 0x7f0000001000], time_unit="ns")
    rc, err = run_cli(["wss", p, "-o", str(tmp / "a.png")])
    assert rc in (0, None), err
    assert os.path.getsize(str(tmp / "a.png")) > 0


def test_read_bounded_by_memory_limit(small, monkeypatch, tmp):
    monkeypatch.setenv("MEMTRACE_ANALYZE_MAX_MEM", "4K")
    rc, err = run_cli(["heatmap", small, "-o", str(tmp / "h.png")])
    assert rc == 2
    assert err == ("memtrace-analyze: error: small.mtrace: 400 samples need 8000 bytes for time,addr,pid, more "
                   "than the limit of 4096 bytes (MEMTRACE_ANALYZE_MAX_MEM; default a quarter of the available "
                   "memory)\n")
