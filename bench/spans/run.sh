#!/bin/bash
# bench/spans/run.sh [RUNS] - span analysis at scale (docs/performance.md,
# "Spans at scale"): `memtracectl report --by-span` and `memtracectl compare
# A B --by-span` on traces from bench/span_gen.c (16 threads, 1 M samples),
# medians of RUNS (default 5) runs, wall time and peak RSS:
#   this build on SPANS2 traces (written by this build's writer), and on
#   SPANS traces (the old chunk type, written by the base commit's writer);
#   the base commit (BASE, default /tmp/spans-base: `git worktree add
#   /tmp/spans-base 4ad6abd && make -C /tmp/spans-base all`) on the SPANS
#   traces, when it is built; a base run longer than BASE_LIMIT seconds
#   (default 150) is stopped and shown as "> LIMIT", and is run once only.
# Sizes: SIZES="spans:labels ..." (default "100000:5000 1000000:50000").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
BASE=${BASE:-/tmp/spans-base}
BASE_LIMIT=${BASE_LIMIT:-150}
SIZES=${SIZES:-"100000:5000 1000000:50000"}
MT=$top/build/memtracectl
GEN=$top/build/bench/span_gen
[ -x "$MT" ] && [ -x "$GEN" ] || { echo "bench/spans: build first (make all)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base_gen=
if [ -x "$BASE/build/memtracectl" ] && [ -f "$BASE/build/libmemtrace.a" ]; then
	cc -std=c11 -D_GNU_SOURCE -O2 -I"$BASE/include" -o "$tmp/span_gen_base" "$top/bench/span_gen.c" \
		"$BASE/build/libmemtrace.a" -ldw -lelf -lzstd -llzma -lpfm -lm -lpthread && base_gen=$tmp/span_gen_base
fi
[ -n "$base_gen" ] || echo "(no base build at $BASE: this build only)"

# one MT ARGS...: "seconds peak_MiB", or "> LIMIT -" past the limit
one() {
	local limit=$1; shift
	timeout "$limit" /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc = 124 ]; then echo "> $limit -"; return; fi
	if [ $rc != 0 ]; then echo "failed (exit $rc): $(tail -1 "$tmp/err")" >&2; echo "fail -"; return; fi
	awk '{printf "%s %.0f\n", $1, $2 / 1024}' "$tmp/time"
}
med() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# series LABEL LIMIT N MT ARGS...: N runs, "median s, median peak MiB"
series() {
	local label=$1 limit=$2 n=$3; shift 3
	: >"$tmp/s"
	for _ in $(seq "$n"); do
		r=$(one "$limit" "$@")
		echo "$r" >>"$tmp/s"
		case $r in ">"*|fail*) break ;; esac
	done
	if grep -q '^>' "$tmp/s"; then
		printf '  %-44s %10s %10s  (1 run)\n' "$label" "> ${limit}s" -
	elif grep -q '^fail' "$tmp/s"; then
		printf '  %-44s %10s\n' "$label" failed
	else
		printf '  %-44s %9.2fs %7s MiB  (%d runs)\n' "$label" "$(cut -d' ' -f1 "$tmp/s" | med)" \
			"$(cut -d' ' -f2 "$tmp/s" | med)" "$n"
	fi
}
for size in $SIZES; do
	ns=${size%%:*} nl=${size##*:}
	echo "== $ns spans, $nl labels, 1000000 samples, 16 threads; medians of $runs"
	"$GEN" "$tmp/a2.mtrace" "$ns" "$nl" 1000000 1 && "$GEN" "$tmp/b2.mtrace" "$ns" "$nl" 1000000 2 || exit 1
	echo "  $("$top/bench/spans/span_bytes.py" "$tmp/a2.mtrace" | sed "s|$tmp/||")"
	if [ -n "$base_gen" ]; then
		"$base_gen" "$tmp/a1.mtrace" "$ns" "$nl" 1000000 1 && "$base_gen" "$tmp/b1.mtrace" "$ns" "$nl" 1000000 2 || exit 1
		echo "  $("$top/bench/spans/span_bytes.py" "$tmp/a1.mtrace" | sed "s|$tmp/||") (base writer)"
	fi
	series "report --by-span, this build, SPANS2" 600 "$runs" "$MT" report "$tmp/a2.mtrace" --by-span
	series "compare --by-span, this build, SPANS2" 600 "$runs" "$MT" compare "$tmp/a2.mtrace" "$tmp/b2.mtrace" --by-span
	if [ -n "$base_gen" ]; then
		series "report --by-span, this build, SPANS" 600 "$runs" "$MT" report "$tmp/a1.mtrace" --by-span
		series "compare --by-span, this build, SPANS" 600 "$runs" "$MT" compare "$tmp/a1.mtrace" "$tmp/b1.mtrace" --by-span
		series "report --by-span, base 4ad6abd, SPANS" "$BASE_LIMIT" "$runs" "$BASE/build/memtracectl" report "$tmp/a1.mtrace" --by-span
		series "compare --by-span, base 4ad6abd, SPANS" "$BASE_LIMIT" "$runs" "$BASE/build/memtracectl" compare "$tmp/a1.mtrace" "$tmp/b1.mtrace" --by-span
	fi
done
