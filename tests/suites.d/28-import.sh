#!/bin/bash
# 28-import.sh - `memtracectl import --format perf` (tests/import/perf_import.sh:
# perf.data recorded here compared sample by sample with `perf script`,
# hand-built files with weight/data_src, pipe mode, bad input; ~25 s).
# Needs perf (linux-perf) and the software page-fault event.
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
run_scripts tests/import 300 "" all perf_import
suite_end
