#!/bin/bash
# bench/valgrind/run.sh - the valgrind backend's cost, side by side: native,
# valgrind --tool=none, lackey (log to /dev/null), the memtrace tool alone
# (stream to /dev/null) and `memtracectl record --backend valgrind` with the
# tool at periods 1 and 100, at period 1 with --aggregate=100k (and with
# lackey on pageramp), on
#   pageramp -n 1024 -c 2        (build/workloads/pageramp)
#   sqlite3 SELECT ... ORDER BY  on a 50 000-row table (needs sqlite3)
# Medians of RUNS (default 5) of wall-clock seconds, and of CPU seconds
# (user + sys of every process, bench/valgrind/timeit.py) beside them: on a
# shared machine the wall clock counts the waits for a CPU too.  Results: docs/performance.md.
#
#   bench/valgrind/run.sh [RUNS]     BENCH_LACKEY_SQLITE=1: lackey on sqlite too (minutes a run)
#
# VALGRIND_WS_LIB=DIR adds valgrind-ws (paper 000's tool, github
# mbeckersys/valgrind-ws; not part of memtrace) side by side: DIR is a
# VALGRIND_LIB directory holding its ws-amd64-linux built against this
# Valgrind, plus links to vgpreload_core-amd64-linux.so and default.supp
# (docs/performance.md says how it was built for the numbers there).
set -u
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
MT=$PWD/build/memtracectl
VGLIB=$PWD/build/vgtool
RAMP=$PWD/build/workloads/pageramp
TMP=$(mktemp -d /tmp/memtrace-vgbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$VGLIB/memtrace-amd64-linux" ] || { echo "build/vgtool not built (make vgtool)"; exit 1; }

# med FILE: median of the numbers in FILE
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run LABEL CMD...: RUNS timings of CMD (stdout/stderr discarded), one table row
NATIVE=
NATIVE_CPU=
run() {
	local label=$1 i w c
	shift
	: >"$TMP/w"; : >"$TMP/c"
	for i in $(seq 1 "$RUNS"); do
		/usr/bin/python3 bench/valgrind/timeit.py "$@" >"$TMP/t"
		awk '{ print $1 >> "'"$TMP/w"'"; print $2 >> "'"$TMP/c"'" }' "$TMP/t"
	done
	w=$(med "$TMP/w"); c=$(med "$TMP/c")
	[ -z "$NATIVE" ] && NATIVE=$w && NATIVE_CPU=$c
	printf '| %s | %.3f | %.3f | %sx | %sx |\n' "$label" "$w" "$c" \
		"$(awk -v w="$w" -v n="$NATIVE" 'BEGIN { printf "%.1f", (n > 0) ? w / n : 0 }')" \
		"$(awk -v w="$c" -v n="$NATIVE_CPU" 'BEGIN { printf "%.1f", (n > 0) ? w / n : 0 }')"
}


bench() {	# bench NAME LACKEY(0/1) CMD...
	local name=$1 lackey=$2
	shift 2
	NATIVE=
	echo
	echo "$name (medians of $RUNS)"
	echo
	echo '| what | wall s | CPU s | wall / native | CPU / native |'
	echo '|---|---|---|---|---|'
	run native "$@"
	run "valgrind --tool=none" valgrind -q --tool=none "$@"
	# the tool alone: its stream into stdout, which run discards
	run "memtrace tool alone, period 1 (to /dev/null)" env VALGRIND_LIB="$VGLIB" valgrind -q \
		--tool=memtrace --mt-fd=1 --period=1 "$@"
	run "memtrace tool alone, period 100" env VALGRIND_LIB="$VGLIB" valgrind -q \
		--tool=memtrace --mt-fd=1 --period=100 "$@"
	if [ -n "${VALGRIND_WS_LIB:-}" ]; then	# its defaults: 4 KiB pages, tau = 100k instructions
		run "valgrind-ws (--tool=ws, defaults)" env VALGRIND_LIB="$VALGRIND_WS_LIB" valgrind -q \
			--tool=ws --ws-file="$TMP/ws.out" "$@"
	fi
	run "record --backend valgrind -c 1 (tool)" "$MT" record --backend valgrind -c 1 -o "$TMP/r.mtrace" -- "$@"
	run "record --backend valgrind -c 100 (tool)" "$MT" record --backend valgrind -c 100 -o "$TMP/r.mtrace" -- "$@"
	# counted per page and 100k instructions in the tool (valgrind-ws's tau)
	run "record --backend valgrind -c 1 --aggregate=100k" "$MT" record --backend valgrind -c 1 \
		--aggregate=100k -o "$TMP/a.mtrace" -- "$@"
	if [ "$lackey" = 1 ]; then
		run "lackey --trace-mem=yes to /dev/null" valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null "$@"
		run "record --backend valgrind -c 1 (lackey)" env MEMTRACE_VGTOOL_DIR= "$MT" record --backend valgrind \
			-c 1 -o "$TMP/l.mtrace" -- "$@"
	fi
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(valgrind --version)"
bench "pageramp -n 1024 -c 2" 1 "$RAMP" -n 1024 -c 2

if command -v sqlite3 >/dev/null; then
	sqlite3 "$TMP/q.db" "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
		INSERT INTO t(k, s) SELECT (x * 7919) % 50000, printf('row-%08d', (x * 104729) % 99991) FROM c;"
	bench "sqlite3: SELECT k, s FROM t ORDER BY s (50 000 rows)" "${BENCH_LACKEY_SQLITE:-0}" \
		sqlite3 "$TMP/q.db" "SELECT k, s FROM t ORDER BY s LIMIT 10 OFFSET 25000"
else
	echo "sqlite3 not installed: sqlite query skipped"
fi
