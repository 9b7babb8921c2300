#!/bin/bash
# record --allocs through each kind of target, $MEMTRACE_BACKEND recording
# the accesses (25-bpf runs it with bpf and perf; the probes are BPF either
# way):
#   -- CMD                 allocmix (static: its own malloc), every block
#                          (--alloc-rate 1), and byte-sampled (--alloc-rate 4096)
#   -- sh -c 'a; a'        allocmix-dyn twice: children exec'd by the command
#   -p PID                 allocmix -w, another allocmix outside running too
#   -G CGROUP              allocmix -w moved into a group this test makes,
#                          another outside it
#   python3                -- CMD, -p and -G: 40 bytearrays of 200000 bytes
#                          kept live to the end
# allocmix prints what it allocated per site; check_alloc_mix.py compares
# report --by-site with it (large blocks exactly, sampled ones within the
# binomial's spread).  Any backend or probe that cannot load fails here.
. "$(dirname "$0")/lib.sh"
CHECK="$TOP/tests/integration/check_alloc_mix.py"
B=${MEMTRACE_BACKEND:-auto}

# recorded NAME: report --by-site --json of $TMP/NAME.mtrace, no event lost
recorded() {
	grep -q -- '--allocs: [1-9][0-9]* events recorded of [1-9][0-9]* allocator calls, 0 lost' "$TMP/$1.err" ||
		fail "$1: allocation events missing or lost: $(cat "$TMP/$1.err")"
	"$MT" report "$TMP/$1.mtrace" --by-site --json >"$TMP/$1.json" 2>"$TMP/$1.rep" ||
		fail "$1: report --by-site failed: $(cat "$TMP/$1.rep")"
}

# mix NAME OUT...: the allocmix runs' sites in NAME's trace
mix() {
	local name=$1 res
	shift
	recorded "$name"
	res=$($PY "$CHECK" "$TMP/$name.json" "$@") || fail "$name ($B): $res"
	echo "$name ($B): $res"
}

# started OUT: the pid a -w workload printed once ready (5 s)
started() {
	for _ in $(seq 100); do
		grep -q '^pid ' "$1" 2>/dev/null && break
		sleep 0.05
	done
	sed -n 's/^pid //p' "$1" | head -1
}

# -- CMD: every block, then sampled (4x the small calls: a biased sampler shows)
"$MT" record -e page-faults --allocs --alloc-rate 1 -o "$TMP/cmd.mtrace" -- "$WL/allocmix" \
	>"$TMP/cmd.out" 2>"$TMP/cmd.err" || fail "record -- allocmix failed: $(cat "$TMP/cmd.err")"
mix cmd "$TMP/cmd.out"
"$MT" record -e page-faults --allocs --alloc-rate 4096 -o "$TMP/cmds.mtrace" -- "$WL/allocmix" -n 4 \
	>"$TMP/cmds.out" 2>"$TMP/cmds.err" || fail "record -- allocmix -n 4 failed: $(cat "$TMP/cmds.err")"
mix cmds "$TMP/cmds.out"

# -- sh -c: the allocations of two children exec'd one after the other
"$MT" record -e page-faults --allocs --alloc-rate 1 -o "$TMP/sh.mtrace" -- \
	/bin/sh -c "'$WL/allocmix-dyn' >'$TMP/sh1.out'; '$WL/allocmix-dyn' >'$TMP/sh2.out'" \
	2>"$TMP/sh.err" || fail "record -- sh -c failed: $(cat "$TMP/sh.err")"
mix sh "$TMP/sh1.out" "$TMP/sh2.out"

# -p: the target's allocations, not those of another allocmix running beside it
"$WL/allocmix" -w >"$TMP/p.out" &
wl=$!
pid=$(started "$TMP/p.out")
[ "$pid" = "$wl" ] || fail "allocmix -w did not start: $(cat "$TMP/p.out")"
"$MT" record -p $wl -e page-faults --allocs --alloc-rate 1 -o "$TMP/p.mtrace" 2>"$TMP/p.err" &
rec=$!
wait_file "$TMP/p.mtrace" 100 || fail "record -p did not start: $(cat "$TMP/p.err")"
"$WL/allocmix" >"$TMP/other.out"
kill -USR1 $wl
wait $wl || fail "allocmix -w failed"
timeout 60 tail --pid=$rec -f /dev/null || fail "record -p did not end when the target exited"
wait $rec || fail "record -p failed: $(cat "$TMP/p.err")"
mix p "$TMP/p.out"

