#!/bin/bash
# Suite 65-hwcheck: memtrace-hwcheck (docs/hwcheck.md).  The analyzer's
# checks on synthetic recordings with known verdicts (pass and fail cases of
# every check), the slowdown table from a fixed runs file, bad input, the
# no-PMU path on this machine (exit 0, "hardware checks skipped"; a halved
# recording fails with exit 1), and the installed script outside the source
# tree.  The hardware path itself needs a PMU: `make hwcheck` on such a machine.
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
run_scripts tests/hwcheck 180 "" none synth_verdicts slowdown_table analyze_errors no_pmu fake_pmu installed
suite_end
