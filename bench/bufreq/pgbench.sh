#!/bin/bash
# bench/bufreq/pgbench.sh [REPS] - cost of `record -e buffer-requests` under
# pgbench: tps of key look-ups with exponentially skewed keys (the workload of
# tests/integration/pg_buffer_mrc.sh: scale 30, shared_buffers 512MB, 4
# clients, 2 threads, 10 s a run) without and with the recording, the modes
# interleaved per round, REPS rounds (default 5), medians; with the requests
# recorded per second and the trace's bytes per request.  PostgreSQL 15 of
# Debian from a temporary directory on a Unix socket.  Root.  Figures:
# docs/performance.md ("Buffer requests").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-5}
MT=$top/build/memtracectl
PGBIN=/usr/lib/postgresql/15/bin
[ -x "$MT" ] || { echo "bench/bufreq: build first (make all)"; exit 1; }
[ -x $PGBIN/postgres ] || { echo "bench/bufreq: needs postgresql-15"; exit 1; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
DB=$tmp/pg
mkdir "$DB" && chown postgres: "$DB"
as_pg() { (cd / && runuser -u postgres -- "$@"); }
trap 'as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
as_pg $PGBIN/initdb -D "$DB/data" -A trust -U postgres >/dev/null 2>&1 || { echo "initdb failed"; exit 1; }
as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 \
	-o "-c listen_addresses='' -c unix_socket_directories='$DB' -c shared_buffers=512MB -c autovacuum=off" \
	start >/dev/null || { echo "server did not start"; exit 1; }
postmaster=$(head -1 "$DB/data/postmaster.pid")
as_pg $PGBIN/pgbench -h "$DB" -U postgres -i -s 30 postgres >/dev/null 2>&1 || { echo "pgbench -i failed"; exit 1; }
cat >"$DB/skew.sql" <<'SQL'
\set aid random_exponential(1, 3000000, 8)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL
chown postgres: "$DB/skew.sql"
bench() { as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -c 4 -j 2 -T "$1" -f "$DB/skew.sql" postgres 2>/dev/null |
	sed -n 's/^tps = \([0-9.]*\) .*/\1/p'; }
bench 20 >/dev/null	# warm
run() {	# run MODE: one pgbench run, its tps on stdout
	local rec=
	if [ "$1" = record ]; then
		$MT record -e buffer-requests -p $postmaster -o "$tmp/b.mtrace" --force 2>"$tmp/rec.err" &
		rec=$!
		for _ in $(seq 200); do [ -s "$tmp/b.mtrace" ] && break; sleep 0.05; done
	fi
	bench 10
	if [ -n "$rec" ]; then
		kill -INT $rec
		wait $rec
		echo "$(sed -n 's/.*: buffers: \([0-9]*\) shared-buffer requests.*/\1/p' "$tmp/rec.err") $(stat -c %s "$tmp/b.mtrace")" \
			>>"$tmp/sizes"
	fi
}
: >"$tmp/none"; : >"$tmp/record"
for i in $(seq "$reps"); do
	for mode in none record; do
		run $mode >>"$tmp/$mode"
	done
done
/usr/bin/python3 - "$tmp" <<'PY'
import statistics, sys
tmp = sys.argv[1]
v = {}
for mode in ("none", "record"):
    v[mode] = [float(x) for x in open(f"{tmp}/{mode}") if x.strip()]
    print(f"{mode:7s} median tps {statistics.median(v[mode]):8.0f}   runs: " + ", ".join(f"{x:.0f}" for x in v[mode]))
r = [b / a for a, b in zip(v["none"], v["record"])]
print("record / none, per round (side by side): " + ", ".join(f"{x:.3f}" for x in r) +
      f"; median {statistics.median(r):.3f}")
s = [tuple(map(int, l.split())) for l in open(f"{tmp}/sizes") if l.strip()]
print("requests per run: " + ", ".join(str(n) for n, _ in s) +
      "; bytes per request: " + ", ".join(f"{b / n:.2f}" for n, b in s))
PY
