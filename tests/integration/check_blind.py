"""Checks report --series's blind column of a hint-faults recording against
the NUMA scan passes the test read itself (scan_seq_poll.py): a window that
holds a pass (150 ms away from both edges: memtracectl's 100 ms poll plus
slack) must say blind=0, a window with no pass within 150 ms of it must say
blind=1; windows near a pass's edge are not judged.
Usage: check_blind.py SERIES.csv PASSES.txt START_TIME WINDOW_NS"""
import csv
import sys

series, passes_file, start, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
MARGIN = 150_000_000
passes = [int(l) for l in open(passes_file) if l.strip()]
rows = list(csv.DictReader(open(series)))
if not rows:
    sys.exit("no rows in the series")
if "blind" not in rows[0]:
    sys.exit("no blind column")
ks = [int(r["time"]) // window for r in rows]
if ks != list(range(1, len(rows) + 1)):
    sys.exit("the series does not hold every window as a row (blind ones included): %s" % ks[:20])
seen_ok = blind_ok = unjudged = 0
for r in rows:
    end = start + int(r["time"])
    lo = end - window
    b = r["blind"]
    if b not in ("0", "1"):
        sys.exit("blind is %r at %s, not 0 or 1" % (b, r["time"]))
    inside = [q for q in passes if lo + MARGIN < q <= end - MARGIN]
    near = [q for q in passes if lo - MARGIN < q <= end + MARGIN]
    if inside:
        if b != "0":
            sys.exit("window ending %.3f s holds a NUMA scan pass at %.3f s but says blind=1"
                     % ((end - start) / 1e9, (inside[0] - start) / 1e9))
        seen_ok += 1
    elif not near:
        if b != "1":
            sys.exit("window ending %.3f s has no NUMA scan pass within 150 ms but says blind=0 "
                     "(passes at %s)" % ((end - start) / 1e9, [(q - start) / 1e9 for q in passes]))
        blind_ok += 1
    else:
        unjudged += 1
print("windows: %d; seen and said so: %d; blind and said so: %d; near a pass, not judged: %d; "
      "passes read from /proc: %d" % (len(rows), seen_ok, blind_ok, unjudged, len(passes)))
if not passes:
    sys.exit("the kernel made no NUMA scan pass of the target: nothing to check against")
if not blind_ok:
    sys.exit("no blind window to check")
if seen_ok + unjudged < 1:
    sys.exit("no window with a pass")
