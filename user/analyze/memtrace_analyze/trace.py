"""Reader for memtrace trace files (docs/trace-format.md, version 1).

Written from the format specification alone; it shares no code with the C
reader.  The whole file is read into memory; SAMPLES chunks are decoded
column by column with numpy (byte-plane unshuffle, offset/delta transform),
never sample by sample.

    tr = read_trace("x.mtrace")
    tr.time, tr.addr, tr.pid, tr.tid, tr.cpu   # numpy uint64 / uint32 arrays
    tr.ip                                       # None when not recorded
    tr.header["time_unit"], tr.maps, tr.windows, tr.warnings
"""

import os
import struct

import numpy as np

from . import crc as _crc
from .maps import MapSet, parse_maps_text

FILE_MAGIC = b"MEMTRACE"
CHUNK_MAGIC = b"MTCK"
FILE_HEADER_LEN = 16
CHUNK_HEADER_LEN = 32
MAX_PAYLOAD = 64 << 20

T_HEADER, T_SAMPLES, T_MAPS, T_THREADS, T_LOST, T_WINDOWS, T_END = 1, 2, 3, 4, 5, 6, 7
CHUNK_NAMES = {1: "HEADER", 2: "SAMPLES", 3: "MAPS", 4: "THREADS", 5: "LOST",
               6: "WINDOWS", 7: "END"}

COLUMNS = ("time", "addr", "pid", "tid", "cpu", "ip", "weight", "data_src")
REQUIRED_COLUMNS = 0x1F
_U64 = np.uint64


class TraceError(Exception):
    """A trace that cannot be read; str() is a one-line message."""


