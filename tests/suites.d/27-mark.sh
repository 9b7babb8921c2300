#!/bin/bash
# record --mark (BPF uprobes/USDT) and --labels on PostgreSQL 15 (tools/pg-shmem-labels),
# compare A B by span (two recordings with known spans),
# and their one-line errors.  Needs root (BPF) and the postgresql-15 package.
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
run_scripts tests/integration 180 "" none mark_postgres mark_errors mark_compare
suite_end
