"""chunks.py TRACE: one line per chunk type present, "NAME CHUNKS RECORDS"
(RECORDS: the chunk headers' count field summed), walking the chunk
headers only (docs/trace-format.md); a cut last chunk is left out."""
import struct
import sys

NAMES = {1: "HEADER", 2: "SAMPLES", 3: "MAPS", 4: "THREADS", 5: "LOST", 6: "WINDOWS",
         10: "WINDOWS2",
         7: "END"}


def main(path):
    data = open(path, "rb").read()
    pos, seen = 16, {}
    while pos + 32 <= len(data):
        magic, typ, _codec, stored, _raw, count = struct.unpack_from("<IHHIII", data, pos)
        if magic != 0x4B43544D or pos + 32 + stored > len(data):
            break
        name = NAMES.get(typ, str(typ))
        n, c = seen.get(name, (0, 0))
        seen[name] = (n + 1, c + count)
        pos += 32 + stored
    for name, (n, c) in sorted(seen.items()):
        print(name, n, c)


main(sys.argv[1])