class Trace:
    """Everything read from one .mtrace file."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.version = (1, 0)
        self.header = {}
        self.end = None                 # dict of END keys, None if missing
        self.maps_snapshots = []        # (time, pid, text)
        self.threads = []               # (time, pid, tid, comm)
        self.lost = []                  # (time, cpu, lost, throttled)
        self.windows = []               # dict(window, interval, bucket_shift, time, wss_data, wss_code)
        self.warnings = []
        self.truncated_bytes = 0
        self.chunks = 0
        self.unknown_chunks = 0
        self.columns = {}               # name -> numpy array (all samples)
        self._maps = None

    # -- samples -----------------------------------------------------------
    @property
    def n(self):
        return int(self.columns["time"].size) if "time" in self.columns else 0

    def col(self, name):
        return self.columns.get(name)

    time = property(lambda self: self.columns["time"])
    addr = property(lambda self: self.columns["addr"])
    pid = property(lambda self: self.columns["pid"])
    tid = property(lambda self: self.columns["tid"])
    cpu = property(lambda self: self.columns["cpu"])
    ip = property(lambda self: self.columns.get("ip"))

    # -- metadata ----------------------------------------------------------
    @property
    def time_unit(self):
        return self.header.get("time_unit", "ns")

    @property
    def start_time(self):
        """Trace origin (HEADER start_time); first sample if absent."""
        v = _int_or_none(self.header.get("start_time"))
        if v is not None:
            return v
        return int(self.time[0]) if self.n else 0

    @property
    def end_time(self):
        """END end_time, else the last sample time, else start_time."""
        v = _int_or_none((self.end or {}).get("end_time"))
        last = int(self.time[-1]) if self.n else self.start_time
        if v is None or v < last:
            return max(last, self.start_time)
        return v

    @property
    def bucket_default(self):
        v = _int_or_none(self.header.get("bucket_default"))
        return v if v and v > 0 and (v & (v - 1)) == 0 else 4096

    @property
    def sample_period(self):
        v = _int_or_none(self.header.get("sample_period"))
        return v if v and v > 0 else 1

    @property
    def maps(self):
        if self._maps is None:
            ms = MapSet()
            for t, pid, text in self.maps_snapshots:
                ms.add_snapshot(parse_maps_text(text), t, pid)
            self._maps = ms
        return self._maps

    def select(self, mask):
        """A shallow copy holding only the samples where mask is true."""
        out = Trace.__new__(Trace)
        out.__dict__.update(self.__dict__)
        out.columns = {k: v[mask] for k, v in self.columns.items()}
        return out

    def describe(self):
        h = self.header
        return "%s: %d samples, %s/%s, period %s, time unit %s" % (
            self.name, self.n, h.get("backend", "?"), h.get("source", "?"),
            h.get("sample_period", "?"), self.time_unit)


def _int_or_none(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def parse_kv(payload):
    out = {}
    text = bytes(payload).decode("utf-8", errors="replace")
    for line in text.split("\n"):
        if not line or "=" not in line:
            continue
        k, v = line.split("=", 1)
        out[k.strip()] = v
    return out


def _zstd_decompress(data, raw_len, offset):
    try:
        import zstandard
    except ImportError as e:  # pragma: no cover - dependency missing
        raise TraceError("python3-zstandard is not installed (apt-get install python3-zstandard)") from e
    try:
        out = zstandard.ZstdDecompressor().decompress(bytes(data), max_output_size=max(raw_len, 1))
    except zstandard.ZstdError as e:
        raise TraceError("corrupt chunk at offset %d: zstd: %s" % (offset, e)) from e
    if len(out) != raw_len:
        raise TraceError("corrupt chunk at offset %d: decompressed %d bytes, header says %d"
                         % (offset, len(out), raw_len))
    return out


def decode_column(buf, pos, n, offset):
    """Decodes one column descriptor + data at buf[pos:]; returns (values, new_pos)."""
    if pos + 16 > len(buf):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column header past end of payload" % offset)
    transform, width, _r16, _r32, base = struct.unpack_from("<BBHIQ", buf, pos)
    pos += 16
    if width not in (0, 1, 2, 4, 8):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column width %d" % (offset, width))
    if transform not in (0, 1):
        raise TraceError("corrupt SAMPLES chunk at offset %d: unknown transform %d" % (offset, transform))
    nbytes = n * width
    if pos + nbytes > len(buf):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column data past end of payload" % offset)
    if width == 0 or n == 0:
        x = np.zeros(n, dtype=_U64)
    else:
        planes = np.frombuffer(buf, dtype=np.uint8, count=nbytes, offset=pos).reshape(width, n)
        if width == 1:
            x = planes[0].astype(_U64)
        else:
            # Unshuffle: byte k of every value sits in plane k.  Put the
            # planes side by side as little-endian words of `width` bytes.
            tmp = np.empty((n, width), dtype=np.uint8)
            tmp[:] = planes.T
            x = tmp.view("<u%d" % width).reshape(n).astype(_U64)
    pos += nbytes
    base = _U64(base)
    with np.errstate(over="ignore"):
        if transform == 0:
            v = x + base
        else:
            d = (x >> _U64(1)) ^ (_U64(0) - (x & _U64(1)))   # unzigzag, wraps
            v = np.cumsum(d, dtype=_U64) + base
    return v, pos


def decode_samples(raw, count, offset, want=None):
    """Decodes a SAMPLES payload; returns {column: array}.  want: the column
    names to decode (None = all); the others are only skipped."""
    if len(raw) < 8:
        raise TraceError("corrupt SAMPLES chunk at offset %d: payload shorter than 8 bytes" % offset)
    n, mask = struct.unpack_from("<II", raw, 0)
    if n != count:
        raise TraceError("corrupt SAMPLES chunk at offset %d: %d samples in payload, chunk count %d"
                         % (offset, n, count))
    if mask & REQUIRED_COLUMNS != REQUIRED_COLUMNS:
        raise TraceError("corrupt SAMPLES chunk at offset %d: required columns missing (mask 0x%x)"
                         % (offset, mask))
    pos = 8
    cols = {}
    for bit in range(32):
        if not mask & (1 << bit):
            continue
        name = COLUMNS[bit] if bit < len(COLUMNS) else None
        if want is not None and name not in want:
            pos = skip_column(raw, pos, n, offset)
            continue
        v, pos = decode_column(raw, pos, n, offset)
        if name:
            cols[name] = v
    return cols


def skip_column(buf, pos, n, offset):
    if pos + 16 > len(buf):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column header past end of payload" % offset)
    width = buf[pos + 1]
    if width not in (0, 1, 2, 4, 8):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column width %d" % (offset, width))
    pos += 16 + n * width
    if pos > len(buf):
        raise TraceError("corrupt SAMPLES chunk at offset %d: column data past end of payload" % offset)
    return pos


def _records(payload, size, what, offset):
    if len(payload) % size:
        raise TraceError("corrupt %s chunk at offset %d: %d bytes is not a whole number of %d-byte records"
                         % (what, offset, len(payload), size))
    return [payload[i:i + size] for i in range(0, len(payload), size)]


def read_trace(path, verify_crc=True, columns=None):
    """Reads a whole trace.  Raises TraceError with a one-line message.
    columns: sample columns to decode (default all; time and addr always)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror or e)) from e
    return parse_trace(data, path, verify_crc, columns)


