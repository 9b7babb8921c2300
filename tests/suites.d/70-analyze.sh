#!/bin/bash
# 70-analyze.sh - pytest suite of the Python analysis package (user/analyze):
# plots over numbers from build/libmemtrace.so (ctypes), checked against
# `memtracectl report --json` on recorded and library-written traces.
# Prints one line per test and ends with "N passed, N failed".
# About 30-60 s on a 2-core machine (it records pageramp and a small dbquery).
set -u
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
xml=$(mktemp /tmp/memtrace-analyze-junit.XXXXXX.xml)
log=$(mktemp /tmp/memtrace-analyze-log.XXXXXX)
trap 'rm -f "$xml" "$log"' EXIT

if ! $PY -c 'import numpy, matplotlib, pytest' 2>/dev/null; then
	echo "FAIL analyze-deps: /usr/bin/python3 lacks numpy/matplotlib/pytest (tools/deps/analyze.txt; run make deps)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ ! -e build/libmemtrace.so ] && [ -z "${MEMTRACE_LIB:-}" ]; then
	echo "FAIL analyze-lib: build/libmemtrace.so is missing (make lib)"
	echo "0 passed, 1 failed"
	exit 1
fi
MPLBACKEND=Agg timeout 600 $PY -m pytest -q -p no:cacheprovider --junitxml="$xml" tests/analyze >"$log" 2>&1
rc=$?
if [ ! -s "$xml" ]; then
	tail -20 "$log"
	echo "FAIL analyze-pytest: pytest wrote no result (exit $rc)"
	echo "0 passed, 1 failed"
	exit 1
fi
# One line per test case from the junit report; the summary line last.
$PY - "$xml" "$rc" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
passed = failed = skipped = 0
for case in root.iter("testcase"):
    name = "%s::%s" % (case.get("classname", "").rsplit(".", 1)[-1], case.get("name"))
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    if case.find("skipped") is not None:
        why = (case.find("skipped").get("message") or "").splitlines()[0:1]
        print("skip %s [pytest]: %s" % (name, why[0] if why else ""))
        skipped += 1
    elif bad is not None:
        failed += 1
        msg = (bad.get("message") or "failed").replace("\n", " ")[:200]
        print("FAIL %s: %s" % (name, msg))
    else:
        passed += 1
        print("ok  %s" % name)
if int(sys.argv[2]) not in (0, 1) and failed == 0:
    print("FAIL analyze-pytest: pytest exited %s" % sys.argv[2])
    failed += 1
print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed else 0)
PYEOF
