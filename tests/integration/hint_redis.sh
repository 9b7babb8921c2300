#!/bin/bash
# A warm Redis under redis-benchmark -t get over K keys x V bytes: the
# hint-fault recording sees the pages of the data set (within 20 % of
# Redis's used_memory), where a page-fault recording sees a few per cent.
# Over 60 s of steady load, each 10 s window's WSS (report --series) is
# within 20 % of used_memory too, or flagged blind (no whole NUMA scan
# sweep in it).  (Since Linux 6.4 the scanner sweeps a process twice and
# then only the mappings its scanning thread faulted on lately: here two
# sweeps in 60 s, one each in the first two windows, each holding all of
# the data set; the report cannot see a sweep's start, only the advance of
# numa_scan_seq at its end, so neither window is known to hold a whole
# sweep and all six are flagged.)
. "$(dirname "$0")/lib.sh"
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	skip redis "no redis-server/redis-benchmark (tools/deps/redis.txt)"
[ -w /proc/sys/kernel/numa_balancing ] || skip numa-balancing "no writable numa_balancing (root and CONFIG_NUMA_BALANCING)"
K=100000 V=1024
SOCK=$TMP/redis.sock
redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --save "" --appendonly no \
	--dir "$TMP" --logfile "$TMP/redis.log" --daemonize yes --pidfile "$TMP/redis.pid" ||
	fail "redis-server did not start"
for _ in $(seq 100); do [ -s "$TMP/redis.pid" ] && [ -S "$SOCK" ] && break; sleep 0.05; done
rpid=$(cat "$TMP/redis.pid")
bench=
stop() {	# the benchmark, then the server (waited for: it removes its socket), then TMP
	[ -n "$bench" ] && kill $bench 2>/dev/null
	kill $rpid 2>/dev/null && timeout 10 tail --pid=$rpid -f /dev/null
	rm -rf "$TMP"
}
trap stop EXIT
# warm: 6 K random SETs cover all but ~0.25 % of the K keys
redis-benchmark -s "$SOCK" -t set -r $K -n $((6 * K)) -d $V -P 32 -q >/dev/null 2>&1 ||
	fail "redis-benchmark set failed"
used=$(redis-cli -s "$SOCK" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
keys=$(redis-cli -s "$SOCK" dbsize)
redis-benchmark -s "$SOCK" -t get -r $K -n 1000000000 -P 8 -q >/dev/null 2>&1 &
bench=$!
sleep 1
"$MT" record -e hint-faults -p $rpid --duration 60 -o "$TMP/h.mtrace" 2>"$TMP/h.err" ||
	fail "hint-faults record failed: $(cat "$TMP/h.err")"
"$MT" record -e page-faults -p $rpid --duration 5 -o "$TMP/p.mtrace" 2>"$TMP/p.err" ||
	fail "page-faults record failed: $(cat "$TMP/p.err")"
"$MT" dump "$TMP/h.mtrace" >"$TMP/h.csv" && "$MT" dump "$TMP/p.mtrace" >"$TMP/p.csv" || fail "dump failed"
hint=$($PY "$TOP/tests/integration/check_db_wss.py" "$TMP/h.csv" 2)
pf=$($PY "$TOP/tests/integration/check_db_wss.py" "$TMP/p.csv")
want=$((used / 4096))
echo "redis $keys keys x $V B: used_memory $((used >> 20)) MiB = $want pages; hint faults saw $hint pages" \
	"($((hint * 4 >> 10)) MiB) in 60 s, page faults $pf pages in 5 s"
[ $((hint * 10)) -ge $((want * 8)) ] && [ $((hint * 10)) -le $((want * 12)) ] ||
	fail "hint-fault pages $hint not within 20 % of $want"
[ $((pf * 10)) -le $want ] || fail "page faults saw $pf pages, more than 10 % of $want"
"$MT" report "$TMP/h.mtrace" --window 10s --series "$TMP/s.csv" >/dev/null 2>"$TMP/rep.err" ||
	fail "report --series failed: $(cat "$TMP/rep.err")"
$PY "$TOP/tests/integration/check_hint_windows.py" "$TMP/s.csv" $want || exit 1
