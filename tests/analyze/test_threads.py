"""Chunks decode on several threads (user/trace/pipe.c): whatever the thread
count (MEMTRACE_THREADS), `memtracectl report` prints the same bytes, the
library hands out the same columns and heatmap counts, and a corrupt or cut
trace fails or warns the same way, on traces of many chunks."""
import os
import subprocess

import numpy as np
import pytest

from conftest import TOP
from memtrace_analyze import lib
from tracegen import write_trace

CTL = os.path.join(TOP, "build", "memtracectl")
pytestmark = pytest.mark.skipif(not os.access(CTL, os.X_OK), reason="build/memtracectl not built")
THREADS = ("1", "2", "5")
HEAP, COLUMN, STACK, CODE = 0x4c8000, 0x7f0000000000, 0x7ffffffde000, 0x400000


def _trace(path, n=60000, chunk=3000, seed=7):
    rng = np.random.default_rng(seed)
    time = np.cumsum(rng.integers(1, 40, n)).astype(np.uint64)
    pick = rng.integers(0, 4, n)
    addr = np.where(pick == 0, HEAP + rng.integers(0, 0x28000, n),
                    np.where(pick == 1, COLUMN + rng.integers(0, 0x400000, n),
                             np.where(pick == 2, STACK + rng.integers(0x20000, 0x21000, n),
                                      COLUMN + (np.arange(n) * 64) % 0x400000))).astype(np.uint64)
    ip = (CODE + rng.integers(0, 0x2000, n) * 4).astype(np.uint64)
    ip[rng.random(n) < 0.1] = 0
    return write_trace(str(path), time, addr, ip=ip, chunk=chunk)


def _report(path, threads, *opts):
    env = dict(os.environ, MEMTRACE_THREADS=threads)
    r = subprocess.run([CTL, "report", str(path)] + list(opts), env=env, capture_output=True)
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("opts", [(), ("--json", "--top", "20"), ("--per-process", "-w", "2000"),
                                  ("--series", "-", "-i", "500")])
def test_report_same_bytes_any_thread_count(tmp, opts):
    path = _trace(tmp / "t.mtrace")
    one = _report(path, "1", *opts)
    assert one[0] == 0, one[2]
    assert len(one[1]) > 1000
    for t in THREADS[1:]:
        assert _report(path, t, *opts) == one, "MEMTRACE_THREADS=%s differs" % t


def _chunk_offsets(path):
    """(offset, type, stored length) of every chunk, from the chunk headers."""
    import struct
    data = open(path, "rb").read()
    pos, out = 16, []
    while pos + 32 <= len(data):
        _magic, typ, _codec, stored = struct.unpack_from("<IHHI", data, pos)
        out.append((pos, typ, stored))
        pos += 32 + stored
    return out


def test_corrupt_and_cut_traces_same_message(tmp):
    path = _trace(tmp / "t.mtrace")
    samples = [c for c in _chunk_offsets(path) if c[1] == 2]
    assert len(samples) == 20
    data = bytearray(open(path, "rb").read())
    bad = bytearray(data)
    off, _, stored = samples[11]
    bad[off + 32 + stored // 2] ^= 0x40    # payload of the 12th SAMPLES chunk
    (tmp / "bad.mtrace").write_bytes(bytes(bad))
    off, _, stored = samples[15]
    (tmp / "cut.mtrace").write_bytes(bytes(data[:off + 32 + stored // 3]))
    for name in ("bad.mtrace", "cut.mtrace"):
        one = _report(tmp / name, "1")
        for t in THREADS[1:]:
            assert _report(tmp / name, t) == one, (name, t)
    rc, _, err = _report(tmp / "bad.mtrace", "1")
    assert rc == 1 and b"checksum mismatch in chunk at offset %d" % samples[11][0] in err
    rc, out, err = _report(tmp / "cut.mtrace", "1")
    assert rc == 0 and b"cut short" in err and b"samples:   45000 " in out


def test_large_chunks_in_parts_same_bytes_and_errors(tmp):
    """Chunks of more samples than a batch of the pipe's (4096): each comes in
    parts, in order, whole or cut or corrupt."""
    path = _trace(tmp / "t.mtrace", n=60000, chunk=25000, seed=9)
    for opts in ((), ("--json", "--top", "20", "-w", "300"), ("--per-process", "--series", "-")):
        one = _report(path, "1", *opts)
        assert one[0] == 0, one[2]
        for t in THREADS[1:]:
            assert _report(path, t, *opts) == one, ("MEMTRACE_THREADS=%s differs" % t, opts)
    samples = [c for c in _chunk_offsets(path) if c[1] == 2]
    assert len(samples) == 3
    data = bytearray(open(path, "rb").read())
    bad = bytearray(data)
    off, _, stored = samples[1]
    bad[off + 32 + stored // 2] ^= 0x10
    (tmp / "bad.mtrace").write_bytes(bytes(bad))
    off, _, stored = samples[2]
    (tmp / "cut.mtrace").write_bytes(bytes(data[:off + 32 + stored // 2]))
    for name in ("bad.mtrace", "cut.mtrace"):
        one = _report(tmp / name, "1")
        for t in THREADS[1:]:
            assert _report(tmp / name, t) == one, (name, t)
    rc, _, err = _report(tmp / "bad.mtrace", "1")
    assert rc == 1 and b"checksum mismatch in chunk at offset %d" % samples[1][0] in err
    rc, out, err = _report(tmp / "cut.mtrace", "1")
    assert rc == 0 and b"cut short" in err and b"samples:   50000 " in out


def test_columns_and_heatmap_same_any_thread_count(tmp, monkeypatch):
    from memtrace_analyze import heatmap
    path = _trace(tmp / "t.mtrace")
    got = []
    for t in THREADS:
        monkeypatch.setenv("MEMTRACE_THREADS", t)
        tr = lib.Trace(path)
        cols = tr.read(("time", "addr", "ip", "pid"), lib.Selection())
        view = heatmap.View(tr, lib.Selection())
        data = heatmap.bin_view(view, 4096, 100, 256)
        got.append((cols, data.counts, tr.info.samples))
        tr.close()
    cols1, counts1, n1 = got[0]
    assert n1 == 60000 and int(counts1.sum()) == 60000
    for cols, counts, n in got[1:]:
        assert n == n1
        for k in cols1:
            assert np.array_equal(cols[k], cols1[k]), k
        assert np.array_equal(counts, counts1)
