#!/bin/bash
# skip_rules.sh - tests/suite-lib.sh counts what it is given: a pass, a
# failure, a skip (exit 77 with "skip [CAP]: why"), a skip of a capability
# MEMTRACE_REQUIRE names as a failure, exit 77 without a skip line as a
# failure, a part left out of a passing test as a skip; the summary line
# says all three.  Each case runs fake test scripts through run_scripts in
# a subshell and compares its output with what these rules say.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d /tmp/memtrace-skiprules.XXXXXX)
trap 'rm -rf "$d"' EXIT
printf 'echo fine\nexit 0\n' >"$d/pass.sh"
printf 'echo broken\nexit 1\n' >"$d/fail.sh"
printf 'echo "skip [bpf]: no BTF here"\nexit 77\n' >"$d/nobpf.sh"
printf 'echo odd\nexit 77\n' >"$d/bare77.sh"
printf 'echo "skip [cgroup2]: -G left out"\necho done\nexit 0\n' >"$d/part.sh"

# run REQUIRE NAME...: the suite's output for these scripts
run() {
	local req=$1
	shift
	(MEMTRACE_REQUIRE=$req; cd "$top" && . tests/suite-lib.sh &&
		run_scripts "$d" 10 "" none "$@"; suite_end) 2>&1 | sed -E 's/ \([0-9.]+ s\)//; s/ +$//'
}
bad=0
# want NAME GOT EXPECTED
want() {
	if [ "$2" != "$3" ]; then
		echo "FAIL skip_rules $1: got [$(echo "$2" | tr '\n' '|')] want [$(echo "$3" | tr '\n' '|')]"
		bad=1
	fi
}
want plain "$(run "" pass fail nobpf bare77 part)" "ok   pass
FAIL fail: broken
skip nobpf [bpf]: no BTF here
FAIL bare77: odd (exit 77 without a skip [CAP] line)
ok   part
skip part (a part) [cgroup2]: -G left out
2 passed, 2 failed, 2 skipped"
want required "$(run "cgroup2,bpf" nobpf part)" "FAIL nobpf: skipped for lack of bpf, which MEMTRACE_REQUIRE says this machine has: no BTF here
ok   part
FAIL part (a part): skipped for lack of cgroup2, which MEMTRACE_REQUIRE says this machine has: -G left out
1 passed, 2 failed, 0 skipped"
want all "$(run "all" nobpf)" "FAIL nobpf: skipped for lack of bpf, which MEMTRACE_REQUIRE says this machine has: no BTF here
0 passed, 1 failed, 0 skipped"
want other "$(run "redis" nobpf)" "skip nobpf [bpf]: no BTF here
0 passed, 0 failed, 1 skipped"
[ $bad = 0 ] || exit 1
echo "5 fake tests x 4 MEMTRACE_REQUIRE settings counted as the rules say"
