#!/bin/bash
# bpf backend: page faults through tp_btf/page_fault_user (on_fault) and the
# tgid bitmap.  The source in the header (bpf_attach): tp_btf for
# -e page-faults, perf_event with --kernel and with MEMTRACE_BPF_FAULTS=perf;
# -c 16 on a process pinned to one CPU: exactly every 16th of its faults
# (its region's 2048 faults in a row: 128 samples, 32 pages apart); tgids
# beyond the bitmap (MEMTRACE_BPF_PID_BITS, as after a raised pid_max) are
# recorded through the hash: a tree with a process forked while recording,
# and a command from its exec on.
. "$(dirname "$0")/lib.sh"
export MEMTRACE_BACKEND=bpf
unset MEMTRACE_BPF_FAULTS MEMTRACE_BPF_PID_BITS

attach_of() { "$MT" dump --meta "$1" | sed -n 's/^bpf_attach=//p'; }

# ramp TRACE PAGES RECORD_OPTS...: pageramp -n PAGES -c 1 on CPU 0, through -p
ramp() {
	local trace=$1 pages=$2
	shift 2
	taskset -c 0 "$WL/pageramp" -n "$pages" -c 1 -w >"$trace.out" &
	local wl=$!
	wait_file "$trace.out" 10 || fail "pageramp did not start"
	"$MT" record --backend bpf -p $wl -e page-faults "$@" -o "$trace" 2>"$trace.err" &
	local rec=$!
	wait_file "$trace" 100 || fail "record did not start: $(cat "$trace.err")"
	kill -USR1 $wl
	timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end"
	wait $rec || fail "record failed: $(cat "$trace.err")"
	"$MT" dump "$trace" >"$trace.csv" || fail "dump failed"
}

# 1. -c 1 through tp_btf: every even page once, in order
ramp "$TMP/a.mtrace" 4096 -c 1
[ "$(attach_of "$TMP/a.mtrace")" = tp_btf/page_fault_user ] ||
	fail "page-faults not through tp_btf: bpf_attach=$(attach_of "$TMP/a.mtrace")"
# 2. -c 16: the target's every 16th fault
ramp "$TMP/b.mtrace" 4096 -c 16
for t in a b; do
	$PY - "$TMP/$t.mtrace.csv" "$TMP/$t.mtrace.out" $t <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"base=(0x[0-9a-f]+) .* tid=(\d+)", open(sys.argv[2]).read())
base, tid = int(m.group(1), 16), int(m.group(2))
pg = [(int(r["addr"], 16) - base) // 4096 for r in rows if base <= int(r["addr"], 16) < base + 4096 * 4096]
assert {int(r["tid"]) for r in rows} == {tid}, "samples of another thread"
assert all(int(r["ip"], 16) and int(r["ip"], 16) < 1 << 47 for r in rows), "an ip not in user space"
if sys.argv[3] == "a":
    assert pg == list(range(0, 4096, 2)), pg[:20]
else:
    assert len(pg) == 128, f"-c 16: {len(pg)} samples in the region, want 128"
    assert all(b - a == 32 for a, b in zip(pg, pg[1:])), f"-c 16: pages {pg[:8]}... not 32 apart"
PY
done
"$MT" dump --meta "$TMP/b.mtrace" | grep -qx 'sample_period=16' || fail "no sample_period=16"

# 3. the perf event where asked for, and with --kernel (kernel-mode faults
# on user addresses: the tracepoint sees user-mode faults only)
MEMTRACE_BPF_FAULTS=perf ramp "$TMP/c.mtrace" 256 -c 1
[ "$(attach_of "$TMP/c.mtrace")" = perf_event ] || fail "MEMTRACE_BPF_FAULTS=perf: $(attach_of "$TMP/c.mtrace")"
$PY - "$TMP/c.mtrace.csv" "$TMP/c.mtrace.out" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = int(re.search(r"base=(0x[0-9a-f]+)", open(sys.argv[2]).read()).group(1), 16)
pg = [(int(r["addr"], 16) - base) // 4096 for r in rows if base <= int(r["addr"], 16) < base + 256 * 4096]
assert pg == list(range(0, 256, 2)), pg[:20]
PY
"$MT" record --backend bpf -a --kernel -d 1 -e page-faults -c 1 -o "$TMP/d.mtrace" 2>"$TMP/d.err" ||
	fail "record -a --kernel failed: $(cat "$TMP/d.err")"
[ "$(attach_of "$TMP/d.mtrace")" = perf_event ] || fail "--kernel: $(attach_of "$TMP/d.mtrace")"

# 4. tgids beyond the bitmap: the tree and its late child through the hash
# (one bit: every pid beyond), then the root in the bitmap and the rest
# beyond (the bitmap ends right after it)
for bits in 1 root; do
	"$WL/mttree" -w -c 2 -g 1 -l -k 24 >"$TMP/t$bits.out" &
	tree=$!
	wait_file "$TMP/t$bits.out" 10 || fail "mttree did not start"
	grep -q '^ready' "$TMP/t$bits.out" || { sleep 0.5; grep -q '^ready' "$TMP/t$bits.out"; } ||
		fail "mttree not ready"
	n=$bits
	[ $bits = root ] && n=$((tree / 64 * 64 + 64))	# the bitmap ends after the word of the root
	MEMTRACE_BPF_PID_BITS=$n "$MT" record --backend bpf -e page-faults -p $tree -c 1 \
		-o "$TMP/t$bits.mtrace" 2>"$TMP/t$bits.err" &
	rec=$!
	wait_file "$TMP/t$bits.mtrace" 100 || fail "record did not start: $(cat "$TMP/t$bits.err")"
	kill -USR1 $tree
	timeout 60 tail --pid=$rec -f /dev/null || fail "record (pid bits $n) did not end with the tree"
	wait $rec || fail "record failed: $(cat "$TMP/t$bits.err")"
	"$MT" dump "$TMP/t$bits.mtrace" >"$TMP/t$bits.csv" || fail "dump failed"
	$PY "$TOP/tests/integration/check_tree.py" "$TMP/t$bits.csv" "$TMP/t$bits.out" >/dev/null ||
		fail "tree with pid bits $n"
	grep -q '^worker=.*kind=late' "$TMP/t$bits.out" || fail "no late child: $(cat "$TMP/t$bits.out")"
	"$MT" dump --meta "$TMP/t$bits.mtrace" | grep -qx 'end_reason=target-exited' ||
		fail "pid bits $n: not ended by the tree's exit"
done
# a command from its exec on, in the hash
MEMTRACE_BPF_PID_BITS=1 "$MT" record --backend bpf -e page-faults -c 1 -o "$TMP/x.mtrace" -- \
	"$WL/pageramp" -n 64 -c 3 >"$TMP/x.out" 2>"$TMP/x.err" || fail "record -- failed: $(cat "$TMP/x.err")"
"$MT" dump "$TMP/x.mtrace" >"$TMP/x.csv" || fail "dump failed"
$PY - "$TMP/x.csv" "$TMP/x.out" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"base=(0x[0-9a-f]+) .* tid=(\d+)", open(sys.argv[2]).read())
base, tid = int(m.group(1), 16), int(m.group(2))
pg = [(int(r["addr"], 16) - base) // 4096 for r in rows if base <= int(r["addr"], 16) < base + 64 * 4096]
assert pg == list(range(0, 64, 2)) * 3, pg
assert {int(r["tid"]) for r in rows} == {tid}, "samples of another thread"
PY
exit 0
