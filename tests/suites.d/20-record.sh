#!/bin/bash
# Integration tests of memtracectl record/report/dump with the perf backend
# (page-fault source) on real workloads; export_pprof reads an export with
# go tool pprof.
cd "$(dirname "$0")/../.." || exit 1
# auto would pick bpf where it runs: this suite is the perf backend's
export MEMTRACE_BACKEND=perf
. tests/suite-lib.sh
run_scripts tests/integration 180 "" none record_pageramp record_threads record_tree record_cgroup record_postgres record_command \
	record_stop record_files record_rotate record_follow_pg record_shmpair record_words record_memory record_metrics bad_input damon_status \
	region_postgres region_mariadb export_pprof
# every report mode and memtrace-analyze verb on multi-process recordings (about 2-3 min)
run_scripts tests/integration 420 "" none analyze_multiproc
suite_end
