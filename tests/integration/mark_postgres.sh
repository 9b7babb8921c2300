#!/bin/bash
# record --mark postgres:query__start and --labels from tools/pg-shmem-labels
# on PostgreSQL 15 from Debian's packages (its binary carries USDT probes).
# The server runs from a temporary directory on a Unix socket only, as the
# postgres user.  The test runs 3 + 3 + 3 known queries in three fresh
# backends while `record -p <postmaster>` follows them: the SPANS chunk must
# hold exactly those 9 spans, labelled with the query texts' normalized form
# (constants as $n: the default for query__start), which must be the texts
# and call counts the server's own pg_stat_statements gives; and the
# scan of a table of ~2 MB (in shared buffers of 16 MB: every page gets a
# buffer) must have its samples named "Buffer Blocks".  The page-fault source
# sees the backend's first touch of each shared-buffer page it maps.
# A second recording (B: the scan once, one query dropped, one new) is
# compared with the first by span (memtracectl compare).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
trap 'kill -INT $rec 2>/dev/null; pg_stop; rm -rf "$TMP"' EXIT
rec=

pg_init
pg_start -c shared_buffers=16MB -c huge_pages=off -c shared_preload_libraries=pg_stat_statements
psql() { as_pg $PGBIN/psql -h "$DB" -U postgres -d postgres -XAtq "$@"; }
psql -c "CREATE TABLE big AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 8000) g" ||
	fail "create table failed"
psql -c "CREATE EXTENSION pg_stat_statements" || fail "no pg_stat_statements"

PSQL="$PGBIN/psql" "$TOP/tools/pg-shmem-labels" -p $postmaster -o "$TMP/pg.labels" -- \
	-h "$DB" -U postgres -d postgres || fail "pg-shmem-labels failed"
grep -q '^/dev/zero (deleted)+0x[0-9a-f]* 16777216 Buffer Blocks$' "$TMP/pg.labels" ||
	fail "no 16 MB Buffer Blocks label: $(cat "$TMP/pg.labels")"

psql -c "SELECT pg_stat_statements_reset()" >/dev/null || fail "pg_stat_statements_reset failed"
"$MT" record -p $postmaster -e page-faults --mark postgres:query__start \
	--labels "$TMP/pg.labels" -o "$TMP/pg.mtrace" 2>"$TMP/rec.err" &
rec=$!
for _ in $(seq 100); do grep -q "attached to" "$TMP/rec.err" && break; sleep 0.05; done
grep -q "attached to" "$TMP/rec.err" || fail "record did not start: $(cat "$TMP/rec.err")"
# three sessions (backends); each sleeps first, so that its maps are read
# while it lives (the collector reads them when its first samples arrive)
q0="SELECT pg_sleep(0.3)"
q1="SELECT count(*) FROM big WHERE pad <> 'y'"
q2="SELECT 40 + 2"
psql -c "$q0" -c "$q1" -c "$q2" >>"$TMP/out" || fail "queries failed"
psql -c "$q0" -c "$q1" -c "$q2" >>"$TMP/out" || fail "queries failed"
psql -c "$q0" -c "$q1" -c "SELECT 41 + 1" >>"$TMP/out" || fail "queries failed"
kill -INT $rec
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
rec=
[ "$(sort "$TMP/out" | tr '\n' ' ')" = "   42 42 42 8000 8000 8000 " ] || fail "query results: $(cat "$TMP/out")"
# the server's own normalized texts and counts (the reset call excluded)
psql -F "$(printf '\t')" -c "SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements_reset%'" \
	>"$TMP/pgss.tsv" || fail "pg_stat_statements failed"
"$MT" dump --meta "$TMP/pg.mtrace" | grep -q '^mark=.*; labels: query texts, constants as \$n$' ||
	fail "the trace does not say its labels are normalized: $("$MT" dump --meta "$TMP/pg.mtrace" | grep mark)"

"$MT" report "$TMP/pg.mtrace" --by-span --json >"$TMP/by.json" 2>"$TMP/rep.err" ||
	fail "report --by-span failed: $(cat "$TMP/rep.err")"
"$MT" report "$TMP/pg.mtrace" --span "FROM big" -n 40 --json >"$TMP/big.json" 2>"$TMP/rep.err" ||
	fail "report --span failed: $(cat "$TMP/rep.err")"
