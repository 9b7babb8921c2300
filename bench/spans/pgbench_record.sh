#!/bin/bash
# bench/spans/pgbench_record.sh [SECONDS] [TREE...] - a real `record --mark`
# recording and its analysis (docs/performance.md, "Spans at scale"):
# PostgreSQL 15 of Debian on a private socket directory (port 5491, no TCP),
# pgbench -i -s 10, then `pgbench -S` (select-only, simple protocol: one
# "SELECT abalance FROM pgbench_accounts WHERE aid = N;" per transaction,
# N uniform in 1..1 000 000) with 8 clients for SECONDS (default 120) while
# TREE's `memtracectl record -p POSTMASTER -e page-faults --mark
# postgres:query__start` follows every backend.  For each TREE (a checkout
# with build/, default this one; e.g. the base commit's worktree), in turn
# on the same server: queries run (pgbench), spans and the bytes of the span
# chunks (span_bytes.py), then wall time and peak RSS of `memtracectl report
# --by-span` and `memtrace-analyze report` (/usr/bin/time; a run past
# LIMIT seconds, default 900, is stopped).  Root.  Traces are kept in
# OUT (default /tmp/pgbench-spans).  RECORD_FLAGS adds record options (e.g.
# --allocs: the issue's "--mark and --allocs" recording).
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-120}
shift
[ $# -gt 0 ] || set -- "$(cd "$here/../.." && pwd)"
LIMIT=${LIMIT:-900}
OUT=${OUT:-/tmp/pgbench-spans}
PGBIN=/usr/lib/postgresql/15/bin
[ -x $PGBIN/postgres ] || { echo "needs postgresql-15"; exit 1; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
chmod 755 "$tmp"
DB=$tmp/pg
mkdir "$DB" && chown postgres: "$DB"
as_pg() { runuser -u postgres -- "$@"; }
trap 'as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
as_pg $PGBIN/initdb -D "$DB/data" -A trust -U postgres >/dev/null 2>&1 || { echo "initdb failed"; exit 1; }
as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 \
	-o "-c listen_addresses='' -c port=5491 -c unix_socket_directories='$DB' -c shared_buffers=128MB" \
	start >/dev/null || { echo "server did not start"; exit 1; }
postmaster=$(head -1 "$DB/data/postmaster.pid")
as_pg $PGBIN/pgbench -h "$DB" -p 5491 -U postgres -i -s 10 postgres >/dev/null 2>&1 ||
	{ echo "pgbench -i failed"; exit 1; }
timed() {	# timed NAME CMD...: "NAME: S s, M MiB" (or past the limit)
	local name=$1; shift
	timeout "$LIMIT" /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc = 124 ]; then echo "  $name: stopped after ${LIMIT} s"
	elif [ $rc != 0 ]; then echo "  $name: failed (exit $rc): $(tail -1 "$tmp/err")"
	else awk -v n="$name" '{printf "  %s: %.1f s, %.0f MiB peak RSS\n", n, $1, $2 / 1024}' "$tmp/time"; fi
}
for tree in "$@"; do
	name=$(basename "$tree")
	trace=$OUT/$name.mtrace
	echo "== $tree ($(git -C "$tree" log -1 --format=%h 2>/dev/null)), $secs s of pgbench -S"
	"$tree/build/memtracectl" record -p "$postmaster" -e page-faults --mark postgres:query__start \
		${RECORD_FLAGS:-} -o "$trace" --force 2>"$tmp/rec.err" &
	rec=$!
	for _ in $(seq 200); do grep -q "attached to" "$tmp/rec.err" && break; sleep 0.05; done
	as_pg $PGBIN/pgbench -h "$DB" -p 5491 -U postgres -n -S -c 8 -j 2 -T "$secs" postgres \
		>"$tmp/pgb" 2>&1
	kill -INT $rec
	wait $rec || echo "  record: $(tail -1 "$tmp/rec.err")"
	grep -i "lost\|missing" "$tmp/rec.err" | sed 's/^/  record: /' | head -3
	echo "  pgbench: $(grep -E '^(number of transactions actually processed|tps)' "$tmp/pgb" | tr '\n' ' ')"
	echo "  $("$here/span_bytes.py" "$trace")"
	timed "memtracectl report --by-span" "$tree/build/memtracectl" report "$trace" --by-span
	rm -rf "$OUT/$name.report"
	MEMTRACE_LIB=$tree/build/libmemtrace.so timed "memtrace-analyze report" \
		/usr/bin/python3 "$tree/user/analyze/memtrace-analyze" report "$trace" -o "$OUT/$name.report"
done
