#!/bin/bash
# memtrace-hwcheck's hardware path where a PMU is claimed (a fake ibs_op in
# MEMTRACE_HWCHECK_PMUS) but memtracectl cannot open the events: every run
# of every backend is a FAIL with the collector's one-line reason, the
# slowdown table says "failed" next to the untraced times, exit 1.  IBS
# periods are rounded up to multiples of 16: 1000 runs as 1008.
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/pmus/ibs_op"
echo 11 > "$dir/pmus/ibs_op/type"
fail() { echo "$*"; exit 1; }
MEMTRACE_HWCHECK_PMUS="$dir/pmus" tools/memtrace-hwcheck --runs 1 --rounds 1 --periods 1000 \
	--events loads --backends perf -o "$dir/out" --report "$dir/report.md" > "$dir/stdout" 2> "$dir/stderr"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, not 1: $(cat "$dir/stderr")"
[ ! -s "$dir/stdout" ] || fail "stdout: $(cat "$dir/stdout")"
grep -qx '### perf backend, loads, period 1008' "$dir/report.md" || fail "no perf section"
grep -qx -- "- FAIL record: memtracectl: backend perf: event 'loads' needs a hardware PMU .*" "$dir/report.md" ||
	fail "$(grep -A3 '### perf' "$dir/report.md")"
grep -qx '| memtrace, perf backend | failed |' "$dir/report.md" || fail "table: $(grep '^|' "$dir/report.md")"
grep -qE '^\| untraced loop, median ms \| [0-9]+\.[0-9] \(1 run\) \|$' "$dir/report.md" || fail "untraced row"
grep -qx 'Checks: 0 passed, 1 failed, 0 skipped (tolerance of shares ±0.05; docs/hwcheck.md says what each check means).' "$dir/report.md" ||
	fail "$(grep '^Checks' "$dir/report.md")"
grep -qx '| period | 1008 |' "$dir/report.md" || fail "period column"
[ "$(grep -c '' "$dir/out/runs.txt")" = 2 ] || fail "runs: $(cat "$dir/out/runs.txt")"
