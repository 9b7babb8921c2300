#!/bin/bash
# The bpf backend: the perf backend's integration tests (exact pageramp at
# period 1, threads, forks, -p trees, --cgroup, commands, stops, files)
# again with --backend bpf, then its own: drops under a fault storm, status
# and privileges, -a, record --aggregate, tp_btf page faults (period, source,
# the tgid bitmap's end), some again through the perf events; allocation sites (record --allocs) with the bpf and
# perf backends, through every target (-- CMD and its exec'd children, -p,
# -G, python3: alloc_targets).  Where BPF cannot run (no BTF, no CAP_BPF) the suite
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
. tests/suite-lib.sh
run_scripts tests/integration 180 " (bpf)" none record_pageramp record_threads record_tree record_cgroup record_postgres record_command \
	record_stop record_files record_shmpair record_words bpf_drops bpf_status bpf_aggregate bpf_faults alloc_sites alloc_targets
run_scripts tests/integration 420 " (bpf)" none analyze_multiproc
# page faults through the perf events instead of tp_btf/page_fault_user (the
# fallback, and --kernel's path): on_sample and its period
MEMTRACE_BPF_FAULTS=perf run_scripts tests/integration 180 " (bpf, perf events)" none record_pageramp \
	record_tree record_cgroup record_command bpf_drops bpf_aggregate
# record --allocs with the perf backend recording the accesses (the probes are BPF either way)
MEMTRACE_BACKEND=perf run_scripts tests/integration 180 " (perf)" none alloc_sites alloc_targets
suite_end
