#!/bin/bash
# run.sh NAME SECONDS - runs the harness build/fuzz/fuzz_NAME: first once over
# every committed regression input (tests/fuzz/regress/NAME/), then fuzzing
# for SECONDS from its seed corpus (build/fuzz/corpus/NAME), the regression
# inputs and what earlier runs found (build/fuzz/work/NAME, kept; not with
# FUZZ_FRESH=1).
# Fails on any crash, leak, UBSan report, timeout (10 s per input) or
# allocation beyond the limits (one malloc > 2 GiB, RSS > 2 GiB); the
# input is kept as build/fuzz/crashes/NAME-<kind>-<sha1>.  Prints
# "ok   fuzz_NAME (N executions in S s, C corpus inputs)" or "FAIL fuzz_NAME: ...".
set -u
cd "$(dirname "$0")/../.." || exit 1
name=$1 secs=$2
bin=build/fuzz/fuzz_$name
work=build/fuzz/work/$name
# FUZZ_FRESH=1 (make check): new inputs go to a fresh directory, so the run
# replays only the seeds and regressions, whatever `make fuzz` accumulated
if [ "${FUZZ_FRESH:-0}" = 1 ]; then
	work=$(mktemp -d /tmp/memtrace-fuzz-$name.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi
crashes=build/fuzz/crashes
regress=tests/fuzz/regress/$name
log=build/fuzz/logs/$name.log
mkdir -p "$work" "$crashes" "$regress" build/fuzz/logs
if [ ! -x "$bin" ]; then
	echo "FAIL fuzz_$name: $bin not built (clang-14 missing? make deps; make fuzzers)"
	exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# leaks inside third-party libraries that no caller can free (the file says
# which, by function): libdw has no frame pointers, so the elf harness
# unwinds allocations the slow way to name the function (half the executions)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0}
[ "$name" = elf ] && ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[ -x /usr/lib/llvm-14/bin/llvm-symbolizer ] &&
	export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
limits=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10)
dict=()
[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")

# the library's one-line errors (memtracectl: ...) are expected: not logged
filter() { grep -av '^memtracectl: '; }

inputs=$(find "$regress" -type f | sort)
if [ -n "$inputs" ]; then
	# shellcheck disable=SC2086
	if ! "$bin" "${limits[@]}" $inputs 2>&1 | filter >"$log.regress"; then
		:
	fi
	if ! grep -q '^Executed .* in ' "$log.regress" ||
	   grep -qE '^(==[0-9]+==ERROR|SUMMARY: |.*runtime error: |==[0-9]+== ERROR: libFuzzer)' "$log.regress"; then
		echo "FAIL fuzz_$name: a regression input of $regress fails again (log: $log.regress)"
		grep -aE 'ERROR|runtime error|Running: ' "$log.regress" | head -5 | sed 's/^/    /'
		exit 1
	fi
fi

start=$(date +%s)
"$bin" "${limits[@]}" "${dict[@]}" -max_total_time="$secs" -print_final_stats=1 \
	-artifact_prefix="$crashes/$name-" "$work" "build/fuzz/corpus/$name" "$regress" \
	2>&1 | filter >"$log"
rc=${PIPESTATUS[0]}
took=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
units=$(find "$work" -type f | wc -l)
if [ "$rc" != 0 ]; then
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	why=$(grep -aE '^==[0-9]+==ERROR|^SUMMARY: |runtime error: |ERROR: libFuzzer' "$log" | head -1)
	echo "FAIL fuzz_$name: exit $rc after ${execs:-?} executions: $why; input kept: ${art:-none} (log: $log)"
	exit 1
fi
echo "ok   fuzz_$name (${execs:-?} executions in $took s, $units inputs in $work)"
