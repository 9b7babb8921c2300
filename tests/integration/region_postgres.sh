#!/bin/bash
# report --region "Buffer Blocks" on a real PostgreSQL 15: the server runs
# from a temporary directory on its own Unix socket (no network) with
# Debian's default local authentication, peer, so only the postgres OS user
# gets in as role postgres; tools/pg-shmem-labels, run as root (the test),
# must connect as that user.  The page-fault recording of the postmaster
# and its backends (connected before: -p covers descendants) under a
# select-only pgbench is then reported with --labels and --region "Buffer
# Blocks", and the pages the report counts in the region must equal an
# independent count from `memtracectl dump`: distinct pages of the shared
# segment (every backend maps it at the postmaster's address, checked) in
# [segment + off, + allocated_size) of the Buffer Blocks row of
# pg_shmem_allocations read here with psql, whole run and per 1 s window.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
[ "$(id -u)" = 0 ] || fail "needs root (pg-shmem-labels as root under peer authentication)"
trap 'pg_stop; kill $bench 2>/dev/null; rm -rf "$TMP"' EXIT
bench=

pg_init --auth-local=peer --auth-host=reject
pg_start -c port=54391 -c shared_buffers=32MB
psql() { as_pg $PGBIN/psql -h "$DB" -p 54391 -U postgres -d postgres -XAtq "$@"; }
# peer authentication: root has no way in (the reason for pg-shmem-labels' runuser)
if $PGBIN/psql -h "$DB" -p 54391 -U postgres -d postgres -XAtqc 'SELECT 1' >/dev/null 2>&1; then
	fail "root connected as postgres: the server does not use peer authentication"
fi

# the labels as root, with no pid (postmaster.pid from data_directory) and with -p
PSQL=$PGBIN/psql "$TOP/tools/pg-shmem-labels" -o "$TMP/pg.labels" -- -h "$DB" -p 54391 -d postgres \
	2>"$TMP/labels.err" || fail "pg-shmem-labels as root failed: $(cat "$TMP/labels.err")"
PSQL=$PGBIN/psql "$TOP/tools/pg-shmem-labels" -p $postmaster -- -h "$DB" -p 54391 -d postgres \
	>"$TMP/pg2.labels" 2>"$TMP/labels.err" || fail "pg-shmem-labels -p failed: $(cat "$TMP/labels.err")"
cmp -s "$TMP/pg.labels" "$TMP/pg2.labels" || fail "the two label files differ"
grep -q " Buffer Blocks$" "$TMP/pg.labels" || fail "no Buffer Blocks label: $(cat "$TMP/pg.labels")"
psql -F ' ' -c "SELECT off, allocated_size FROM pg_shmem_allocations WHERE name = 'Buffer Blocks'" \
	>"$TMP/bb" || fail "pg_shmem_allocations"

as_pg $PGBIN/pgbench -h "$DB" -p 54391 -U postgres -i -s 4 postgres >"$TMP/init.log" 2>&1 ||
	fail "pgbench -i failed: $(tail -3 "$TMP/init.log")"
as_pg $PGBIN/pgbench -h "$DB" -p 54391 -U postgres -n -S -c 3 -j 1 -T 30 postgres \
	>"$TMP/bench.log" 2>&1 &
bench=$!
q="SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY pid"
for _ in $(seq 100); do [ "$(psql -c "$q" | wc -l)" = 3 ] && break; sleep 0.1; done
psql -c "$q" >"$TMP/backends"
[ "$(wc -l <"$TMP/backends")" = 3 ] || fail "pgbench clients did not connect: $(cat "$TMP/bench.log")"
# the segment in each process (independent of the tool): the postmaster's
# largest shared /dev/zero mapping, the same range in every backend
for p in $postmaster $(cat "$TMP/backends"); do
	awk '$2 ~ /s$/ && $6 == "/dev/zero" {split($1, a, "-"); print a[1], a[2]}' /proc/$p/maps |
		sort | tail -1 >"$TMP/seg.$p"
	cmp -s "$TMP/seg.$p" "$TMP/seg.$postmaster" ||
		fail "backend $p maps the segment elsewhere: $(cat "$TMP/seg.$p" "$TMP/seg.$postmaster")"
