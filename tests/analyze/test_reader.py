"""Trace reader: decoding paths, metadata, errors (docs/trace-format.md)."""
import struct

import numpy as np
import pytest
from mtrace_writer import (DEFAULT_MAPS, chunk, crc32c, encode_column, fast_crc32c, kv, make_trace,
                           simple_samples)

from memtrace_analyze import crc as crcmod
from memtrace_analyze.trace import TraceError, decode_column, parse_trace, read_trace

ADDRS = [0x7f0000000010, 0x4c8010, 0xFFFFFFFFFFFFFFFF, 0, 0x7ffffffde008, 0x4c8010]
TIMES = [5, 7, 7, 20, 1000, 1000]


def test_crc32c_known_value():
    assert crc32c(b"123456789") == 0xE3069283
    assert crcmod.crc32c(b"123456789") == 0xE3069283
    assert crcmod.crc32c_pure(b"123456789") == 0xE3069283
    data = bytes(range(256)) * 5
    assert crcmod.crc32c(data) == crcmod.crc32c_pure(data) == fast_crc32c(data) == crc32c(data)


@pytest.mark.parametrize("transform", [0, 1])
@pytest.mark.parametrize("width", [None, 8])
def test_column_roundtrip_all_paths(transform, width):
    vals = ADDRS
    buf = encode_column(vals, transform, width)
    v, pos = decode_column(buf, 0, len(vals), 0)
    assert pos == len(buf)
    assert [int(x) for x in v] == vals


@pytest.mark.parametrize("width", [1, 2, 4, 8])
def test_widths_offset(width):
    vals = [100, 101, 100 + (1 << (8 * width)) - 1, 100] if width < 8 else [0, 1, (1 << 64) - 1, 7]
    v, _ = decode_column(encode_column(vals, 0, width), 0, 4, 0)
    assert [int(x) for x in v] == vals


def test_width_zero_is_constant():
    buf = encode_column([42] * 7, 0, 0)
    assert len(buf) == 16
    v, _ = decode_column(buf, 0, 7, 0)
    assert v.tolist() == [42] * 7


def test_delta_wraps_and_goes_down():
    vals = [10, 5, 0, 0xFFFFFFFFFFFFFFFF, 3, 3, 1 << 63]
    v, _ = decode_column(encode_column(vals, 1, None), 0, len(vals), 0)
    assert [int(x) for x in v] == vals


def test_byte_plane_layout_by_hand():
    # two values 0x0102 and 0x0304, width 2, offset base 0:
    # planes: low bytes [02, 04], then high bytes [01, 03]
    buf = struct.pack("<BBHIQ", 0, 2, 0, 0, 0) + bytes([2, 4, 1, 3])
    v, _ = decode_column(buf, 0, 2, 0)
    assert v.tolist() == [0x0102, 0x0304]


def test_read_full_trace(tmp):
    p = tmp / "t.mtrace"
    s = simple_samples(TIMES, ADDRS, ip=[0x401000 + i for i in range(6)], tid=[100, 101, 100, 101, 100, 100])
    make_trace(str(p), s, enc={"addr": (1, 8), "time": (0, None)}, chunk_size=4)
    tr = read_trace(str(p))
    assert tr.n == 6
    assert [int(a) for a in tr.addr] == ADDRS
    assert tr.time.tolist() == TIMES
    assert tr.tid.tolist() == [100, 101, 100, 101, 100, 100]
    assert tr.ip.tolist() == [0x401000 + i for i in range(6)]
    assert tr.time_unit == "insn" and tr.start_time == 0 and tr.end_time == 1000
    assert tr.header["target_comm"] == "test"
    assert tr.end["end_reason"] == "target-exited"
    assert tr.warnings == []
    assert len(tr.maps) == 7
    idx = tr.maps.lookup(tr.addr)
    assert [tr.maps.maps[i].short if i >= 0 else None for i in idx] == \
        ["[anon:column]", "[heap]", None, None, "[stack]", "[heap]"]


