#!/bin/bash
# -p covers threads that exist at attach time, threads created later and a
# forked child: every page each worker touches appears with its tid.
. "$(dirname "$0")/lib.sh"
"$WL/mtfork" -b 3 -a 3 -k 40 -f -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 5 || fail "mtfork did not start"
"$MT" record -e page-faults -p $wl -c 1 -o "$TMP/t.mtrace" 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/t.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" dump "$TMP/t.mtrace" >"$TMP/dump.csv" || fail "dump failed"
$PY - "$TMP/dump.csv" "$TMP/wl.out" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
workers = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[2]) if l.startswith("worker=")]
assert len(workers) == 7, f"{len(workers)} workers reported"
kinds = sorted(w["kind"] for w in workers)
assert kinds == ["child"] + ["thread"] * 6, kinds
# Match samples by process and thread: the child is a copy of the parent's
# address space (its region may lie where a thread's lies in the parent),
# and a region may reuse addresses another thread touched before (a freed
# thread stack).  What must hold: each worker's own thread faulted every
# page of its region.
for w in workers:
    base, pages, pid, tid = int(w["base"], 16), int(w["pages"]), int(w["pid"]), int(w["tid"])
    if w["kind"] == "child":
        assert tid == pid, f"child: tid {tid} != pid {pid}"
    got = [r for r in rows if int(r["pid"]) == pid and int(r["tid"]) == tid and
           base <= int(r["addr"], 16) < base + pages * 4096]
    pg = sorted((int(r["addr"], 16) - base) // 4096 for r in got)
    # A fault can be taken twice when another thread changes the address
    # space at that moment (the kernel retries it and the page-fault event
    # counts both entries): allow a few repeats.
    assert sorted(set(pg)) == list(range(pages)), f"worker {w['worker']} ({w['kind']}): pages {pg}"
    assert len(pg) - pages <= 2, f"worker {w['worker']}: {len(pg) - pages} repeated faults"
PY