def parse_trace(data, path="<memory>", verify_crc=True, columns=None):
    tr = Trace(path)
    want = None if columns is None else set(columns) | {"time", "addr"}
    size = len(data)
    if size == 0:
        raise TraceError("%s is empty (0 bytes): not a memtrace trace" % path)
    if size < FILE_HEADER_LEN or data[:8] != FILE_MAGIC:
        if size < FILE_HEADER_LEN and FILE_MAGIC.startswith(data[:8][:size]):
            raise TraceError("%s: truncated file header (%d of 16 bytes)" % (path, size))
        raise TraceError("%s is not a memtrace trace (bad magic)" % path)
    major, minor = struct.unpack_from("<HH", data, 8)
    if major != 1:
        raise TraceError("%s: trace format version %d.%d is not supported (this reader knows 1.x)"
                         % (path, major, minor))
    tr.version = (major, minor)
    mv = memoryview(data)
    pos = FILE_HEADER_LEN
    sample_parts = []
    first = True
    while pos < size:
        off = pos
        if size - pos < CHUNK_HEADER_LEN:
            tr.truncated_bytes = size - pos
            tr.warnings.append("truncated tail: %d bytes of an incomplete chunk header at offset %d were ignored"
                               % (size - pos, pos))
            break
        hdr = mv[pos:pos + CHUNK_HEADER_LEN]
        if bytes(hdr[:4]) != CHUNK_MAGIC:
            raise TraceError("%s: corrupt chunk at offset %d: bad chunk magic" % (path, off))
        ctype, codec, stored_len, raw_len, count, pcrc, hcrc, _res = \
            struct.unpack_from("<HHIIIIII", data, pos + 4)
        if verify_crc and _crc.crc32c(hdr[:24]) != hcrc:
            raise TraceError("%s: corrupt chunk at offset %d: chunk header CRC mismatch" % (path, off))
        if stored_len > MAX_PAYLOAD or raw_len > MAX_PAYLOAD:
            raise TraceError("%s: corrupt chunk at offset %d: payload length over 64 MiB" % (path, off))
        pos += CHUNK_HEADER_LEN
        if size - pos < stored_len:
            tr.truncated_bytes = size - off
            tr.warnings.append("truncated tail: %s chunk at offset %d needs %d payload bytes, only %d present; "
                               "%d bytes ignored" % (CHUNK_NAMES.get(ctype, "type %d" % ctype), off,
                                                     stored_len, size - pos, size - off))
            break
        payload = mv[pos:pos + stored_len]
        pos += stored_len
        if verify_crc and _crc.crc32c(payload) != pcrc:
            raise TraceError("%s: corrupt chunk at offset %d: payload CRC mismatch" % (path, off))
        tr.chunks += 1
        if first and ctype != T_HEADER:
            raise TraceError("%s: corrupt trace: first chunk (offset %d) is %s, not HEADER"
                             % (path, off, CHUNK_NAMES.get(ctype, "type %d" % ctype)))
        first = False
        if ctype not in CHUNK_NAMES:
            tr.unknown_chunks += 1
            continue
        if codec == 1:
            raw = _zstd_decompress(payload, raw_len, off)
        elif codec == 0:
            raw = bytes(payload)
            if raw_len != stored_len:
                raise TraceError("%s: corrupt chunk at offset %d: stored chunk with raw_len %d != stored_len %d"
                                 % (path, off, raw_len, stored_len))
        else:
            raise TraceError("%s: corrupt chunk at offset %d: unknown codec %d" % (path, off, codec))
        try:
            _handle_chunk(tr, ctype, raw, count, off, want)
        except struct.error as e:
            raise TraceError("%s: corrupt %s chunk at offset %d: %s"
                             % (path, CHUNK_NAMES[ctype], off, e)) from e
        except TraceError as e:
            raise TraceError("%s: %s" % (path, e)) from e
        if ctype == T_SAMPLES:
            sample_parts.append(tr._last_samples)
            del tr._last_samples
    if first:
        raise TraceError("%s: no complete chunk after the file header (file cut short)" % path)
    if tr.end is None and not tr.truncated_bytes:
        tr.warnings.append("no END chunk: the recording was cut short (all data before is kept)")
    _join_samples(tr, sample_parts)
    return tr


