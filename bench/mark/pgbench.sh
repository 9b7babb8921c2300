#!/bin/bash
# bench/mark/pgbench.sh [REPS] - cost of `record --mark postgres:query__start`
# under pgbench: tps of `pgbench -S` (select-only: one query, so one span,
# per transaction; simple protocol) with 4 clients for 10 s, three modes
# interleaved per round, REPS rounds (default 5), medians:
#   none       no recording
#   record     memtracectl record -p POSTMASTER -e page-faults
#   record+mark  the same with --mark postgres:query__start (USDT start and
#              done probes in every backend, one BPF ring record each)
# The server (PostgreSQL 15 of Debian, shared_buffers 64MB, scale 5) runs
# from a temporary directory on a Unix socket.  Root.  Figures:
# docs/performance.md ("Query spans").
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-5}
MT=$top/build/memtracectl
PGBIN=/usr/lib/postgresql/15/bin
[ -x "$MT" ] || { echo "bench/mark: build first (make all)"; exit 1; }
[ -x $PGBIN/postgres ] || { echo "bench/mark: needs postgresql-15"; exit 1; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
DB=$tmp/pg
mkdir "$DB" && chown postgres: "$DB"
as_pg() { runuser -u postgres -- "$@"; }
trap 'as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT
as_pg $PGBIN/initdb -D "$DB/data" -A trust -U postgres >/dev/null 2>&1 || { echo "initdb failed"; exit 1; }
as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 \
	-o "-c listen_addresses='' -c unix_socket_directories='$DB' -c shared_buffers=64MB" start >/dev/null ||
	{ echo "server did not start"; exit 1; }
postmaster=$(head -1 "$DB/data/postmaster.pid")
as_pg $PGBIN/pgbench -h "$DB" -U postgres -i -s 5 postgres >/dev/null 2>&1 || { echo "pgbench -i failed"; exit 1; }
bench() { as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -S -c 4 -j 2 -T 10 postgres 2>/dev/null |
	sed -n 's/^tps = \([0-9.]*\) .*/\1/p'; }
run() {	# run MODE: one pgbench run, its tps on stdout
	local rec=
	case $1 in
	record) $MT record -p $postmaster -e page-faults -o "$tmp/t.mtrace" --force 2>"$tmp/rec.err" & rec=$! ;;
	record+mark) $MT record -p $postmaster -e page-faults --mark postgres:query__start \
		-o "$tmp/t.mtrace" --force 2>"$tmp/rec.err" & rec=$! ;;
	esac
	if [ -n "$rec" ]; then
		for _ in $(seq 200); do grep -q "attached to" "$tmp/rec.err" && break; sleep 0.05; done
	fi
	bench
	if [ -n "$rec" ]; then
		kill -INT $rec
		wait $rec
		[ "$1" = record+mark ] && $MT report "$tmp/t.mtrace" --by-span --json 2>/dev/null |
			/usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["spans"], file=sys.stderr)' \
			2>>"$tmp/spans"
	fi
}
bench >/dev/null	# warm the buffers
for i in $(seq "$reps"); do
	for m in none record record+mark; do
		echo "$m $(run $m)" >>"$tmp/tps"
	done
done
med() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '%-12s %10s   %s\n' mode "median tps" "runs"
for m in none record record+mark; do
	printf '%-12s %10s   %s\n' $m "$(awk -v m=$m '$1==m {print $2}' "$tmp/tps" | med)" \
		"$(awk -v m=$m '$1==m {printf "%s ", $2}' "$tmp/tps")"
done
echo "spans per record+mark run: $(tr '\n' ' ' <"$tmp/spans")"
