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
# the command's maps are its own from its first sample on: one snapshot
# stamped at the start, taken after its exec (never the collector's own
# maps from before the exec), so its first faults already resolve.  (The
# collector polls for the new image's maps: a command that is over within
# a millisecond or two of its exec may be gone first; this one sleeps.)
"$MT" record -e page-faults -c 1 -o "$TMP/m.mtrace" -- "$WL/pageramp" -n 256 -c 2 -g 300 >/dev/null 2>&1 ||
	fail "record of pageramp failed"
"$MT" dump --meta "$TMP/m.mtrace" >"$TMP/m.meta"
start=$(sed -n 's/^start_time=//p' "$TMP/m.meta")
first=$(grep -m1 '^# maps' "$TMP/m.meta")
[ "$first" = "# maps time=$start pid=$(sed -n 's/^target_pid=//p' "$TMP/m.meta")" ] ||
	fail "first maps snapshot '$first', want the target's at start_time=$start"
grep -q 'build/memtracectl$' "$TMP/m.meta" && fail "a maps snapshot of the command shows the collector's binary"
grep -q 'workloads/pageramp$' "$TMP/m.meta" || fail "no maps snapshot names pageramp"
"$MT" report "$TMP/m.mtrace" --json -n 3 >"$TMP/m.json" || fail "report failed"
$PY - "$TMP/m.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
# every faulting instruction of the command resolves to one of its functions
names = [f["name"] for h in r["hot_code"] for f in h["functions"]]
assert names and "?" not in names, names
PY
# children over within a millisecond of their exec, gone before /proc/PID/maps
# can be read: their maps come from the side-band records (source/side_maps.c),
# so every process with samples has a MAPS chunk naming its program
"$MT" record -e page-faults -c 1 -o "$TMP/k.mtrace" -- /bin/sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done' \
	>/dev/null 2>&1 || fail "record of a loop of /bin/true failed"
"$MT" dump "$TMP/k.mtrace" >"$TMP/k.csv" && "$MT" dump --meta "$TMP/k.mtrace" >"$TMP/k.meta" ||
	fail "dump of the /bin/true loop failed"
$PY - "$TMP/k.csv" "$TMP/k.meta" <<'PY' || exit 1
import csv, re, sys
pids = {int(r["pid"]) for r in csv.DictReader(open(sys.argv[1]))}
meta = open(sys.argv[2]).read()
# "# maps time=T pid=P" then the maps text, up to the next "# " line
named = set()
for m in re.finditer(r"^# maps time=\d+ pid=(\d+)\n((?:(?!# ).*\n)*)", meta, re.M):
    if re.search(r"/(true|dash)$", m.group(2), re.M):
        named.add(int(m.group(1)))
assert len(pids) >= 21, f"samples of {len(pids)} processes, want the shell and 20 children"
missing = sorted(pids - named)
assert not missing, f"{len(missing)} of {len(pids)} processes with samples have no maps naming their program: {missing[:5]}"
PY
# the same when each child exec's and maps on CPU 1 and exits on CPU 0: its
# EXIT is in CPU 0's ring, read before CPU 1's FORK, COMM and MMAPs (the
# records are applied in time order, not ring by ring)
if [ "$(nproc)" -ge 2 ]; then
	"$MT" record -e page-faults -c 1 -o "$TMP/x.mtrace" -- taskset -c 1 /bin/sh -c \
		'for i in 1 2 3 4 5 6; do '"$PY"' -S -c "import os; os.sched_setaffinity(0, {0})"; done' \
		>/dev/null 2>&1 || fail "record of a loop of migrating python3 failed"
	"$MT" dump "$TMP/x.mtrace" >"$TMP/x.csv" && "$MT" dump --meta "$TMP/x.mtrace" >"$TMP/x.meta" ||
		fail "dump of the migrating loop failed"
	$PY - "$TMP/x.csv" "$TMP/x.meta" <<'PY' || exit 1
import csv, re, sys
pids = {int(r["pid"]) for r in csv.DictReader(open(sys.argv[1]))}
meta = open(sys.argv[2]).read()
named = set()
for m in re.finditer(r"^# maps time=\d+ pid=(\d+)\n((?:(?!# ).*\n)*)", meta, re.M):
    if re.search(r"/(python3[.0-9]*|dash)$", m.group(2), re.M):
        named.add(int(m.group(1)))
assert len(pids) >= 7, f"samples of {len(pids)} processes, want the shell and 6 children"
missing = sorted(pids - named)
assert not missing, f"migrating children: {len(missing)} of {len(pids)} processes with samples have no maps naming their program: {missing[:5]}"
PY
fi
exit 0
