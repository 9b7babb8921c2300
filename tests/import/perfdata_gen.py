#!/usr/bin/python3
"""perfdata_gen.py OUT [--pipe] [--unknown-id] [--fork] - writes a small perf.data file by hand
(tools/perf/Documentation/perf.data-file-format.txt) with the PEBS-style
fields perf mem record gives: two events, one with PERF_SAMPLE_WEIGHT and
one with PERF_SAMPLE_WEIGHT_STRUCT, both with DATA_SRC, IDENTIFIER, CPU and
sample_id_all; a COMM exec, MMAP2 records (a file and anonymous memory), a
LOST record, and samples out of time order across CPUs within a round.
--unknown-id adds a sample of an event id no attr lists. --fork adds a FORK of
process CHILD from PID at a time after PID's MMAP2 records but first in the
file, as perf writes it when the fork ran on another CPU in the same round.
Prints the samples memtracectl dump must show, in time order, as CSV
(time,pid,tid,cpu,addr,ip,weight,data_src)."""
import struct
import sys

S_IP, S_TID, S_TIME, S_ADDR, S_CPU, S_PERIOD = 1, 2, 4, 8, 128, 256
S_WEIGHT, S_DATA_SRC, S_IDENTIFIER, S_WEIGHT_STRUCT = 1 << 14, 1 << 15, 1 << 16, 1 << 24
BASE = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_CPU | S_PERIOD | S_DATA_SRC
ATTRS = [  # (id, sample_type, type, config): PERF_TYPE_RAW like mem-loads / mem-stores
    (101, BASE | S_WEIGHT, 4, 0x1cd),
    (202, BASE | S_WEIGHT_STRUCT, 4, 0x82d0),
]
PID = 4242
CHILD = 4300


def attr_bytes(stype, typ, config):
    flags = (1 << 8) | (1 << 9) | (1 << 17) | (1 << 18) | (1 << 23) | (1 << 24)  # mmap comm mmap_data sample_id_all mmap2 comm_exec
    flags |= 2 << 15                                                             # precise_ip
    a = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", typ, 128, config, 1000, stype, 0, flags,
                    0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert len(a) == 128
    return a


def trailer(tid, time, cpu, ident):   # sample_id: TID TIME CPU IDENTIFIER
    return struct.pack("<IIQIIQ", PID, tid, time, cpu, 0, ident)


def rec(typ, body, misc=0):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def sample(ident, ip, tid, time, addr, cpu, weight, dsrc):
    body = struct.pack("<QQIIQQIIQ", ident, ip, PID, tid, time, addr, cpu, 0, 1000)
    body += struct.pack("<QQ", weight, dsrc)
    return rec(9, body)


def records(unknown_id=False, fork=False):
    out = []
    t0 = 5_000_000_000
    if fork:   # cpu 1's buffer is written before cpu 0's: FORK (t0 + 30) first
        out.append(rec(7, struct.pack("<IIIIQ", CHILD, PID, CHILD, PID, t0 + 30)
                       + struct.pack("<IIQIIQ", CHILD, CHILD, t0 + 30, 1, 0, 101)))
    out.append(rec(3, struct.pack("<II", PID, PID) + cstr("fakedb") + trailer(PID, t0, 0, 101), misc=1 << 13))
    out.append(rec(10, struct.pack("<IIQQQIIQQII", PID, PID, 0x400000, 0x10000, 0, 8, 1, 777, 0, 5, 2)
                   + cstr("/usr/bin/fakedb") + trailer(PID, t0 + 10, 0, 101)))
    out.append(rec(10, struct.pack("<IIQQQIIQQII", PID, PID, 0x7f0000000000, 0x200000, 0, 0, 0, 0, 0, 3, 0x22)
                   + cstr("//anon") + trailer(PID, t0 + 20, 0, 101)))
    smp = [  # ident, ip, tid, time, addr, cpu, weight, data_src: cpu 1 lags cpu 0
        (101, 0x401010, PID, t0 + 1000, 0x7f0000000040, 0, 31, 0x68100142),
        (101, 0x401020, PID, t0 + 3000, 0x7f0000001080, 0, 250, 0x44100142),
        (202, 0x401030, PID + 1, t0 + 2000, 0x7f00000020c0, 1, (7 << 32) | 48, 0x2080144),
        (202, 0x401040, PID + 1, t0 + 1500, 0x7f0000003100, 1, 19, 0x1a100142),
    ]
    out += [sample(*s) for s in smp[:2]]
    out += [sample(*s) for s in smp[2:]]
    out.append(rec(2, struct.pack("<QQ", 101, 5) + trailer(PID, t0 + 3500, 0, 101)))
    out.append(rec(68, b""))
    late = [
        (101, 0x401050, PID, t0 + 5000, 0x400800, 0, 12, 0x1a100142),
        (202, 0x401060, PID + 1, t0 + 4000, 0x7f0000004140, 1, (1 << 48) | 300, 0x44100142),
    ]
    out += [sample(*s) for s in late]
    if unknown_id:   # an event the attrs do not list: left out, with a warning
        out.append(sample(999, 0x401070, PID, t0 + 4500, 0x7f0000005000, 0, 1, 0x1))
    out.append(rec(68, b""))
    all_s = smp + late
    expect = []
    for ident, ip, tid, time, addr, cpu, weight, dsrc in sorted(all_s, key=lambda s: s[3]):
        w = weight & 0xffffffff if ident == 202 else weight
        expect.append("%d,%d,%d,%d,0x%x,0x%x,%d,0x%x" % (time, PID, tid, cpu, addr, ip, w, dsrc))
    return b"".join(out), expect


def main():
    path, pipe = sys.argv[1], "--pipe" in sys.argv[2:]
    data, expect = records("--unknown-id" in sys.argv[2:], "--fork" in sys.argv[2:])
    with open(path, "wb") as f:
        if pipe:
            f.write(b"PERFILE2" + struct.pack("<Q", 16))
            for ident, stype, typ, config in ATTRS:
                f.write(rec(64, attr_bytes(stype, typ, config) + struct.pack("<Q", ident)))
            f.write(data)
        else:
            nattr = len(ATTRS)
            attrs_off = 104
            ids_off = attrs_off + nattr * 144
            data_off = ids_off + 8 * nattr
            hdr = b"PERFILE2" + struct.pack("<QQ", 104, 144)
            hdr += struct.pack("<QQQQQQ", attrs_off, nattr * 144, data_off, len(data), 0, 0)
            hdr += b"\0" * 32                     # no features
            f.write(hdr)
            for i, (ident, stype, typ, config) in enumerate(ATTRS):
                f.write(attr_bytes(stype, typ, config) + struct.pack("<QQ", ids_off + 8 * i, 8))
            for ident, _, _, _ in ATTRS:
                f.write(struct.pack("<Q", ident))
            f.write(data)
    print("\n".join(expect))


main()
