# lib.sh - helpers for the integration tests (sourced).
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MT="$TOP/build/memtracectl"
WL="$TOP/build/workloads"
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/memtrace-test.XXXXXX)
# a test that fails early leaves no waiting workload behind (it would hold
# the suite's output pipe open and stall the suite)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

fail() {
	echo "$*" >&2
	exit 1
}

# skip CAP REASON: this machine lacks CAP (a capability name listed in
# tests/suite-lib.sh: bpf, cgroup2, numa-balancing, redis, ...): the test
# cannot run.  Exit status 77: the suite prints "skip NAME [CAP]: REASON"
# and counts it as skipped, or as failed where MEMTRACE_REQUIRE names CAP.
skip() {
	echo "skip [$1]: $2"
	exit 77
}

# wait_file FILE MINSIZE: until FILE exists with at least MINSIZE bytes (5 s max)
wait_file() {
	for _ in $(seq 100); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# expect_error EXPECTED_SUBSTRING CMD...: non-zero exit, exactly one stderr line containing it
expect_error() {
	local want=$1
	shift
	local err="$TMP/err.txt"
	if "$@" >/dev/null 2>"$err"; then
		fail "expected failure: $*"
	fi
	local lines
	lines=$(wc -l <"$err")
	[ "$lines" = 1 ] || fail "expected one error line from '$*', got $lines: $(cat "$err")"
	grep -q -- "$want" "$err" || fail "error of '$*' lacks '$want': $(cat "$err")"
	grep -q '^memtracectl: ' "$err" || fail "error of '$*' is not a memtracectl: line"
}
