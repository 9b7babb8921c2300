#!/bin/bash
# bench/allocs/pgbench.sh [REPS] [SECONDS] - record --allocs under pgbench:
# a PostgreSQL 15 server in a temporary directory (Unix socket only, as
# the postgres user), pgbench -S (select only, 2 clients, scale 2) for
# SECONDS (default 5), transactions per second alone, under `memtracectl
# record -p <postmaster>` (perf backend, page faults) without --allocs, and
# with --allocs (defaults).  Modes interleaved, REPS (default 5) rounds;
# medians.  Root.  Figures: docs/performance.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-5} secs=${2:-5}
MT=$top/build/memtracectl PGBIN=/usr/lib/postgresql/15/bin
[ -x "$MT" ] && [ -x $PGBIN/postgres ] || { echo "bench/allocs/pgbench: needs make all and postgresql-15"; exit 1; }
tmp=$(mktemp -d /tmp/memtrace-pgbench.XXXXXX)
chmod 755 "$tmp"
DB=$tmp/pg
mkdir "$DB" && chown postgres: "$DB"
as_pg() { runuser -u postgres -- "$@"; }
trap 'as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
as_pg $PGBIN/initdb -D "$DB/data" -A trust -U postgres >"$tmp/initdb.log" 2>&1 || { tail -3 "$tmp/initdb.log"; exit 1; }
as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 \
	-o "-c listen_addresses='' -c unix_socket_directories='$DB' -c shared_buffers=16MB" start >/dev/null ||
	{ tail -3 "$DB/log"; exit 1; }
postmaster=$(head -1 "$DB/data/postmaster.pid")
as_pg $PGBIN/pgbench -h "$DB" -U postgres -i -s 2 postgres >"$tmp/init.log" 2>&1 || { tail -3 "$tmp/init.log"; exit 1; }
bench() { as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -S -c 2 -j 2 -T "$secs" postgres 2>&1 |
	sed -n 's/^tps = \([0-9.]*\).*/\1/p'; }
run() {	# run MODE: prints tps
	[ "$1" = alone ] && { bench; return; }
	local extra=
	[ "$1" = allocs ] && extra=--allocs
	rm -f "$tmp/t.mtrace"
	$MT record -b perf -e page-faults -p "$postmaster" $extra -o "$tmp/t.mtrace" 2>"$tmp/rec.err" &
	local rec=$!
	for _ in $(seq 300); do [ -s "$tmp/t.mtrace" ] && break; sleep 0.05; done
	bench
	kill -INT $rec
	wait $rec || { cat "$tmp/rec.err" >&2; return 1; }
}
for i in $(seq "$reps"); do
	for m in alone record allocs; do
		echo "$m $(run $m)" >>"$tmp/runs"
	done
done
/usr/bin/python3 - "$tmp/runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 2]
base = statistics.median(float(r[1]) for r in rows if r[0] == "alone")
names = {"alone": "pgbench -S alone", "record": "record -p postmaster", "allocs": "record -p postmaster --allocs"}
print("%-32s %5s %14s %9s" % ("", "runs", "tps (median)", "vs alone"))
for m in ("alone", "record", "allocs"):
    v = [float(r[1]) for r in rows if r[0] == m]
    print("%-32s %5d %14.0f %8.1f%%" % (names[m], len(v), statistics.median(v), 100 * statistics.median(v) / base))
PY
grep -h "allocs:" "$tmp/rec.err" >&2 || true