def test_unknown_chunk_type_skipped_and_minor_accepted(tmp):
    s = simple_samples([1, 2], [0x1000, 0x2000])
    extra = [chunk(99, b"future stuff", 1, codec=0)]
    data = make_trace(None, s, extra_chunks=extra, minor=7)
    tr = parse_trace(data, "x")
    assert tr.n == 2 and tr.unknown_chunks == 1 and tr.version == (1, 7)


def test_other_major_rejected():
    data = make_trace(None, simple_samples([1], [1]), major=2)
    with pytest.raises(TraceError, match="version 2.0 is not supported"):
        parse_trace(data, "x")


def test_bad_magic():
    with pytest.raises(TraceError, match="not a memtrace trace"):
        parse_trace(b"ELF\0" + b"\0" * 40, "x")


def test_zero_length_file(tmp):
    p = tmp / "empty.mtrace"
    p.write_bytes(b"")
    with pytest.raises(TraceError, match="empty"):
        read_trace(str(p))


def test_missing_file():
    with pytest.raises(TraceError, match="cannot read"):
        read_trace("/nonexistent/x.mtrace")


def test_truncated_tail_keeps_complete_chunks():
    s = simple_samples(list(range(0, 100)), [0x7f0000000000 + 64 * i for i in range(100)])
    data = make_trace(None, s, chunk_size=10)
    full = parse_trace(data, "x")
    assert full.n == 100
    # cut inside the END chunk, inside the last SAMPLES payload, inside a header
    for cut in (len(data) - 5, len(data) - 60, len(data) - 200):
        tr = parse_trace(data[:cut], "x")
        assert tr.truncated_bytes > 0
        assert any("truncated tail" in w for w in tr.warnings)
        assert tr.n % 10 == 0 and 0 < tr.n <= 100
        assert tr.time.tolist() == list(range(tr.n))


def test_cut_at_every_byte_never_crashes():
    s = simple_samples([1, 2, 3], [0x1000, 0x2000, 0x3000])
    data = make_trace(None, s)
    for cut in range(0, len(data)):
        try:
            tr = parse_trace(data[:cut], "x")
            assert tr.n in (0, 3)
        except TraceError as e:
            assert str(e)   # a clear message, never another exception


def test_no_end_chunk_warns():
    tr = parse_trace(make_trace(None, simple_samples([1], [1]), end=False), "x")
    assert tr.n == 1 and tr.end is None
    assert any("no END chunk" in w for w in tr.warnings)


def test_payload_crc_mismatch_is_corrupt():
    data = make_trace(None, None, maps=None) + chunk(2, b"\0" * 8, 0, corrupt_crc=True)
    with pytest.raises(TraceError, match=r"corrupt chunk at offset \d+: payload CRC mismatch"):
        parse_trace(data, "x")


def test_header_crc_mismatch_is_corrupt():
    data = bytearray(make_trace(None, simple_samples([1], [1])))
    data[16 + 8] ^= 0xFF      # stored_len of the HEADER chunk
    with pytest.raises(TraceError, match="offset 16: chunk header CRC mismatch"):
        parse_trace(bytes(data), "x")


def test_flipped_payload_byte_reports_offset():
    data = bytearray(make_trace(None, simple_samples([1, 2], [1, 2])))
    # flip a byte in the last chunk's payload (the END chunk)
    data[-3] ^= 0x01
    with pytest.raises(TraceError, match="payload CRC mismatch"):
        parse_trace(bytes(data), "x")


def test_first_chunk_must_be_header():
    data = b"MEMTRACE" + struct.pack("<HHI", 1, 0, 0) + chunk(7, kv({"end_reason": "x"}), 1)
    with pytest.raises(TraceError, match="not HEADER"):
        parse_trace(data, "x")


def test_samples_count_mismatch():
    payload = struct.pack("<II", 2, 0x1F) + b"".join(encode_column([1, 2]) for _ in range(5))
    head = make_trace(None, None, maps=None, end=False)
    with pytest.raises(TraceError, match="2 samples in payload, chunk count 3"):
        parse_trace(head + chunk(2, payload, 3), "x")


