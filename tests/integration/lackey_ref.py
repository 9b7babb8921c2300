#!/usr/bin/python3
"""lackey_ref.py - independent reference WSS from a valgrind lackey log.

Reads `valgrind --tool=lackey --trace-mem=yes` output itself (no memtrace
code) and computes the working-set series the way the valgrind-ws paper
(seeds/000) and docs/trace-format.md define it:

  time of an access = number of "I" lines seen so far (first = 1)
  ip of an access   = address of the last "I" line
  WS(t_k, tau)      = distinct buckets (addr // bucket) among data accesses
                      with time in (t_k - tau, t_k],  t_k = k*T,
                      k = 1 .. ceil(last_time / T), origin 0
  wss_code          = the same over the accesses' ip values (ip != 0)

Only every PERIOD-th data access is kept (L, S, M count one each), as
`memtracectl import -c PERIOD` does with a fixed period.

  lackey_ref.py LOG --window TAU --interval T [--bucket B] [--period N]
                [--range LO:HI] [--csv OUT] [--compare REPORT.csv]
                [--max-data]

--compare exits 1 and prints the first differing row when REPORT.csv
(columns time,wss_data,wss_code) differs; --max-data prints the largest
wss_data; --range keeps only data addresses in [LO, HI) (hex or decimal).
"""
import argparse
import csv
import sys


def parse_log(path, period):
    """(time, addr, ip) of every kept data access, in log order."""
    out = []
    insns = 0
    ip = 0
    n = 0
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # a cut last line is ignored
            line = raw.decode("ascii", "replace").rstrip("\n")
            if line.startswith("I  "):
                insns += 1
                ip = int(line[3:].split(",")[0], 16)
            elif len(line) > 3 and line[0] == " " and line[1] in "LSM" and line[2] == " ":
                n += 1
                if n % period == 0:
                    out.append((insns, int(line[3:].split(",")[0], 16), ip))
    return out


def series(acc, window, interval, bucket, lo=None, hi=None):
    """Rows (t_k, wss_data, wss_code) by a sliding window of counts."""
    if not acc:
        return []
    last = acc[-1][0]
    kmax = -(-last // interval)
    rows = []
    data, code = {}, {}
    head = tail = 0  # acc[tail:head] are inside the window

    def add(d, key, delta):
        v = d.get(key, 0) + delta
        if v:
            d[key] = v
        else:
            del d[key]

    def keep(addr):
        return lo is None or lo <= addr < hi

    for k in range(1, kmax + 1):
        t = k * interval
        while head < len(acc) and acc[head][0] <= t:
            _, a, ip = acc[head]
            if keep(a):
                add(data, a // bucket, 1)
            if ip:
                add(code, ip // bucket, 1)
            head += 1
        while tail < head and acc[tail][0] <= t - window:
            _, a, ip = acc[tail]
            if keep(a):
                add(data, a // bucket, -1)
            if ip:
                add(code, ip // bucket, -1)
            tail += 1
        rows.append((t, len(data), len(code)))
    return rows


def read_report(path):
    rows = []
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        if head[:3] != ["time", "wss_data", "wss_code"]:
            raise SystemExit("lackey_ref: %s: header %r, expected time,wss_data,wss_code"
                             % (path, head))
        for rec in r:
            if rec:
                rows.append(tuple(int(x) for x in rec[:3]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--window", type=int, required=True)
    ap.add_argument("--interval", type=int, required=True)
    ap.add_argument("--bucket", type=int, default=4096)
    ap.add_argument("--period", type=int, default=1)
    ap.add_argument("--range")
    ap.add_argument("--csv")
    ap.add_argument("--compare")
    ap.add_argument("--max-data", action="store_true")
    a = ap.parse_args()
    lo = hi = None
    if a.range:
        l, h = a.range.split(":")
        lo, hi = int(l, 0), int(h, 0)
    acc = parse_log(a.log, a.period)
    rows = series(acc, a.window, a.interval, a.bucket, lo, hi)
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("time,wss_data,wss_code\n")
            for r in rows:
                f.write("%d,%d,%d\n" % r)
    if a.max_data:
        print(max((r[1] for r in rows), default=0))
    if a.compare:
        got = read_report(a.compare)
        # report --series is sparse: a row per interval whose window holds a
        # sample (docs/memtracectl.md), so the reference's all-zero rows are
        # the intervals it leaves out
        rows = [r for r in rows if r[1] or r[2]]
        if len(got) != len(rows):
            print("rows: report %d, reference %d" % (len(got), len(rows)))
        for i, (g, w) in enumerate(zip(got, rows)):
            if g != w:
                print("row %d: report %s, reference %s" % (i + 1, g, w))
                return 1
        if len(got) != len(rows):
            return 1
        print("%d rows equal (%d accesses)" % (len(rows), len(acc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