def _handle_chunk(tr, ctype, raw, count, off, want=None):
    if ctype == T_HEADER:
        tr.header.update(parse_kv(raw))
    elif ctype == T_END:
        tr.end = parse_kv(raw)
    elif ctype == T_SAMPLES:
        tr._last_samples = decode_samples(raw, count, off, want)
    elif ctype == T_MAPS:
        if len(raw) < 16:
            raise TraceError("corrupt MAPS chunk at offset %d: shorter than 16 bytes" % off)
        t, pid, _r = struct.unpack_from("<QII", raw, 0)
        tr.maps_snapshots.append((t, pid, bytes(raw[16:]).decode("utf-8", errors="replace")))
        tr._maps = None
    elif ctype == T_THREADS:
        for r in _records(raw, 32, "THREADS", off):
            t, pid, tid = struct.unpack_from("<QII", r, 0)
            comm = bytes(r[16:32]).split(b"\0", 1)[0].decode("utf-8", errors="replace")
            tr.threads.append((t, pid, tid, comm))
    elif ctype == T_LOST:
        for r in _records(raw, 32, "LOST", off):
            tr.lost.append(struct.unpack_from("<QIIQQ", r, 0)[:2] + struct.unpack_from("<QQ", r, 16))
    elif ctype == T_WINDOWS:
        if len(raw) < 24:
            raise TraceError("corrupt WINDOWS chunk at offset %d: shorter than 24 bytes" % off)
        window, interval, shift, _r = struct.unpack_from("<QQII", raw, 0)
        body = raw[24:]
        if len(body) % 24:
            raise TraceError("corrupt WINDOWS chunk at offset %d: records not a multiple of 24 bytes" % off)
        rec = np.frombuffer(bytes(body), dtype="<u8").reshape(-1, 3)
        tr.windows.append({"window": window, "interval": interval, "bucket_shift": shift,
                           "time": rec[:, 0].copy(), "wss_data": rec[:, 1].copy(),
                           "wss_code": rec[:, 2].copy()})


def _join_samples(tr, parts):
    names = set()
    for p in parts:
        names.update(p.keys())
    cols = {}
    for name in COLUMNS:
        if name not in names:
            continue
        if any(name not in p for p in parts):
            # An optional column present in some chunks only: absent = 0.
            arrs = [p.get(name, np.zeros(p["time"].size, dtype=_U64)) for p in parts]
        else:
            arrs = [p[name] for p in parts]
        cols[name] = np.concatenate(arrs) if len(arrs) != 1 else arrs[0]
    if not parts:
        for name in COLUMNS[:5]:
            cols[name] = np.zeros(0, dtype=_U64)
    for name in ("pid", "tid", "cpu"):
        if name in cols:
            cols[name] = cols[name].astype(np.uint32)
    fields = set(f.strip() for f in tr.header.get("fields", "").split(",") if f.strip())
    for name in ("ip", "weight", "data_src"):
        # A column written but declared empty by the header stays usable;
        # a column that is all zero carries no information: drop it.
        if name in cols and name not in fields and not cols[name].any():
            del cols[name]
    tr.columns = cols
