"""check_windows.py TOP TRACE: the WINDOWS rows the recorder wrote (its live
WSS, window = interval = 100 ms, 4 KiB pages) equal report's series
recomputed from the samples with the same window, interval and bucket.
Prints the number of rows compared."""
import sys

sys.path.insert(0, sys.argv[1] + "/user/analyze")
from memtrace_analyze.lib import Trace, report  # noqa: E402

rows = Trace(sys.argv[2]).windows()
assert rows, "no WINDOWS rows"
window, interval, shift = rows[0][:3]
assert all(r[:3] == (window, interval, shift) for r in rows), "mixed WINDOWS settings"
r = report(sys.argv[2], bucket=1 << shift, window=window, interval=interval)
start = r["start_time"]
data = dict(zip((int(t) for t in r["data"]["time"]), (int(v) for v in r["data"]["wss"])))
code = dict(zip((int(t) for t in r["code"]["time"]), (int(v) for v in r["code"]["wss"])))
bad = 0
for _, _, _, t, wd, wc in rows:
    key = t - start
    want = (data.get(key, 0), code.get(key, 0))
    if (wd, wc) != want:
        if not bad:
            print(f"row at {key} ns: live {wd}/{wc}, report {want[0]}/{want[1]}", file=sys.stderr)
        bad += 1
assert not bad, f"{bad} of {len(rows)} WINDOWS rows differ from report"
assert len(rows) >= r["data"]["n"] - 1, (len(rows), r["data"]["n"])
print(len(rows))
