"""Each of the first six 10 s windows of a 60 s recording (report --window
10s --series) within 20 % of WANT pages, or flagged blind (blind=1); prints
one line of what was seen.  Usage: check_hint_windows.py SERIES.csv WANT"""
import csv
import sys

want = int(sys.argv[2])
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
full = rows[:6]    # whole 10 s windows (a 7th holds the last few ms)
assert len(full) == 6, f"{len(rows)} windows of 10 s in 60 s"
assert all(r["blind"] in ("0", "1") for r in full), "windows neither seen nor flagged blind"
seen = [int(r["wss_data"]) for r in full if r["blind"] == "0"]
bad = [w for w in seen if not 0.8 * want <= w <= 1.2 * want]
assert not bad, f"seen windows {seen} pages, want each within 20 % of {want}"
print("10 s windows: %d of 6 seen%s; flagged blind: %s pages" % (
    len(seen), " (%d..%d pages)" % (min(seen), max(seen)) if seen else "",
    " ".join(r["wss_data"] for r in full if r["blind"] == "1") or "none"))
