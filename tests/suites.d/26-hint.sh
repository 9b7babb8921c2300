#!/bin/bash
# The hint-faults source (NUMA-balancing hint faults): a known workload's
# page sets and numa_balancing put back on every exit path, with the perf
# backend and with the bpf backend (on_hint on the tracepoint; skipped
# where BPF cannot run), then Redis and MariaDB (under sysbench) with the
# backend -e hint-faults picks.
# Needs root and CONFIG_NUMA_BALANCING (each test says "skip" otherwise).
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
MEMTRACE_BACKEND=perf run_scripts tests/integration 180 " (perf)" last hint_sets hint_restore hint_blind
if build/memtracectl status 2>&1 | grep -q '^  bpf: hint-faults: available'; then
	MEMTRACE_BACKEND=bpf run_scripts tests/integration 180 " (bpf)" last hint_sets hint_restore hint_blind
else
	suite_skip bpf "hint_sets hint_restore (bpf)" "$(build/memtracectl status 2>&1 | grep '^  bpf: hint-faults: ')"
fi
run_scripts tests/integration 180 "" last hint_redis hint_mariadb status_probe wss_postgres
suite_end
