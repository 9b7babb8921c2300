#!/bin/bash
# Redis GET throughput untraced and under each perf source: a warm Redis
# (100 000 keys x 1 KiB, unix socket) under redis-benchmark -t get -P 8 for
# N requests per run; medians of RUNS (default 5) interleaved runs.  The
# recording spans the whole benchmark run (started before, SIGINT after).
# Needs root (hint-faults) and redis-server/redis-tools.
set -u
cd "$(dirname "$0")/../.." || exit 1
RUNS=${RUNS:-5} N=${N:-1000000} K=100000
MT=$PWD/build/memtracectl
command -v redis-server >/dev/null || { echo "skip: no redis-server"; exit 0; }
tmp=$(mktemp -d)
sock=$tmp/r.sock
redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --save "" --appendonly no \
	--dir "$tmp" --logfile "$tmp/log" --daemonize yes --pidfile "$tmp/pid" || exit 1
for _ in $(seq 100); do [ -s "$tmp/pid" ] && [ -S "$sock" ] && break; sleep 0.05; done
rpid=$(cat "$tmp/pid")
trap 'kill $rpid 2>/dev/null && timeout 10 tail --pid=$rpid -f /dev/null; rm -rf "$tmp"' EXIT
redis-benchmark -s "$sock" -t set -r $K -n $((6 * K)) -d 1024 -P 32 -q >/dev/null 2>&1
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for r in $(seq "$RUNS"); do
	for src in none page-faults hint-faults; do
		rec=
		if [ $src != none ]; then
			$MT record -e $src -p $rpid -o "$tmp/t.mtrace" --force 2>"$tmp/err" &
			rec=$!
			sleep 0.5
		fi
		t0=$(date +%s.%N)
		redis-benchmark -s "$sock" -t get -r $K -n $N -P 8 -q 2>/dev/null | tr '\r' '\n' |
			sed -n 's/^GET: \([0-9.]*\) requests per second.*/\1/p' | tail -1 >>"$tmp/$src.rps"
		t1=$(date +%s.%N)
		if [ -n "$rec" ]; then
			kill -INT $rec
			wait $rec
			n=$(sed -n 's/.*wrote \([0-9]*\) samples.*/\1/p' "$tmp/err")
			echo "${n:-0} / ($t1 - $t0)" | bc -l >>"$tmp/$src.sps"
		else
			echo 0 >>"$tmp/$src.sps"
		fi
	done
done
base=$(median <"$tmp/none.rps")
printf '%-12s %12s %10s %12s\n' source "GET/s" slowdown "samples/s"
for src in none page-faults hint-faults; do
	v=$(median <"$tmp/$src.rps")
	printf '%-12s %12.0f %9.2fx %12.0f\n' $src "$v" "$(echo "$base / $v" | bc -l)" "$(median <"$tmp/$src.sps")"
done
