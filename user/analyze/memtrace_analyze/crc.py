"""CRC32C (Castagnoli), as the trace format specifies for chunk CRCs.

Uses Debian's python3-crc32c (C, hardware accelerated) when installed, else
python3-crcmod's C extension, else a pure-Python table (correct, slow: about
a few MB/s, fine for tests and small traces).
"""

_POLY = 0x82F63B78


def _make_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def crc32c_pure(data, crc=0):
    """Reference implementation; crc is the running CRC of earlier data."""
    c = crc ^ 0xFFFFFFFF
    t = _TABLE
    for b in bytes(data):
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _pick():
    try:
        import crc32c as _mod  # python3-crc32c
        return (lambda data: _mod.crc32c(bytes(data)) if isinstance(data, memoryview)
                else _mod.crc32c(data)), "python3-crc32c"
    except ImportError:
        pass
    try:
        import crcmod  # python3-crcmod (C extension when built)
        fn = crcmod.mkCrcFun(0x11EDC6F41, initCrc=0, rev=True, xorOut=0xFFFFFFFF)
        return (lambda data: fn(bytes(data))), "python3-crcmod"
    except Exception:
        pass
    return crc32c_pure, "pure-python"


crc32c, IMPLEMENTATION = _pick()
