# pg_lib.sh - a private PostgreSQL 15 (Debian's packages) for one test, sourced
# after lib.sh: its data directory under $TMP, owned by postgres (initdb
# refuses root), the server on a Unix socket in that directory only (no TCP).
#   pg_init [INITDB OPTIONS]  initdb of $DB/data (default: -A trust)
#   pg_start [SERVER OPTIONS] pg_ctl start, -c options added to the private
#                             socket's; sets $postmaster
#   pg_restart [SERVER OPTIONS] pg_ctl restart (fast), the same way; sets
#                             $postmaster
#   pg_stop                   an immediate stop, for the test's EXIT trap
#   pg_sort_bench SCALE       pgbench -i -s SCALE, then $DB/sort.sql: a key
#                             look-up and a 60 000-row sort in work_mem per
#                             transaction (pgbench -f "$DB/sort.sql")
#   as_pg CMD...              CMD as the postgres user, from /
PGBIN=/usr/lib/postgresql/15/bin
DB="$TMP/pg"
postmaster=

as_pg() { (cd / && runuser -u postgres -- "$@"); }

pg_init() {
	[ -x $PGBIN/postgres ] || fail "PostgreSQL 15 is not installed (tools/deps/postgres.txt)"
	id postgres >/dev/null 2>&1 || fail "no postgres user (package postgresql-15)"
	chmod 755 "$TMP"
	mkdir "$DB" && chown postgres: "$DB" || fail "cannot make $DB"
	[ $# -gt 0 ] || set -- -A trust
	as_pg $PGBIN/initdb -D "$DB/data" "$@" -U postgres >"$TMP/initdb.log" 2>&1 ||
		fail "initdb failed: $(tail -3 "$TMP/initdb.log")"
}

# pg_ctl VERB [SERVER OPTIONS...]: start or restart on the private socket
pg_ctl_run() {
	local verb=$1 mode=()
	shift
	[ "$verb" = restart ] && mode=(-m fast)
	as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 "${mode[@]}" \
		-o "-c listen_addresses='' -c unix_socket_directories='$DB' $*" "$verb" >/dev/null ||
		fail "server did not $verb: $(tail -3 "$DB/log")"
	postmaster=$(head -1 "$DB/data/postmaster.pid")
}
pg_start() { pg_ctl_run start "$@"; }
pg_restart() { pg_ctl_run restart "$@"; }

pg_sort_bench() {
	as_pg $PGBIN/pgbench -h "$DB" -U postgres -i -s "$1" postgres >"$TMP/init.log" 2>&1 ||
		fail "pgbench -i failed: $(tail -3 "$TMP/init.log")"
	cat >"$DB/sort.sql" <<SQL
\\set aid random(1, $(($1 * 100000)))
SET work_mem = '32MB';
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT count(*) FROM (SELECT g FROM generate_series(1, 60000) g ORDER BY md5(g::text)) s;
SQL
	chown postgres: "$DB/sort.sql"
}

pg_stop() {
	as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1
}
