#!/bin/bash
# record -- CMD: starts the command, records it from exec on, ends with it.
. "$(dirname "$0")/lib.sh"
"$MT" record -c 1 -o "$TMP/t.mtrace" -- "$WL/pageramp" -n 64 -c 3 >"$TMP/wl.out" 2>"$TMP/rec.err" ||
	fail "record failed: $(cat "$TMP/rec.err")"
grep -q "recording page faults" "$TMP/rec.err" || fail "no word about the page-fault fallback"
"$MT" dump "$TMP/t.mtrace" >"$TMP/dump.csv" || fail "dump failed"
$PY - "$TMP/dump.csv" "$TMP/wl.out" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"base=(0x[0-9a-f]+) .* tid=(\d+)", open(sys.argv[2]).read())
base, tid = int(m.group(1), 16), int(m.group(2))
region = [(int(r["addr"], 16) - base) // 4096 for r in rows if base <= int(r["addr"], 16) < base + 64 * 4096]
assert region == list(range(0, 64, 2)) * 3, region
assert {int(r["tid"]) for r in rows} == {tid}, "samples of another thread"
PY
"$MT" dump --meta "$TMP/t.mtrace" | grep -q '^end_reason=target-exited' || fail "no target-exited end"
# a command that exits with an error still gives a complete trace, and
# record exits with the command's status
"$MT" record -c 1 -o "$TMP/f.mtrace" -- /bin/sh -c 'exit 3' 2>/dev/null
rc=$?; [ $rc = 3 ] || fail "record of a command that exits 3 exited $rc"
"$MT" report "$TMP/f.mtrace" >/dev/null 2>&1 || fail "trace of a failing command unreadable"
expect_error "cannot execute /nonexistent/program: No such file or directory" "$MT" record -o "$TMP/n.mtrace" -- /nonexistent/program
expect_error "cannot execute no-such-program-here: command not found" "$MT" record -o "$TMP/n.mtrace" -- no-such-program-here
[ ! -e "$TMP/n.mtrace" ] || fail "a failed record left a file behind"
