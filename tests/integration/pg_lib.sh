# pg_lib.sh - a private PostgreSQL 15 (Debian's packages) for one test, sourced
# after lib.sh: its data directory under $TMP, owned by postgres (initdb
# refuses root), the server on a Unix socket in that directory only (no TCP).
#   pg_init [INITDB OPTIONS]  initdb of $DB/data (default: -A trust)
#   pg_start [SERVER OPTIONS] pg_ctl start, -c options added to the private
#                             socket's; sets $postmaster
#   pg_stop                   an immediate stop, for the test's EXIT trap
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

pg_start() {
	as_pg $PGBIN/pg_ctl -D "$DB/data" -l "$DB/log" -w -t 30 \
		-o "-c listen_addresses='' -c unix_socket_directories='$DB' $*" start >/dev/null ||
		fail "server did not start: $(tail -3 "$DB/log")"
	postmaster=$(head -1 "$DB/data/postmaster.pid")
}

pg_stop() {
	as_pg $PGBIN/pg_ctl -D "$DB/data" -m immediate stop >/dev/null 2>&1
}
