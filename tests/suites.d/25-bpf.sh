#!/bin/bash
# The bpf backend: the perf backend's integration tests (exact pageramp at
# period 1, threads, forks, -p trees, --cgroup, commands, stops, files,
# --pidfile across a PostgreSQL restart)
# again with --backend bpf, then its own: drops under a fault storm, status
# and privileges, -a, record --aggregate, tp_btf page faults (period, source,
# the tgid bitmap's end), some again through the perf events; allocation sites (record --allocs) with the bpf and
# perf backends, through every target (-- CMD and its exec'd children, -p,
# -G, python3: alloc_targets), and an export --by site read by go tool pprof
# (export_pprof_sites); -e buffer-requests on PostgreSQL (pg_buffer_mrc).  Where BPF cannot run (no BTF, no CAP_BPF,
# programs the verifier refuses) the suite says why in one skip line (a
# failure where MEMTRACE_REQUIRE names bpf, as .ci/run does).
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
# the gate: MEMTRACE_MT is tests/harness/bpf_break.sh's broken build
why=$(${MEMTRACE_MT:-build/memtracectl} status 2>&1 | grep '^  bpf: page-faults: ')
case "$why" in
*": available"*) ;;
*)
	suite_skip bpf "bpf backend (the whole suite)" "${why:-memtracectl status printed no bpf line}"
	suite_end
	exit
	;;
esac
# programs the verifier refuses fail the suite where bpf is required
if out=$(bash tests/harness/bpf_break.sh 2>&1); then
	echo "ok   bpf_break: $out"
	suite_pass=$((suite_pass + 1))
else
	echo "FAIL bpf_break: $out"
	suite_fail=$((suite_fail + 1))
fi
export MEMTRACE_BACKEND=bpf
run_scripts tests/integration 180 " (bpf)" none record_pageramp record_threads record_tree record_cgroup record_postgres record_command \
	record_stop record_files record_rotate record_follow_pg record_shmpair record_words bpf_drops bpf_status bpf_aggregate bpf_faults alloc_sites alloc_targets \
	export_pprof_sites
run_scripts tests/integration 420 " (bpf)" none analyze_multiproc
# -e buffer-requests: PostgreSQL's buffer pool at 512 MB predicts its hit
# ratio at 64/128/256 MB, checked by running the server at each (~2.5 min)
run_scripts tests/integration 420 "" last pg_buffer_mrc
# page faults through the perf events instead of tp_btf/page_fault_user (the
# fallback, and --kernel's path): on_sample and its period
MEMTRACE_BPF_FAULTS=perf run_scripts tests/integration 180 " (bpf, perf events)" none record_pageramp \
	record_tree record_cgroup record_command bpf_drops bpf_aggregate
# record --allocs with the perf backend recording the accesses (the probes are BPF either way)
MEMTRACE_BACKEND=perf run_scripts tests/integration 180 " (perf)" none alloc_sites alloc_targets
suite_end
