#!/bin/bash
# Suite 65-hwcheck: memtrace-hwcheck (docs/hwcheck.md).  The analyzer's
# checks on synthetic recordings with known verdicts (pass and fail cases of
# every check), the slowdown table from a fixed runs file, bad input, the
# no-PMU path on this machine (exit 0, "hardware checks skipped"; a halved
# recording fails with exit 1), a claimed PMU that does not work, and the
# installed script outside the source tree.  MEMTRACE_HWCHECK_VALGRIND=1
# adds hwload's access pattern counted exactly with the valgrind backend
# (slow).  The hardware path itself needs a PMU: `make hwcheck` there.
cd "$(dirname "$0")/../.." || exit 1
. tests/suite-lib.sh
tests="synth_verdicts slowdown_table analyze_errors no_pmu fake_pmu installed"
if [ "${MEMTRACE_HWCHECK_VALGRIND:-0}" = 1 ]; then
	tests="$tests valgrind_pattern"
else
	suite_skip opt-in valgrind_pattern "MEMTRACE_HWCHECK_VALGRIND=1 runs it (lackey, slow)"
fi
run_scripts tests/hwcheck 600 "" none $tests
suite_end
