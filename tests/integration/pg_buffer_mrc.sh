#!/bin/bash
# PostgreSQL buffer sizing from one recording (docs/sizing.md, "Database
# buffer pools"): `record -e buffer-requests -p <postmaster>` at
# shared_buffers=512MB under pgbench with exponentially skewed keys, then
# `report --mrc --for-size 64M,128M,256M` predicts the pool's hit ratio at
# each size.  Checked against the server itself, never against memtrace:
#   - the recording holds every request: as many samples as the server's
#     own pg_stat_database counted blocks fetched (blks_hit + blks_read)
#     meanwhile, and the END chunk's hits are its blks_hit (0.5 %);
#   - the curve at the three sizes equals an LRU simulated here in Python
#     (OrderedDict) over `memtracectl dump` (the same warm-up);
#   - the prediction is within 5 percentage points of the hit ratio the
#     server measures when restarted at each size and run the same way
#     (pg_stat_database after a warm-up, counters reset).
# Refusals (-a, a program without the probes, -c) are one line each.
# About 2.5 minutes.  The last line gives predicted and measured ratios.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
trap 'pg_stop; kill $rec $bench 2>/dev/null; rm -rf "$TMP"' EXIT
rec= bench=
SCALE=30	# pgbench_accounts 3 M rows: a 456 MB database
WARM=15 RUN=15

"$MT" status 2>&1 | grep -q '^  buffers: -e buffer-requests: available' ||
	skip bpf "-e buffer-requests needs BPF: $("$MT" status 2>&1 | grep '^  buffers:')"
# refused in one line each: not one server, no probes, sampling options
expect_error "records one database server" "$MT" record -e buffer-requests -a -o "$TMP/x.mtrace"
expect_error "has no USDT probe postgresql:buffer__read__start" \
	"$MT" record -e buffer-requests -o "$TMP/x.mtrace" -- /bin/true
expect_error "-c and --random-period do not apply" \
	"$MT" record -e buffer-requests -c 10 -o "$TMP/x.mtrace" -- /bin/true
[ ! -e "$TMP/x.mtrace" ] || fail "a refused recording wrote $TMP/x.mtrace"
pg_init
pg_start -c shared_buffers=512MB -c autovacuum=off
psql() { as_pg $PGBIN/psql -h "$DB" -U postgres -d postgres -XAtq "$@"; }
as_pg $PGBIN/pgbench -h "$DB" -U postgres -i -s $SCALE postgres >"$TMP/init.log" 2>&1 ||
	fail "pgbench -i failed: $(tail -3 "$TMP/init.log")"
cat >"$DB/skew.sql" <<SQL
\\set aid random_exponential(1, $((SCALE * 100000)), 8)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL
chown postgres: "$DB/skew.sql"
bench() {	# bench SECONDS
	as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -c 4 -j 2 -T "$1" -f "$DB/skew.sql" postgres \
		>>"$TMP/bench.log" 2>&1 || fail "pgbench failed: $(tail -3 "$TMP/bench.log")"
}
fetched() {	# blocks fetched and hit, all databases (shared catalogs too)
	psql -c "SELECT sum(blks_hit + blks_read), sum(blks_hit) FROM pg_stat_database"
}

# the recording at 512 MB, warm
bench $WARM
"$MT" record -e buffer-requests -p $postmaster -o "$TMP/b.mtrace" 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/b.mtrace" 1 || fail "no trace: $(cat "$TMP/rec.err")"
sleep 0.5
before=$(fetched)
bench 25
sleep 1.5	# the clients' backends have exited and flushed their counts
after=$(fetched)
kill -INT $rec
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
rec=
grep -q "shared-buffer requests recorded" "$TMP/rec.err" || fail "summary: $(cat "$TMP/rec.err")"

"$MT" dump --meta "$TMP/b.mtrace" >"$TMP/b.csv" || fail "dump failed"
"$MT" report "$TMP/b.mtrace" --mrc-warmup 10s --for-size 64M,128M,256M --json >"$TMP/b.json" ||
	fail "report --mrc failed"

# measured: the server at each size, run the same way
for size in 64 128 256; do
	pg_restart -c shared_buffers=${size}MB -c autovacuum=off
	bench $WARM
	psql -c "SELECT pg_stat_reset()" >/dev/null
	bench $RUN
	sleep 1.5
	echo "$size $(psql -c "SELECT blks_hit, blks_read FROM pg_stat_database WHERE datname = 'postgres'")" \
		>>"$TMP/measured"
done

$PY - "$TMP/b.csv" "$TMP/b.json" "$TMP/measured" "$before" "$after" <<'PY' || exit 1
import json, sys
from collections import OrderedDict
csv, js, meas, before, after = sys.argv[1:]
start = end_meta = None
times, addrs = [], []
for line in open(csv):      # dump --meta: "key=value" lines of the header and end, maps, rows
    k, eq, v = line.strip().partition("=")
    if eq and "," not in line:
        if k == "start_time":
            start = int(v)
        elif k in ("buffer_hits", "buffer_misses"):
            end_meta = dict(end_meta or {}, **{k: int(v)})
        continue
    f = line.split(",", 5)
    if len(f) < 6 or not f[0].isdigit():
        continue
    times.append(int(f[0]))
    addrs.append(int(f[4], 16) >> 13)
assert start is not None and end_meta, "dump --meta: no start_time or buffer_hits"
b_fetch, b_hit = map(int, before.split("|"))
a_fetch, a_hit = map(int, after.split("|"))
fetch, hit = a_fetch - b_fetch, a_hit - b_hit
n = len(addrs)
assert abs(n - fetch) <= 0.005 * fetch + 500, f"{n} requests recorded, the server counted {fetch}"
assert abs(end_meta["buffer_hits"] - hit) <= 0.005 * hit + 500, \
    f"END buffer_hits {end_meta['buffer_hits']}, the server's blks_hit {hit}"

# the curve at each size = an LRU simulated here, with the same warm-up
rep = json.load(open(js))
pred = {e["bytes"]: e["hit_ratio"] for e in rep["mrc_info"]["for_sizes"]}
warm_end = start + 10 * 10**9
first = next(i for i, t in enumerate(times) if t >= warm_end)
for mb in (64, 128, 256):
    cap = mb * 128
    lru, hits = OrderedDict(), 0
    for i, a in enumerate(addrs):
        if a in lru:
            lru.move_to_end(a)
            hits += i >= first
        else:
            lru[a] = None
            if len(lru) > cap:
                lru.popitem(last=False)
    sim = hits / (n - first)
    assert abs(sim - pred[mb << 20]) <= 5e-7, f"{mb} MB: report (6 decimals) {pred[mb << 20]}, LRU here {sim}"

gaps = []
for line in open(meas):
    mb, counts = line.split()
    h, r = map(int, counts.split("|"))
    m = h / (h + r)
    p = pred[int(mb) << 20]
    gaps.append(f"{mb}M predicted {p:.4f} measured {m:.4f}")
    assert abs(p - m) <= 0.05, f"{mb} MB: predicted hit ratio {p:.4f}, measured {m:.4f}"
print(f"{n} requests (server: {fetch}); " + ", ".join(gaps))
PY
