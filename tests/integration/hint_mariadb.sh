#!/bin/bash
# MariaDB (InnoDB; a multi-threaded server) under sysbench oltp_read_only
# over T tables x R rows with uniform keys, warm: the hint-fault recording of
# the server sees pages re-accessed (kind hint: no page-fault recording can
# see those), and a page-fault recording of the same server sees under 10 %
# of the InnoDB data (first touches of memory the server allocates
# meanwhile: 0-31 pages on a quiet machine, 110-154 under CI load).  How
# many pages the hint faults see depends on when the scanner reaches the
# buffer pool: 23-1 450 measured, 59 on a loaded machine, so the test asks
# for some, not for a count the kernel does not promise.  Only a lower
# bound of the data read: since Linux 6.4 the
# scanner skips mappings the scanning thread has not hint-faulted on lately
# (pid_inactive), so after its first passes it rarely unmaps the buffer pool
# (docs/memtracectl.md, "Hint faults").  The server runs as the test (root)
# on a Unix socket in a temp datadir, with the thread pool (the workers that
# read the buffer pool are the threads that scan it), and is killed at the
# end (its data is thrown away).  Over 60 s, each 10 s window's WSS is
# within 20 % of the InnoDB data or flagged blind (the windows after the
# scanner's first two sweeps are).
. "$(dirname "$0")/lib.sh"
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null &&
	command -v sysbench >/dev/null ||
	skip mariadb "no mariadbd/mariadb-install-db/sysbench (tools/deps/mariadb.txt)"
[ -w /proc/sys/kernel/numa_balancing ] || skip numa-balancing "no writable numa_balancing (root and CONFIG_NUMA_BALANCING)"
T=4 R=50000
SOCK=$TMP/mysqld.sock
DB=(--db-driver=mysql --mysql-socket="$SOCK" --mysql-user=root --tables=$T --table-size=$R)
mariadb-install-db --no-defaults --user=root --datadir="$TMP/data" --auth-root-authentication-method=socket \
	--skip-test-db >"$TMP/install.log" 2>&1 || fail "mariadb-install-db failed: $(tail -3 "$TMP/install.log")"
mariadbd --no-defaults --user=root --datadir="$TMP/data" --socket="$SOCK" --skip-networking \
	--pid-file="$TMP/mysqld.pid" --log-error="$TMP/mysqld.err" --innodb-buffer-pool-size=256M \
	--innodb-log-file-size=64M --skip-log-bin --innodb-flush-log-at-trx-commit=0 \
	--thread-handling=pool-of-threads --thread-pool-size=2 2>>"$TMP/mysqld.err" &
mpid=$!
disown $mpid	# killed at the end: no job report
bench=
stop() {	# the benchmark, then the server (killed: its data goes with TMP)
	[ -n "$bench" ] && kill $bench 2>/dev/null
	kill -KILL $mpid 2>/dev/null && timeout 10 tail --pid=$mpid -f /dev/null
	rm -rf "$TMP"
}
trap stop EXIT
for _ in $(seq 300); do [ -S "$SOCK" ] && break; kill -0 $mpid 2>/dev/null || break; sleep 0.05; done
[ -S "$SOCK" ] || fail "mariadbd did not start: $(tail -3 "$TMP/mysqld.err")"
mariadb -S "$SOCK" -u root -e 'CREATE DATABASE sbtest' || fail "CREATE DATABASE failed"
sysbench oltp_read_only "${DB[@]}" --threads=2 prepare >"$TMP/prepare.log" 2>&1 ||
	fail "sysbench prepare failed: $(tail -3 "$TMP/prepare.log")"
data=$(mariadb -S "$SOCK" -u root -N -e "SELECT SUM(data_length + index_length) FROM
	information_schema.tables WHERE table_schema = 'sbtest'")
sysbench oltp_read_only "${DB[@]}" --threads=4 --rand-type=uniform --time=75 run >"$TMP/run.log" 2>&1 &
bench=$!
sleep 2
"$MT" record -e hint-faults -p $mpid --duration 60 -o "$TMP/h.mtrace" 2>"$TMP/h.err" ||
	fail "hint-faults record failed: $(cat "$TMP/h.err")"
"$MT" record -e page-faults -p $mpid --duration 5 -o "$TMP/p.mtrace" 2>"$TMP/p.err" ||
	fail "page-faults record failed: $(cat "$TMP/p.err")"
"$MT" dump "$TMP/h.mtrace" >"$TMP/h.csv" && "$MT" dump "$TMP/p.mtrace" >"$TMP/p.csv" || fail "dump failed"
hint=$($PY "$TOP/tests/integration/check_db_wss.py" "$TMP/h.csv" 2)
pf=$($PY "$TOP/tests/integration/check_db_wss.py" "$TMP/p.csv")
want=$((data / 4096))
echo "mariadb $T x $R rows: InnoDB data+index $((data >> 20)) MiB = $want pages; hint faults saw $hint pages" \
	"($((hint * 4)) KiB) in 60 s, page faults $pf pages in 5 s"
[ "$hint" -ge 1 ] || fail "hint-fault pages re-accessed: none"
[ $((pf * 10)) -le $want ] || fail "page faults saw $pf pages, more than 10 % of $want"
"$MT" report "$TMP/h.mtrace" --window 10s --series "$TMP/s.csv" >/dev/null 2>"$TMP/rep.err" ||
	fail "report --series failed: $(cat "$TMP/rep.err")"
$PY "$TOP/tests/integration/check_hint_windows.py" "$TMP/s.csv" $want || exit 1
