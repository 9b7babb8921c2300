#!/usr/bin/python3
"""vgtool_stream.py - reads the memtrace Valgrind tool's binary stream
(user/source/valgrind/vgtool/mt_stream.h), independently of the collector's C reader.

  vgtool_stream.py STREAM --summary     counts of each message, END's counters
  vgtool_stream.py STREAM --allocs      one line per ALLOC / FREE:
                                        alloc TIME TID ADDR SIZE KIND IP0,IP1,...
                                        free TIME TID ADDR
"""
import struct
import sys

HDR = struct.Struct('<II')
HELLO = struct.Struct('<IIIIQQ')
ACCESS = struct.Struct('<QQQIHBB')
ALLOC = struct.Struct('<QQQIHH')
FREE = struct.Struct('<QQII')
END = struct.Struct('<QQQQQq')


def messages(data):
    off = 0
    while off + HDR.size <= len(data):
        typ, n = HDR.unpack_from(data, off)
        off += HDR.size
        if off + n > len(data):
            raise SystemExit('cut message at %d' % off)
        yield typ, data[off:off + n]
        off += n
    if off != len(data):
        raise SystemExit('%d trailing bytes' % (len(data) - off))


def main():
    data = open(sys.argv[1], 'rb').read()
    counts = {}
    accesses = 0
    end = None
    lines = []
    for typ, p in messages(data):
        counts[typ] = counts.get(typ, 0) + 1
        if typ == 2:
            accesses += len(p) // ACCESS.size
        elif typ == 3:
            t, a, size, tid, kind, nf = ALLOC.unpack_from(p)
            ips = struct.unpack_from('<%dQ' % nf, p, ALLOC.size)
            lines.append('alloc %d %d %#x %d %d %s' % (t, tid, a, size, kind,
                                                      ','.join('%#x' % i for i in ips)))
        elif typ == 4:
            t, a, tid, _ = FREE.unpack_from(p)
            lines.append('free %d %d %#x' % (t, tid, a))
        elif typ == 5:
            end = END.unpack(p)
        elif typ == 6:
            lines.append('fork %d %d' % struct.unpack_from('<QI', p))
    if '--allocs' in sys.argv:
        print('\n'.join(lines))
    else:
        print('hello=%d accesses=%d allocs=%d frees=%d end=%s' % (
            counts.get(1, 0), accesses, counts.get(3, 0), counts.get(4, 0),
            ','.join(map(str, end)) if end else 'none'))


main()