$PY - "$TMP/by.json" "$TMP/big.json" "$TMP/pgss.tsv" <<'PY' || exit 1
import json, sys
by, big = (json.load(open(p)) for p in sys.argv[1:3])
pgss = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[3]) if l.strip())
pgss = {k: int(v) for k, v in pgss.items()}
q0, q1, q2 = "SELECT pg_sleep($1)", "SELECT count(*) FROM big WHERE pad <> $1", "SELECT $1 + $2"
groups = {g["label"]: g["spans"] for g in by["by_span"]}
assert groups == pgss, f"spans per label {groups} != pg_stat_statements {pgss}"
assert groups == {q0: 3, q1: 3, q2: 3}, f"spans per label: {groups}"
assert by["spans"] == 9, by["spans"]
big_group = [g for g in by["by_span"] if g["label"] == q1][0]
assert big_group["samples"] > 0, big_group
hot = big["hot_data"]
named = [h for h in hot if h["location"].startswith("Buffer Blocks+0x")]
# the table's ~240 pages fault in each of the 3 scanning backends, one fault
# per 64 KiB (the kernel maps shared-memory pages around a read fault)
assert sum(h["count"] for h in named) >= 20, [(h["location"], h["count"]) for h in hot[:10]]
assert hot[0]["location"].startswith("Buffer Blocks+0x"), hot[:3]
PY

# B: a second recording, one session: the scan once more, q2 not at all, q3
# new.  compare A B --by-span: rows per query text with their span counts
"$MT" record -p $postmaster -e page-faults --mark postgres:query__start \
	--labels "$TMP/pg.labels" -o "$TMP/pgb.mtrace" 2>"$TMP/recb.err" &
rec=$!
for _ in $(seq 100); do grep -q "attached to" "$TMP/recb.err" && break; sleep 0.05; done
grep -q "attached to" "$TMP/recb.err" || fail "record (B) did not start: $(cat "$TMP/recb.err")"
q3="SELECT 6 * 7"
psql -c "$q0" -c "$q1" -c "$q3" >"$TMP/outb" || fail "queries (B) failed"
kill -INT $rec
wait $rec || fail "record (B) failed: $(cat "$TMP/recb.err")"
rec=
"$MT" compare "$TMP/pg.mtrace" "$TMP/pgb.mtrace" --json >"$TMP/cmp.json" 2>"$TMP/cmp.err" ||
	fail "compare failed: $(cat "$TMP/cmp.err")"
"$MT" compare "$TMP/pg.mtrace" "$TMP/pgb.mtrace" --span "FROM big" --json >"$TMP/cmpbig.json" \
	2>"$TMP/cmp.err" || fail "compare --span failed: $(cat "$TMP/cmp.err")"
$PY - "$TMP/cmp.json" "$TMP/cmpbig.json" <<'PY' || exit 1
import json, sys
c, big = (json.load(open(p)) for p in sys.argv[1:3])
q0, q1, q2 = "SELECT pg_sleep($1)", "SELECT count(*) FROM big WHERE pad <> $1", "SELECT $1 + $2"
q3 = "SELECT $1 * $2"
rows = {r["key"]: r for r in c["spans"]}
assert {k: (r["a_spans"], r["b_spans"]) for k, r in rows.items()} == \
    {q0: (3, 1), q1: (3, 1), q2: (3, 0), q3: (0, 1)}, rows
assert rows[q1]["a_touched"] > 0 and rows[q1]["b_touched"] > 0, rows[q1]
assert rows[q2]["b_touched"] == 0 and rows[q3]["a_touched"] == 0
assert rows[q3]["touched_change"] is None or rows[q3]["b_touched"] == 0, rows[q3]
assert [r["key"] for r in big["spans"]] == [q1] and (big["a_spans"], big["b_spans"]) == (3, 1), big
buf = [r for r in big["regions"] if r["key"].startswith("Buffer Blocks")]
assert len(buf) == 1 and buf[0]["a_samples"] > 0 and buf[0]["b_samples"] > 0, big["regions"][:4]
PY
[ -n "${MT_TEST_VERBOSE:-}" ] && cp "$TMP/pg.mtrace" "$TMP/pg.labels" /tmp/spans-keep/
exit 0
