#!/bin/bash
# PostgreSQL under pgbench, attached as it runs: `record -p <postmaster>`
# started after the clients connected covers every client backend that
# pg_stat_activity lists.  The server runs from a temporary directory on a
# Unix socket only (no network), as the postgres user (initdb refuses root).
#
# The page-fault source sees first touches only, and a warm backend may not
# fault for seconds; so the clients run a query that sorts in a fresh
# work_mem allocation (malloc'd with mmap and freed each time): every
# transaction faults, and a backend without samples was not attached.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
trap 'pg_stop; kill $bench 2>/dev/null; rm -rf "$TMP"' EXIT
bench=

pg_init
pg_start -c shared_buffers=16MB
psql() { as_pg $PGBIN/psql -h "$DB" -U postgres -d postgres -XAtq "$@"; }
pg_sort_bench 2
as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -c 4 -j 2 -T 25 -f "$DB/sort.sql" postgres \
	>"$TMP/bench.log" 2>&1 &
bench=$!
q="SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY pid"
for _ in $(seq 100); do [ "$(psql -c "$q" | wc -l)" = 4 ] && break; sleep 0.1; done
psql -c "$q" >"$TMP/before"
[ "$(wc -l <"$TMP/before")" = 4 ] || fail "pgbench clients did not connect: $(cat "$TMP/bench.log")"

"$MT" record -p $postmaster -d 5 -o "$TMP/pg.mtrace" 2>"$TMP/rec.err" ||
	fail "record failed: $(cat "$TMP/rec.err")"
psql -c "$q" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" || fail "the clients' backends changed: $(cat "$TMP/before" "$TMP/after")"
grep -q "attached to [0-9]* processes, [0-9]* threads: postgres $postmaster and [0-9]* descendants" \
	"$TMP/rec.err" || fail "attach line: $(cat "$TMP/rec.err")"
"$MT" dump "$TMP/pg.mtrace" >"$TMP/pg.csv" || fail "dump failed"
$PY - "$TMP/pg.csv" "$TMP/before" $postmaster <<'PY' || exit 1
import csv, sys
from collections import Counter
per_pid = Counter(int(r["pid"]) for r in csv.DictReader(open(sys.argv[1])))
backends = [int(l) for l in open(sys.argv[2]) if l.strip()]
missing = [p for p in backends if per_pid[p] < 100]
assert not missing, f"backends without (enough) samples: {missing}; samples per pid: {dict(per_pid)}"
PY
[ -n "${MT_TEST_VERBOSE:-}" ] && cat "$TMP/rec.err" "$TMP/before" && cut -d, -f2 "$TMP/pg.csv" | sort | uniq -c
kill $bench 2>/dev/null
wait $bench 2>/dev/null
exit 0
