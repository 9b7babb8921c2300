#!/bin/bash
# -p on a process tree that exists before the recording starts: every
# process's pages once (parent, children, grandchild, and a process forked
# while recording); --no-children: the parent only; -p A,B and "A B".
. "$(dirname "$0")/lib.sh"

# start_tree NAME ARGS...: mttree -w in the background; sets $tree_pid
start_tree() {
	local name=$1
	shift
	"$WL/mttree" -w "$@" >"$TMP/$name.out" &
	tree_pid=$!
	wait_file "$TMP/$name.out" 10 || fail "mttree did not start"
	grep -q '^ready' "$TMP/$name.out" || { sleep 0.5; grep -q '^ready' "$TMP/$name.out"; } ||
		fail "mttree not ready"
}

# record_until_exit TRACE PIDS... -- RECORD_OPTS: records, sends go, waits
record_go() {
	local trace=$1 opts=$2
	shift 2
	# shellcheck disable=SC2086
	"$MT" record -e page-faults $opts -c 1 -o "$trace" 2>"$trace.err" &
	local rec=$!
	wait_file "$trace" 100 || fail "record did not start: $(cat "$trace.err")"
	for p in "$@"; do kill -USR1 "$p"; done
	timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end"
	wait $rec || fail "record failed: $(cat "$trace.err")"
	"$MT" dump "$trace" >"$trace.csv" || fail "dump failed"
}

# 1. the whole tree, with a process forked while recording
start_tree a -c 2 -g 1 -l -k 24
record_go "$TMP/a.mtrace" "-p $tree_pid" $tree_pid
grep -q "attached to 4 processes, 4 threads: mttree $tree_pid and 3 descendants" "$TMP/a.mtrace.err" ||
	fail "attach line: $(cat "$TMP/a.mtrace.err")"
$PY "$TOP/tests/integration/check_tree.py" "$TMP/a.mtrace.csv" "$TMP/a.out" >/dev/null || exit 1
[ "$(grep -c '^worker=' "$TMP/a.out")" = 5 ] || fail "mttree: $(cat "$TMP/a.out")"
"$MT" dump --meta "$TMP/a.mtrace" | grep -qx "target_pids=$tree_pid" || fail "no target_pids key"
# every process attached got a maps snapshot at the start
for p in $(sed -n 's/.*kind=\(parent\|child\|grandchild\) pid=\([0-9]*\).*/\2/p' "$TMP/a.out"); do
	"$MT" dump --meta "$TMP/a.mtrace" | grep -q "^# maps .*pid=$p\$" ||
		fail "no maps snapshot of pid $p"
done

# 2. --no-children: the parent's threads only
start_tree b -c 2 -g 1 -l -k 24
record_go "$TMP/b.mtrace" "-p $tree_pid --no-children" $tree_pid
grep -q "attached to 1 process, 1 thread: mttree $tree_pid (--no-children" "$TMP/b.mtrace.err" ||
	fail "attach line: $(cat "$TMP/b.mtrace.err")"
$PY "$TOP/tests/integration/check_tree.py" "$TMP/b.mtrace.csv" "$TMP/b.out" \
	--absent child,grandchild,late --pids "$tree_pid" >/dev/null || exit 1

# 3. two unrelated processes: -p A,B, and -p $(pidof ...) unquoted: -p A B
for form in comma space; do
	start_tree c1 -c 0 -g 0 -k 16
	p1=$tree_pid
	start_tree c2 -c 0 -g 0 -k 16
	p2=$tree_pid
	[ $form = comma ] && list="$p1,$p2" || list="$p1 $p2"
	rm -f "$TMP/c.mtrace"
	# shellcheck disable=SC2086
	"$MT" record -e page-faults -p $list -c 1 -o "$TMP/c.mtrace" 2>"$TMP/c.err" &
	rec=$!
	wait_file "$TMP/c.mtrace" 100 || fail "record did not start: $(cat "$TMP/c.err")"
	kill -USR1 $p1 $p2
	timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end"
	wait $rec || fail "record failed: $(cat "$TMP/c.err")"
	grep -q "attached to 2 processes, 2 threads: mttree $p1, mttree $p2 and 0 descendants" "$TMP/c.err" ||
		fail "attach line: $(cat "$TMP/c.err")"
	"$MT" dump "$TMP/c.mtrace" >"$TMP/c.csv" || fail "dump failed"
	$PY "$TOP/tests/integration/check_tree.py" "$TMP/c.csv" "$TMP/c1.out" "$TMP/c2.out" \
		--pids "$p1,$p2" >/dev/null || exit 1
done

# 4. attaching while the target forks: children forked during the attach
# passes inherit the events and may be attached as well; no page may be
# counted twice, and every child forked after the attach is complete
"$WL/mttree" -c 0 -g 0 -s 1200 -k 16 >"$TMP/s.out" &
storm=$!
sleep 0.3
"$MT" record -e page-faults -p $storm -c 1 -o "$TMP/s.mtrace" 2>"$TMP/s.err" || fail "record failed: $(cat "$TMP/s.err")"
"$MT" dump "$TMP/s.mtrace" >"$TMP/s.csv" || fail "dump failed"
$PY - "$TMP/s.csv" "$TMP/s.out" <<'PY' || exit 1
import csv, re, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
ws = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[2]) if l.startswith("worker=")]
assert len(ws) == 1201, len(ws)
by_pid = defaultdict(list)
for r in rows:
    by_pid[int(r["pid"])].append(int(r["addr"], 16))
full = []
for w in ws:
    base, pages = int(w["base"], 16), int(w["pages"])
    pg = [(a - base) // 4096 for a in by_pid[int(w["pid"])] if base <= a < base + pages * 4096]
    assert len(pg) - len(set(pg)) <= 2, f"{w['worker']}: pages {sorted(pg)} (counted twice?)"
    full.append(sorted(set(pg)) == list(range(pages)))
# the last 200 children were forked long after the attach
assert all(full[-200:]), [w["worker"] for w, f in zip(ws[-200:], full[-200:]) if not f]
PY
exit 0
