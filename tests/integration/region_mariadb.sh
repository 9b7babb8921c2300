#!/bin/bash
# report --region "InnoDB buffer pool" on a real MariaDB: the server runs as
# the test (root) from a temporary datadir on its own Unix socket (no
# network), tools/mariadb-labels names its buffer pool, and a page-fault
# recording of mariadbd while 100 000 rows go into a new table (fresh pool
# frames, first touched now) is reported with that region.  Checked: the
# pages the report counts in the region equal an independent count of the
# trace's distinct pages in the label's range (`memtracectl dump`), whole
# run and per 1 s window; they are the pool frames InnoDB took from its free
# list meanwhile (Innodb_buffer_pool_pages_free) times 4 (each 16 KiB frame
# is written whole: four 4 KiB first touches), within 10 % and a few
# descriptor pages; and samples outside the pool exist and are not counted.
. "$(dirname "$0")/lib.sh"
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null ||
	fail "no mariadbd/mariadb-install-db (tools/deps/mariadb.txt)"
[ "$(id -u)" = 0 ] || fail "needs root (mariadbd --user=root, socket authentication)"
SOCK=$TMP/mysqld.sock
mariadb-install-db --no-defaults --user=root --datadir="$TMP/data" --auth-root-authentication-method=socket \
	--skip-test-db >"$TMP/install.log" 2>&1 || fail "mariadb-install-db failed: $(tail -3 "$TMP/install.log")"
mariadbd --no-defaults --user=root --datadir="$TMP/data" --socket="$SOCK" --skip-networking \
	--pid-file="$TMP/mysqld.pid" --log-error="$TMP/mysqld.err" --innodb-buffer-pool-size=64M \
	--innodb-log-file-size=64M --skip-log-bin --innodb-flush-log-at-trx-commit=0 2>>"$TMP/mysqld.err" &
mpid=$!
disown $mpid	# killed at the end: no job report
stop() {
	kill -KILL $mpid 2>/dev/null && timeout 10 tail --pid=$mpid -f /dev/null
	rm -rf "$TMP"
}
trap stop EXIT
for _ in $(seq 300); do [ -S "$SOCK" ] && break; kill -0 $mpid 2>/dev/null || break; sleep 0.05; done
[ -S "$SOCK" ] || fail "mariadbd did not start: $(tail -3 "$TMP/mysqld.err")"
my() { mariadb -S "$SOCK" -u root -N -B "$@"; }
"$TOP/tools/mariadb-labels" -o "$TMP/pool.labels" -- -S "$SOCK" -u root 2>"$TMP/labels.err" ||
	fail "mariadb-labels failed: $(cat "$TMP/labels.err")"
read -r start size _ <<<"$(grep -v '^#' "$TMP/pool.labels")"
[ "$size" = $((64 << 20)) ] || fail "label size $size, want 64 MiB: $(cat "$TMP/pool.labels")"
free0=$(my -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_free'" | cut -f2)
"$MT" record -e page-faults -p $mpid -d 6 --labels "$TMP/pool.labels" -o "$TMP/m.mtrace" \
	2>"$TMP/rec.err" &
rec=$!
sleep 1
my -e "CREATE DATABASE r; USE r; CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(255)) ENGINE=InnoDB;
	INSERT INTO t SELECT seq, REPEAT('x', 200) FROM seq_1_to_100000" || fail "insert failed"
free1=$(my -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_free'" | cut -f2)
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/m.mtrace" --region "InnoDB buffer pool" --window 1s --json >"$TMP/r.json" \
	2>"$TMP/rep.err" || fail "report --region failed: $(cat "$TMP/rep.err")"
"$MT" report "$TMP/m.mtrace" --region "InnoDB buffer pool" --window 1s --series "$TMP/s.csv" \
	>/dev/null 2>&1 || fail "report --series failed"
"$MT" dump "$TMP/m.mtrace" >"$TMP/m.csv" || fail "dump failed"
t0=$("$MT" dump --meta "$TMP/m.mtrace" | sed -n 's/^start_time=//p' | head -1)
$PY - "$TMP/m.csv" "$start" "$size" "$TMP/r.json" "$TMP/s.csv" "$t0" "$((free0 - free1))" <<'PY' || exit 1
import csv, json, sys
a, size = int(sys.argv[2], 0), int(sys.argv[3])
rep = json.load(open(sys.argv[4]))
t0, taken = int(sys.argv[6]), int(sys.argv[7])
rows = list(csv.DictReader(open(sys.argv[1])))
pages, win = set(), {}
for r in rows:
    addr, t = int(r["addr"], 0), int(r["time"])
    if a <= addr < a + size:
        pages.add(addr // 4096)
        win.setdefault(-(-(t - t0) // 10**9) * 10**9, set()).add(addr // 4096)
got = rep["wss_data"]["total"]
print("InnoDB buffer pool %d MiB at %#x: %d of %d samples inside; distinct pages %d, report %d; "
      "frames InnoDB took from its free list meanwhile: %d (16 KiB)" % (size >> 20, a, sum(
          a <= int(r["addr"], 0) < a + size for r in rows), len(rows), len(pages), got, taken))
assert rep["region"]["name"] == "InnoDB buffer pool" and rep["region"]["bytes"] == size
assert got == len(pages), (got, len(pages))
assert taken >= 100, "InnoDB took only %d frames: the insert did not run" % taken
# each new 16 KiB frame is written whole: 4 first touches; block descriptors
# (also in the pool) may add a few (measured: 6352 pages for 1588 frames)
assert 0.9 * 4 * taken <= got <= min(4 * taken + 256, size // 4096), (taken, got)
assert len(rows) > sum(len(v) for v in win.values()), "no sample outside the pool"
lines = open(sys.argv[5]).read().splitlines()
assert lines[0].startswith('# pages first touched in region "InnoDB buffer pool"'), lines[0]
series = {int(r["time"]): int(r["wss_data"]) for r in csv.DictReader(lines[1:])}
assert series == {k: len(v) for k, v in win.items()}, (series, win)
PY
exit 0
