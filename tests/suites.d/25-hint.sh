#!/bin/bash
# The hint-faults source (NUMA-balancing hint faults, perf backend): a known
# workload's page sets, and numa_balancing put back on every exit path.
# Needs root and CONFIG_NUMA_BALANCING (each test says "skip" otherwise).
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
run_scripts tests/integration 180 "" last hint_sets hint_restore hint_redis
suite_end
