# valgrind_common.sh - helpers for the valgrind backend / lackey import tests.
# Sourced by tests/suites.d/30-valgrind.sh and by each valgrind_*.sh when it
# is run on its own.  Prints "ok  NAME" / "FAIL NAME: why" per test.
[ -n "${VG_COMMON_LOADED:-}" ] && return 0
VG_COMMON_LOADED=1

VG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MT="$VG_TOP/build/memtracectl"
PAGERAMP="$VG_TOP/build/workloads/pageramp"
REF="/usr/bin/python3 $VG_TOP/tests/integration/lackey_ref.py"
VG_PASS=0
VG_FAIL=0
VG_TMP=$(mktemp -d /tmp/memtrace-vg.XXXXXX)
trap "[ -n \"${VG_KEEP:-}\" ] || rm -rf \"$VG_TMP\"" EXIT

ok() { echo "ok   $1"; VG_PASS=$((VG_PASS + 1)); }
fail() { echo "FAIL $1: $2"; VG_FAIL=$((VG_FAIL + 1)); }
# skip NAME CAP WHY: a test this machine cannot run (tests/suite-lib.sh);
# a failure where MEMTRACE_REQUIRE names CAP
VG_SKIP=0
skip() {
	case ",${MEMTRACE_REQUIRE:-}," in
	*",$2,"*) fail "$1" "skipped for lack of $2, which MEMTRACE_REQUIRE says this machine has: $3"; return ;;
	*,all,*) [ "$2" != opt-in ] && { fail "$1" "skipped for lack of $2 (MEMTRACE_REQUIRE=all): $3"; return; } ;;
	esac
	echo "skip $1 [$2]: $3"
	VG_SKIP=$((VG_SKIP + 1))
}

# vg_prereq NAME: fails NAME and returns 1 when something needed is missing.
vg_prereq() {
	local what=""
	[ -x "$MT" ] || what="$what build/memtracectl"
	[ -x "$PAGERAMP" ] || what="$what build/workloads/pageramp"
	command -v valgrind >/dev/null || what="$what valgrind"
	[ -x /usr/bin/python3 ] || what="$what /usr/bin/python3"
	[ -z "$what" ] && return 0
	fail "$1" "missing:$what (run make all; make deps)"
	return 1
}

# series TRACE TAU T BUCKET OUT: report's WSS series as CSV.
series() {
	timeout 120 "$MT" report "$1" --window "$2" --interval "$3" --bucket "$4" \
		--series "$5" >"$5.out" 2>"$5.err"
}

# meta TRACE KEY: a HEADER/END value (both chunks are stored uncompressed).
meta() {
	LC_ALL=C grep -a -o "$2=[^[:cntrl:]]*" "$1" | head -1 | cut -d= -f2-
}

# one_line_error NAME RC ERRFILE: non-zero exit and one "memtracectl: " line.
one_line_error() {
	if [ "$2" = 0 ]; then
		fail "$1" "exit 0, expected an error"
	elif [ "$(wc -l <"$3")" != 1 ] || ! grep -q '^memtracectl: ' "$3"; then
		fail "$1" "stderr is not one 'memtracectl: ' line: $(head -c 300 "$3" | tr '\n' '|')"
	else
		ok "$1"
	fi
}

# compare_ref NAME TRACE LOG TAU T BUCKET [ref args]: report == reference.
compare_ref() {
	local name=$1 trace=$2 log=$3 tau=$4 t=$5 b=$6 out
	shift 6
	out="$VG_TMP/$name.csv"
	if ! series "$trace" "$tau" "$t" "$b" "$out"; then
		fail "$name" "report failed: $(head -c 300 "$out.err")"
		return
	fi
	local why
	if why=$($REF "$log" --window "$tau" --interval "$t" --bucket "$b" "$@" \
		--compare "$out" 2>&1); then
		ok "$name"
	else
		fail "$name" "tau=$tau T=$t bucket=$b: $(echo "$why" | tail -2 | tr '\n' ' ')"
	fi
}

# mrc_ref NAME TRACE LOG BUCKET FOR_SIZE: report --mrc == an LRU run over the log.
mrc_ref() {
	local name=$1 trace=$2 log=$3 b=$4 size=$5 out why
	out="$VG_TMP/$name.json"
	if ! "$MT" report "$trace" --mrc --for-size "$size" --bucket "$b" --json -n 1 >"$out" 2>"$out.err"; then
		fail "$name" "report failed: $(head -c 300 "$out.err")"
		return
	fi
	if why=$(/usr/bin/python3 tests/integration/mrc_ref.py "$log" "$out" --bucket "$b" 2>&1); then
		ok "$name ($why)"
	else
		fail "$name" "bucket=$b: $(echo "$why" | tail -2 | tr '\n' ' ')"
	fi
}

vg_summary() {
	echo "$VG_PASS passed, $VG_FAIL failed, $VG_SKIP skipped"
	[ "$VG_FAIL" = 0 ]
}
