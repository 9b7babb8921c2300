#!/usr/bin/python3
"""span_bytes.py TRACE... - bytes the span chunks take in a trace file
(docs/trace-format.md: 16-byte file header, 32-byte chunk headers; SPANS =
type 12, SPANS2 = type 14; a chunk's count is its spans), read from the
chunk headers alone: spans, bytes (headers included), bytes per span, and
the file's size."""
import struct
import sys

for path in sys.argv[1:]:
    spans = nbytes = chunks = 0
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(16)
        while True:
            h = f.read(32)
            if len(h) < 32:
                break
            magic, typ, _codec, stored, _raw, count = struct.unpack_from("<IHHIII", h)
            if magic != 0x4B43544D:
                sys.exit("%s: bad chunk magic at %d" % (path, f.tell() - 32))
            if typ in (12, 14):
                spans += count
                nbytes += 32 + stored
                chunks += 1
            f.seek(stored, 1)
    print("%s: %d spans in %d chunks, %d bytes, %.2f bytes/span; file %d bytes" %
          (path, spans, chunks, nbytes, nbytes / spans if spans else 0, size))
