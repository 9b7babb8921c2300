#!/bin/bash
# --cgroup: a cgroup v2 group this test creates; a process tree moved into
# it before the recording and one that joins it during the recording are
# covered (every page of every process), nothing from outside the group.
. "$(dirname "$0")/lib.sh"

mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
	/proc/self/mountinfo | head -1)
[ -n "$mnt" ] || skip cgroup2 "no cgroup2 file system mounted"
name="memtrace-test-$$"
cg="$mnt/$name"
mkdir "$cg" || fail "cannot create cgroup $cg"
trap 'for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill -9 $p 2>/dev/null; done
      for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done; rm -rf "$TMP"' EXIT

# tree PID: PID and all its descendants
tree() {
	local p
	echo "$1"
	for p in $(ps -o pid= --ppid "$1"); do tree "$p"; done
}

# start NAME ARGS: mttree -w moved into the group once ready; sets $tp
start() {
	local name=$1
	shift
	"$WL/mttree" -w "$@" >"$TMP/$name.out" &
	tp=$!
	for _ in $(seq 100); do grep -q '^ready' "$TMP/$name.out" && break; sleep 0.05; done
	grep -q '^ready' "$TMP/$name.out" || fail "mttree not ready"
	for p in $(tree $tp); do echo "$p" >"$cg/cgroup.procs" || fail "cannot move $p into $cg"; done
}

start a -c 2 -g 1 -l -k 24
pa=$tp
"$MT" record -e page-faults -G "$name" -c 1 -d 4 -o "$TMP/g.mtrace" 2>"$TMP/g.err" &
rec=$!
wait_file "$TMP/g.mtrace" 100 || fail "record did not start: $(cat "$TMP/g.err")"
grep -q "recording cgroup $cg: 4 processes now" "$TMP/g.err" || fail "start line: $(cat "$TMP/g.err")"
# a tree that joins the group after the recording started
start b -c 1 -g 0 -k 24
pb=$tp
# and one outside it
"$WL/mttree" -w -c 0 -g 0 -k 24 >"$TMP/out.out" &
po=$!
for _ in $(seq 100); do grep -q '^ready' "$TMP/out.out" && break; sleep 0.05; done
kill -USR1 $pa $pb $po
wait $rec || fail "record failed: $(cat "$TMP/g.err")"
wait $pa $pb $po
"$MT" dump "$TMP/g.mtrace" >"$TMP/g.csv" || fail "dump failed"
pids=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$TMP/a.out" "$TMP/b.out" | paste -sd,)
$PY "$TOP/tests/integration/check_tree.py" "$TMP/g.csv" "$TMP/a.out" "$TMP/b.out" --pids "$pids" \
	>/dev/null || exit 1
[ "$(grep -c '^worker=' "$TMP/a.out" "$TMP/b.out" | paste -sd' ')" = "$TMP/a.out:5 $TMP/b.out:2" ] ||
	fail "workers: $(cat "$TMP/a.out" "$TMP/b.out")"
"$MT" dump --meta "$TMP/g.mtrace" | grep -qx "target_cgroup=$name" || fail "no target_cgroup key"

# errors: one line each
expect_error "no cgroup 'no/such/group'" "$MT" record -G no/such/group -o "$TMP/x.mtrace"
expect_error "exactly one target" "$MT" record -G "$name" -p $$ -o "$TMP/x.mtrace"
exit 0
