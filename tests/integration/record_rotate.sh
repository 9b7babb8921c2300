#!/bin/bash
# record --switch-output / --max-files (docs/memtracectl.md, "Long
# recordings"): pageramp, attached with -p at period 1, faults exactly
# PAGES/2 pages per cycle (record_pageramp.sh).  Recorded into 1 s files over
# about 6 s: every file stands on its own (report and dump read it, END
# samples = its rows, the code resolves to pageramp's touch_pages: its own
# name and maps), the files follow each other (part 1..K, each starts where
# the one before ended) and together hold each fault once: every even page
# CYCLES times, no row in two files.  Then --switch-output signal with
# --max-files 2: each SIGHUP one more file, the oldest of this recording's
# beyond 2 removed, files it did not make left alone.  Bad values: one line.
. "$(dirname "$0")/lib.sh"
PAGES=1024 CYCLES=20

"$WL/pageramp" -n $PAGES -c $CYCLES -g 250 -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 10 || fail "pageramp did not start"
"$MT" record -p $wl -e page-faults -c 1 --switch-output 1s -o "$TMP/t.mtrace" 2>"$TMP/rec.err" &
rec=$!
for _ in $(seq 100); do ls "$TMP"/t.mtrace.* >/dev/null 2>&1 && break; sleep 0.05; done
wait_file "$(ls "$TMP"/t.mtrace.* | head -1)" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
[ ! -e "$TMP/t.mtrace" ] || fail "--switch-output wrote the base name t.mtrace itself"
n=0
for f in "$TMP"/t.mtrace.*; do
	n=$((n + 1))
	"$MT" dump "$f" >"$TMP/d$n.csv" 2>"$TMP/dump.err" || fail "dump $f: $(cat "$TMP/dump.err")"
	"$MT" dump --meta "$f" >"$TMP/m$n.txt" || fail "dump --meta $f failed"
	"$MT" report "$f" --json >"$TMP/r$n.json" 2>"$TMP/rep.err" || fail "report $f: $(cat "$TMP/rep.err")"
done
[ $n -ge 4 ] || fail "$n files from a ~6 s recording with --switch-output 1s (want >= 4)"
$PY - "$TMP" $n "$TMP/wl.out" $PAGES $CYCLES "$TMP/rec.err" <<'PY' || exit 1
import collections, csv, json, re, sys
tmp, n, wl, pages, cycles, rec = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
w = dict(kv.split("=") for kv in open(wl).read().split())
base, psize = int(w["base"], 16), int(w["page_size"])
seen = collections.Counter()
rows_all = set()
total = 0
prev_end = None
for k in range(1, n + 1):
    meta = dict(l.split("=", 1) for l in open(f"{tmp}/m{k}.txt").read().splitlines() if "=" in l)
    rows = list(csv.DictReader(open(f"{tmp}/d{k}.csv")))
    rep = json.load(open(f"{tmp}/r{k}.json"))
    assert meta["part"] == str(k), (k, meta["part"])
    want_reason = "target-exited" if k == n else "switch-output"
    assert rep["complete"] and meta["end_reason"] == want_reason, (k, meta["end_reason"])
    assert int(meta["samples"]) == len(rows) == rep["samples"], (k, meta["samples"], len(rows), rep["samples"])
    if prev_end is not None:
        assert meta["start_time"] == prev_end, (k, "starts at", meta["start_time"], "previous ended", prev_end)
    prev_end = meta["end_time"]
    for r in rows:
        key = (r["time"], r["tid"], r["addr"])
        assert key not in rows_all, ("row in two files", key)
        rows_all.add(key)
        seen[(int(r["addr"], 16) - base) // psize] += 1
    total += len(rows)
    if rows:	# its own maps and name: the code resolves in every file
        code = rep["hot_code"][0]
        assert code["location"].startswith("pageramp+0x"), (k, code["location"])
        assert code["functions"] == [{"name": "touch_pages", "count": len(rows)}], (k, code)
want = {p: cycles for p in range(0, pages, 2)}
assert total == pages // 2 * cycles, f"{total} samples in {n} files, pageramp faulted {pages // 2 * cycles}"
assert dict(seen) == want, "pages faulted other than every even page CYCLES times"
m = re.search(r"wrote (\d+) samples to (\d+) files", open(rec).read())
assert m and int(m.group(1)) == total and int(m.group(2)) == n, open(rec).read()
PY

# SIGHUP: one more file each; --max-files 2 removes this recording's oldest only
touch "$TMP/h.mtrace" "$TMP/h.mtrace.20000101-000000.000"
"$WL/pageramp" -n $PAGES -c 1000 -g 250 -w >"$TMP/wl2.out" &
wl=$!
wait_file "$TMP/wl2.out" 10 || fail "pageramp did not start"
"$MT" record -p $wl -e page-faults -c 1 --switch-output signal --max-files 2 -o "$TMP/h.mtrace" \
	2>"$TMP/rec2.err" &
rec=$!
ours() { ls "$TMP"/h.mtrace.2026* "$TMP"/h.mtrace.20[3-9]* 2>/dev/null | grep -v '\.old$'; }
files_are() {	# files_are N: this recording's files on disk become N within 5 s
	for _ in $(seq 100); do [ "$(ours | wc -l)" = "$1" ] && return 0; sleep 0.05; done
	return 1
}
files_are 1 || fail "record --switch-output signal did not start: $(cat "$TMP/rec2.err")"
kill -USR1 $wl
sleep 0.5
kill -HUP $rec
files_are 2 || fail "SIGHUP made no second file: $(ours)"
first=$(ours | head -1)
sleep 0.5
kill -HUP $rec
for _ in $(seq 100); do [ -e "$first" ] || break; sleep 0.05; done
[ ! -e "$first" ] || fail "--max-files 2: the first file is still there after the third began"
files_are 2 || fail "--max-files 2: $(ours | wc -l) files"
kill -INT $rec
wait $rec || fail "record failed: $(cat "$TMP/rec2.err")"
kill $wl
[ -e "$TMP/h.mtrace" ] && [ -e "$TMP/h.mtrace.20000101-000000.000" ] || fail "--max-files removed a file this recording did not make"
parts=$(for f in $(ours); do "$MT" dump --meta "$f" | sed -n 's/^part=//p'; done | tr '\n' ' ')
[ "$parts" = "2 3 " ] || fail "files left: parts '$parts', want '2 3 '"
for f in $(ours); do
	"$MT" report "$f" >/dev/null 2>&1 || fail "report $f failed"
done

# bad values: one line, non-zero
expect_error "ambiguous --switch-output '10m'" "$MT" record --switch-output 10m -- true
expect_error "invalid --switch-output '100'" "$MT" record --switch-output 100 -- true
expect_error "invalid --switch-output '1ms'" "$MT" record --switch-output 1ms -- true
expect_error "invalid --max-files '0'" "$MT" record --switch-output 1s --max-files 0 -- true
expect_error "--max-files needs --switch-output" "$MT" record --max-files 2 -- true
expect_error "not stdout" "$MT" record --switch-output 1s -o - -- true
exit 0