def test_missing_required_column():
    payload = struct.pack("<II", 1, 0x03) + encode_column([1]) + encode_column([2])
    head = make_trace(None, None, maps=None, end=False)
    with pytest.raises(TraceError, match="required columns missing"):
        parse_trace(head + chunk(2, payload, 1), "x")


def test_empty_trace_reads():
    tr = parse_trace(make_trace(None, None), "x")
    assert tr.n == 0 and tr.time.size == 0 and tr.end is not None


def test_windows_and_lost_and_threads():
    lost = chunk(5, struct.pack("<QIIQQ", 10, 1, 0, 5, 2) + struct.pack("<QIIQQ", 20, 0, 0, 1, 0), 2, codec=0)
    thr = chunk(4, struct.pack("<QII", 0, 100, 101) + b"worker\0".ljust(16, b"\0"), 1, codec=1)
    s = simple_samples([10, 20], [0x1000, 0x2000])
    tr = parse_trace(make_trace(None, s, extra_chunks=[lost, thr], windows=(10, 10, 12, [(10, 1, 0), (20, 1, 0)])), "x")
    assert tr.lost == [(10, 1, 5, 2), (20, 0, 1, 0)]
    assert tr.threads == [(0, 100, 101, "worker")]
    assert tr.windows[0]["window"] == 10 and tr.windows[0]["wss_data"].tolist() == [1, 1]


def test_maps_overlay_later_snapshot_wins():
    from memtrace_analyze.maps import MapSet, parse_maps_text
    ms = MapSet()
    ms.add_snapshot(parse_maps_text("1000-3000 rw-p 0 0:0 0 [heap]\n9000-a000 rw-p 0 0:0 0 /old\n"))
    ms.add_snapshot(parse_maps_text("2000-4000 rw-p 0 0:0 0 /new\n"))
    assert [m.name for m in ms.maps] == ["/new", "/old"]
    assert ms.lookup(np.array([0x1000, 0x2500, 0x9100, 0x5000], dtype=np.uint64)).tolist() == [-1, 0, 1, -1]


def test_memfd_and_deleted_names():
    from memtrace_analyze.maps import parse_maps_text
    m = parse_maps_text("7f00-8000 rw-s 0 0:1 29 /memfd:orders.o_totalprice (deleted)\n")[0]
    assert m.short == "memfd:orders.o_totalprice"


def test_default_maps_parse():
    from memtrace_analyze.maps import parse_maps_text
    ms = parse_maps_text(DEFAULT_MAPS)
    assert [m.short for m in ms] == ["dbtest", "dbtest", "dbtest", "[heap]", "[anon:column]", "[anon]", "[stack]"]


def test_crc_fallbacks_agree(monkeypatch):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, "crc32c", None)       # python3-crc32c missing
    mod = importlib.reload(crcmod)
    try:
        assert mod.IMPLEMENTATION in ("python3-crcmod", "pure-python")
        assert mod.crc32c(b"123456789") == 0xE3069283
        monkeypatch.setitem(sys.modules, "crcmod", None)    # and python3-crcmod too
        mod = importlib.reload(crcmod)
        assert mod.IMPLEMENTATION == "pure-python"
        data = make_trace(None, simple_samples([1, 2], [3, 4]))
        assert parse_trace(data, "x").n == 2
    finally:
        monkeypatch.undo()
        importlib.reload(crcmod)


def test_decode_only_wanted_columns():
    s = simple_samples(TIMES, ADDRS, ip=[7] * 6)
    data = make_trace(None, s, chunk_size=4)
    tr = parse_trace(data, "x", columns=("pid",))
    assert sorted(tr.columns) == ["addr", "pid", "time"]
    assert [int(a) for a in tr.addr] == ADDRS and tr.pid.tolist() == [100] * 6
    assert tr.ip is None
