#!/bin/bash
# The bpf backend: the perf backend's integration tests (exact pageramp at
# period 1, threads, forks, -p trees, --cgroup, commands, stops, files)
# again with --backend bpf, then its own: drops under a fault storm, status
# and privileges, -a.  Where BPF cannot run (no BTF, no CAP_BPF) the suite
# says why and skips, unless MEMTRACE_REQUIRE_BPF=1.
cd "$(dirname "$0")/../.." || exit 1
why=$(build/memtracectl status 2>&1 | grep '^  bpf: page-faults: ')
case "$why" in
*": available"*) ;;
*)
	echo "skip bpf backend: ${why:-no status line}"
	[ "${MEMTRACE_REQUIRE_BPF:-0}" = 1 ] && { echo "0 passed, 1 failed"; exit 1; }
	echo "0 passed, 0 failed"
	exit 0
	;;
esac
export MEMTRACE_BACKEND=bpf
pass=0 fail=0
for t in record_pageramp record_threads record_tree record_cgroup record_postgres record_command \
	 record_stop record_files record_shmpair record_words bpf_drops bpf_status; do
	start=$(date +%s.%N)
	if out=$(timeout 180 bash "tests/integration/$t.sh" 2>&1); then
		printf 'ok   %s (bpf) (%.1f s)\n' "$t" "$(echo "$(date +%s.%N) - $start" | bc)"
		pass=$((pass + 1))
	else
		echo "FAIL $t (bpf): $(echo "$out" | tail -5 | tr '\n' ' ')"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
