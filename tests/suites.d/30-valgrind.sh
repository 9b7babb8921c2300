#!/bin/bash
# 30-valgrind.sh - the valgrind backend and the lackey import, compared with
# an independent reference (tests/integration/lackey_ref.py); the memtrace
# Valgrind tool compared with lackey (tests/integration/valgrind_tool.sh).  Needs
# build/memtracectl, build/workloads/pageramp, valgrind and /usr/bin/python3.
# About 10-20 s on a 2-core machine.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/valgrind_common.sh
. tests/integration/valgrind_import.sh
. tests/integration/valgrind_record.sh
. tests/integration/valgrind_files.sh
. tests/integration/valgrind_tool.sh
vg_summary
