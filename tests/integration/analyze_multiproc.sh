#!/bin/bash
# Every `memtracectl report` mode and every `memtrace-analyze` verb on real
# recordings of multi-process commands (issue 26: the heatmap of a shell
# loop crashed).  The backend is $MEMTRACE_BACKEND (20-record: perf,
# 25-bpf: bpf); -e page-faults -c 1, so every first touch is a sample.
#   a, b: sh running 20 short-lived child shells (each prints its pid),
#         then a fork/exec chain: sh -c 'exec mttree' (3 children, one
#         grandchild), each of the 5 processes touching K known pages
#         (a: K = 24, b: K = 96)
#   s:    --mark usdtspans:phase__start inside sh: 3 rounds of phases
#         "scan 8" (8 fresh pages), "scan 16" (16) and "idle" (none)
# Ground truth is what the workloads print (pids, bases, pages) and what
# they are built to do; check_multiproc.py holds the checks.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/work.sh" <<'SH'
# work.sh MTTREE K
echo "sh=$$"
for i in $(seq 20); do sh -c 'echo "loop=$$"'; done
sh -c 'echo "chain=$$"; exec "$0" -c 3 -g 1 -k "$1"' "$1" "$2"
SH

record() {
	local trace=$1
	shift
	"$MT" record -e page-faults -c 1 -o "$trace" "$@" >"$trace.out" 2>"$trace.err" ||
		fail "record $(basename "$trace") failed: $(tail -3 "$trace.err")"
}
record "$TMP/a.mtrace" -- sh "$TMP/work.sh" "$WL/mttree" 24
record "$TMP/b.mtrace" -- sh "$TMP/work.sh" "$WL/mttree" 96
record "$TMP/s.mtrace" --mark "$WL/usdtspans:phase__start" -- \
	sh -c 'for i in 1 2 3; do /bin/true; done; exec "$0" -r 3' "$WL/usdtspans"
grep -q '^rounds 3' "$TMP/s.mtrace.out" || fail "usdtspans: $(cat "$TMP/s.mtrace.out")"

MEMTRACECTL="$MT" MEMTRACE_LIB="$TOP/build/libmemtrace.so" MPLBACKEND=Agg \
	$PY "$TOP/tests/integration/check_multiproc.py" "$TMP" "$TOP/user/analyze/memtrace-analyze" ||
	fail "check_multiproc.py failed"
exit 0