done

"$MT" record -e page-faults -p $postmaster -d 6 --labels "$TMP/pg.labels" -o "$TMP/pg.mtrace" \
	2>"$TMP/rec.err" || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/pg.mtrace" --region "Buffer Blocks" --window 1s --json >"$TMP/r.json" \
	2>"$TMP/rep.err" || fail "report --region failed: $(cat "$TMP/rep.err")"
"$MT" report "$TMP/pg.mtrace" --region "Buffer Blocks" --window 1s --series "$TMP/s.csv" \
	>"$TMP/r.txt" 2>&1 || fail "report --series failed: $(cat "$TMP/r.txt")"
grep -q 'pages first touched in region "Buffer Blocks" (' "$TMP/r.txt" ||
	fail "no region line: $(head -15 "$TMP/r.txt")"
expect_error 'no label of that name (labels: ' "$MT" report "$TMP/pg.mtrace" --region "No such area"
"$MT" dump "$TMP/pg.mtrace" >"$TMP/pg.csv" || fail "dump failed"
t0=$("$MT" dump --meta "$TMP/pg.mtrace" | sed -n 's/^start_time=//p' | head -1)
$PY - "$TMP/pg.csv" "$TMP/seg.$postmaster" "$TMP/bb" "$TMP/r.json" "$TMP/s.csv" "$t0" <<'PY' || exit 1
import csv, json, sys
lo, hi = (int(x, 16) for x in open(sys.argv[2]).read().split())
off, size = (int(x) for x in open(sys.argv[3]).read().split())
a, b = lo + off, min(lo + off + size, hi)
rep = json.load(open(sys.argv[4]))
rows = list(csv.DictReader(open(sys.argv[1])))
# the trace starts before its first sample (the events of -p targets run
# from their attach: the start is taken before it)
early = [r for r in rows if int(r["time"]) < int(sys.argv[6])]
assert not early, "%d samples before start_time %s: %s" % (len(early), sys.argv[6], early[:2])
pages, pids, per_window = set(), set(), {}
inside = 0
for r in rows:
    addr = int(r["addr"], 0)
    if a <= addr < b:
        pages.add((addr - lo) // 4096)
        pids.add(int(r["pid"]))
        inside += 1
got = rep["wss_data"]["total"]
print("Buffer Blocks: %d bytes at +%#x of a %d-byte segment; %d of %d samples inside, from %d processes; "
      "distinct pages %d, report %d, region bytes %d" % (size, off, hi - lo, inside, len(rows), len(pids),
                                                       len(pages), got, rep["region"]["bytes"]))
assert rep["region"]["name"] == "Buffer Blocks"
assert rep["region"]["bytes"] == b - a, (rep["region"]["bytes"], b - a)
assert len(pages) >= 100, "too few Buffer Blocks pages faulted to test anything: %d" % len(pages)
assert got == len(pages), (got, len(pages))
assert rep["hot_data"] and all(h["location"].startswith("Buffer Blocks+") for h in rep["hot_data"])
# per window: the series' rows (1 s) against the dump's times
lines = open(sys.argv[5]).read().splitlines()
assert lines[0].startswith('# pages first touched in region "Buffer Blocks"'), lines[0]
series = {int(r["time"]): int(r["wss_data"]) for r in csv.DictReader(lines[1:])}
t0 = int(sys.argv[6])
want = {}
for r in rows:
    addr, t = int(r["addr"], 0), int(r["time"])
    if a <= addr < b:
        k = -(-(t - t0) // 10**9) * 10**9     # the window (kT - 1 s, kT] holding t
        want.setdefault(k, set()).add((addr - lo) // 4096)
want = {k: len(v) for k, v in want.items()}
assert series == want, (series, want)
PY
exit 0