# python3: its allocations through libc.so.6 (pymalloc takes blocks over 512
# bytes from malloc): 40 bytearrays of 200000 bytes (malloc(200001): >=
# alloc_large_bytes, all recorded), live at the end (os._exit)
cat >"$TMP/alloc.py" <<'PY'
import os, signal, sys
if len(sys.argv) > 1:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    print("pid", os.getpid(), flush=True)
    signal.sigwait({signal.SIGUSR1})
keep = [bytearray(200000) for _ in range(40)]
print("done", flush=True)
os._exit(0)
PY
# pyrun NAME: python3's sites in NAME's trace
pyrun() {
	local res
	recorded "$1"
	grep -qx done "$TMP/$1.out" || fail "$1: python3 did not finish: $(cat "$TMP/$1.out")"
	res=$($PY - "$TMP/$1.json" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
live = sum(s["live"] for s in r["sites"])
live_bytes = sum(s["live_bytes"] for s in r["sites"])
est = sum(s["est_blocks"] for s in r["sites"])
if r["alloc_large_bytes"] > 200001:
    sys.exit(f"alloc_large_bytes {r['alloc_large_bytes']}: the bytearrays would be sampled")
if live < 40 or live_bytes < 40 * 200001:
    sys.exit(f"{live} blocks of {live_bytes:.0f} bytes live at the end, want >= 40 of 200001")
if not (40 <= est < 1e7 and live_bytes < 1 << 30):
    sys.exit(f"implausible: {est:.0f} blocks, {live_bytes:.0f} bytes live")
print(f"{r['events']} events, {est:.0f} blocks (est), {live} live of {live_bytes / 1e6:.1f} MB")
PY
) || fail "$1 ($B): $res"
	echo "$1 ($B): $res"
}
"$MT" record -e page-faults --allocs -o "$TMP/py.mtrace" -- $PY "$TMP/alloc.py" >"$TMP/py.out" 2>"$TMP/py.err" ||
	fail "record -- python3 failed: $(cat "$TMP/py.err")"
pyrun py
$PY "$TMP/alloc.py" -w >"$TMP/pyp.out" &
wl=$!
[ "$(started "$TMP/pyp.out")" = "$wl" ] || fail "python3 -w did not start: $(cat "$TMP/pyp.out")"
"$MT" record -p $wl -e page-faults --allocs -o "$TMP/pyp.mtrace" 2>"$TMP/pyp.err" &
rec=$!
wait_file "$TMP/pyp.mtrace" 100 || fail "record -p python3 did not start: $(cat "$TMP/pyp.err")"
kill -USR1 $wl
wait $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record -p did not end when python3 exited"
wait $rec || fail "record -p python3 failed: $(cat "$TMP/pyp.err")"
pyrun pyp

# -G: a cgroup v2 group of this test's own (record_cgroup.sh)
mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
	/proc/self/mountinfo | head -1)
[ -n "$mnt" ] || skip cgroup2 "-G: no cgroup2 file system mounted (the other targets passed)"
name="memtrace-alloc-$$"
cg="$mnt/$name"
mkdir "$cg" || fail "cannot create cgroup $cg"
trap 'for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill -9 $p 2>/dev/null; done
      kill $(jobs -p) 2>/dev/null
      for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done; rm -rf "$TMP"' EXIT

# group NAME CMD...: CMD -w moved into the group, recorded with -G until it
# exits (SIGINT then), with CMD run outside the group meanwhile
group() {
	local n=$1 wl rec
	shift
	"$@" -w >"$TMP/$n.out" &
	wl=$!
	[ "$(started "$TMP/$n.out")" = "$wl" ] || fail "$n: $* -w did not start: $(cat "$TMP/$n.out")"
	echo $wl >"$cg/cgroup.procs" || fail "cannot move $wl into $cg"
	"$MT" record -G "$name" -e page-faults --allocs --alloc-rate 1 -o "$TMP/$n.mtrace" 2>"$TMP/$n.err" &
	rec=$!
	wait_file "$TMP/$n.mtrace" 100 || fail "record -G did not start: $(cat "$TMP/$n.err")"
	"$@" >"$TMP/$n-other.out" || fail "$n: $* outside the group failed"
	kill -USR1 $wl
	wait $wl
	kill -INT $rec
	wait $rec || fail "record -G failed: $(cat "$TMP/$n.err")"
}
group g "$WL/allocmix"
mix g "$TMP/g.out"
group pyg $PY "$TMP/alloc.py"
pyrun pyg
exit 0
