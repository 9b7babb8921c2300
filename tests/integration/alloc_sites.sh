#!/bin/bash
# record --allocs: the allocsites workload (two arrays, a scratch buffer that
# reuses the freed matrix's address, a hash table from calloc + malloc grown
# by realloc, an mmap'd table) recorded with -p at page faults, period 1,
# every block recorded (--alloc-rate 1).  Every fault the workload makes in
# a block must be charged to exactly that block's site: per-site counts equal
# what the workload computed (a retried fault may count twice: <= 2 more).
# Runs with $MEMTRACE_BACKEND (perf in 20-record's sense; 25-bpf runs it for
# both).
. "$(dirname "$0")/lib.sh"
"$WL/allocsites" -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 5 || fail "allocsites did not start"
"$MT" record -p $wl -e page-faults -c 1 --allocs --alloc-rate 1 -o "$TMP/t.mtrace" 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/t.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
grep -q -- '--allocs: .* 0 lost' "$TMP/rec.err" || fail "allocation events lost: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/t.mtrace" --by-site --json >"$TMP/s.json" || fail "report --by-site failed"
"$MT" report "$TMP/t.mtrace" --by-site >"$TMP/s.txt" || fail "report --by-site (text) failed"
$PY "$TOP/tests/integration/check_alloc_sites.py" "$TMP/s.json" "$TMP/wl.out" "$TMP/s.txt" >"$TMP/check.out" ||
	fail "$(cat "$TMP/check.out")"
# --alloc-symbols: make_matrix as an allocator of its own; the malloc nested
# in it is not recorded again, and the matrix's site is its caller, main
"$WL/allocsites" -w >"$TMP/wl2.out" &
wl=$!
wait_file "$TMP/wl2.out" 5 || fail "allocsites did not start"
"$MT" record -p $wl -e page-faults -c 1 --allocs --alloc-rate 1 --alloc-symbols make_matrix=malloc \
	-o "$TMP/m.mtrace" 2>"$TMP/rec2.err" &
rec=$!
wait_file "$TMP/m.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec2.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record --alloc-symbols failed: $(cat "$TMP/rec2.err")"
"$MT" report "$TMP/m.mtrace" --by-site --json >"$TMP/m.json" || fail "report --by-site failed"
$PY - "$TMP/m.json" "$TMP/wl2.out" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
want = int([l.split()[2] for l in open(sys.argv[2]) if l.startswith("expect make_matrix ")][0])
fns = [s["function"] for s in r["sites"]]
assert "make_matrix" not in fns, fns
main = [s for s in r["sites"] if s["function"] == "main"]
assert len(main) == 1 and want <= main[0]["samples"] <= want + 2 and main[0]["blocks"] == 1, main
PY
# bad input: one line each, nothing recorded
expect_error "--allocs needs -p PID, -G CGROUP or a command" "$MT" record -a --allocs -d 1 -o "$TMP/x.mtrace"
expect_error "invalid --alloc-rate '0'" "$MT" record --allocs --alloc-rate 0 -o "$TMP/x.mtrace" -- true
expect_error "is not NAME=ROLE" "$MT" record --allocs --alloc-symbols my_alloc=grow -o "$TMP/x.mtrace" -- true
expect_error "--backend valgrind records every allocation without it" "$MT" record -b valgrind --allocs -o "$TMP/x.mtrace" -- true
[ ! -e "$TMP/x.mtrace" ] || fail "a refused recording left a file"
"$MT" record -e page-faults -o "$TMP/plain.mtrace" -- "$WL/allocsites" >/dev/null 2>&1 || fail "plain record failed"
expect_error "has no allocation records (record it with --allocs)" "$MT" report "$TMP/plain.mtrace" --by-site
