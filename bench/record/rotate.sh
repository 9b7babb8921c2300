#!/bin/bash
# bench/record/rotate.sh - a long rotating recording (issue 32, "Run for
# days on a fleet"): pageramp (PAGES pages, GAP ms between cycles: a steady
# page-fault stream) recorded for DURATION seconds (default 600) by two
# collectors at once, both attached with -p before it starts and both ended
# by its exit:
#   rot     memtracectl record --switch-output SWITCH (default 1min)
#           --max-files MAXF (default 3)
#   single  memtracectl record, one file
# Every 10 s: each collector's RSS (VmRSS) and the rotating recording's
# files on disk (bytes); every second, each file the recording finished is
# read (report must read it, END samples kept) before --max-files removes it.
# Prints: files made, each readable, total samples of the files vs the
# single file's (and their lost counts), RSS min/max of each collector over
# the run after the first minute, peak disk vs MAXF x the largest file.
# Figures: docs/performance.md, "Long recordings".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
MT=${MT:-build/memtracectl} WLB=build/workloads/pageramp
duration=${DURATION:-600} switch=${SWITCH:-1min} maxf=${MAXF:-3}
pages=${PAGES:-4096} gap=${GAP:-20}
[ -x $MT ] && [ -x $WLB ] || { echo "bench/record/rotate: build first (make all)"; exit 1; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
export MEMTRACE_BACKEND=${MEMTRACE_BACKEND:-perf}

$WLB -n $pages -c 100000000 -g $gap -w >"$tmp/wl.out" &
wl=$!
for _ in $(seq 100); do [ -s "$tmp/wl.out" ] && break; sleep 0.05; done
$MT record -p $wl -e page-faults -c 1 --switch-output "$switch" --max-files $maxf \
	-o "$tmp/rot.mtrace" 2>"$tmp/rot.err" &
rot=$!
$MT record -p $wl -e page-faults -c 1 -o "$tmp/single.mtrace" 2>"$tmp/single.err" &
single=$!
sleep 2
kill -USR1 $wl
rss() { awk '$1 == "VmRSS:" { print $2 }' /proc/$1/status 2>/dev/null; }
declare -A done_samples done_ok
read_done() {	# every file but the newest: finished; read it once
	local files f
	files=$(ls "$tmp"/rot.mtrace.* 2>/dev/null | grep -v '\.old$')
	for f in $files; do
		[ "$f" = "$(echo "$files" | tail -1)" ] && [ "${1:-}" != all ] && continue
		[ -n "${done_samples[$f]:-}" ] && continue
		done_samples[$f]=$($MT dump --meta "$f" | sed -n 's/^samples=//p')
		$MT report "$f" >/dev/null 2>&1 && $MT dump "$f" 2>/dev/null | tail -n +2 | wc -l \
			>"$tmp/rows" && done_ok[$f]=$(cat "$tmp/rows")
	done
}
t0=$(date +%s)
echo "t_s rot_rss_kb single_rss_kb rot_disk_bytes" >"$tmp/series"
next=10
while [ $(( $(date +%s) - t0 )) -lt $duration ]; do
	sleep 1
	read_done	# each second: a file is read before --max-files removes it
	[ $(( $(date +%s) - t0 )) -ge $next ] || continue
	next=$((next + 10))
	disk=$(cat "$tmp"/rot.mtrace.* 2>/dev/null | wc -c)
	echo "$(( $(date +%s) - t0 )) $(rss $rot) $(rss $single) $disk" >>"$tmp/series"
done
kill $wl
wait $rot || echo "rot recording failed: $(cat "$tmp/rot.err")"
wait $single || echo "single recording failed: $(cat "$tmp/single.err")"
read_done all
cat "$tmp/series"
single_n=$($MT dump --meta "$tmp/single.mtrace" | sed -n 's/^samples=//p')
single_lost=$($MT dump --meta "$tmp/single.mtrace" | sed -n 's/^lost=//p')
rot_lost=0
for f in "$tmp"/rot.mtrace.*; do
	rot_lost=$((rot_lost + $($MT dump --meta "$f" | sed -n 's/^lost=//p')))
done
total=0 bad=0 n=0 largest=0
for f in "${!done_samples[@]}"; do
	n=$((n + 1))
	total=$((total + done_samples[$f]))
	[ "${done_ok[$f]:-x}" = "${done_samples[$f]}" ] || { bad=$((bad + 1)); echo "unreadable or short: $f"; }
done
for f in "$tmp"/rot.mtrace.*; do
	s=$(stat -c %s "$f"); [ $s -gt $largest ] && largest=$s
done
echo "files made: $n ($bad not readable or rows != END samples); left on disk: $(ls "$tmp"/rot.mtrace.* | wc -l) (--max-files $maxf)"
echo "samples: rotating files $total (lost $rot_lost), single file $single_n (lost $single_lost)"
awk -v a=$total -v b=$single_n 'BEGIN { printf "difference: %+.4f %%\n", b ? 100 * (a - b) / b : 0 }'
awk -v skip=$(( duration > 120 ? 60 : 0 )) 'NR > 1 && $1 >= skip { if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2; if (!m++ || $3 < slo) slo = $3; if ($3 > shi) shi = $3; if ($4 > d) d = $4 }
     END { printf "RSS (after the first minute of a long run): rot %d..%d kB, single %d..%d kB; peak disk of rot %d bytes\n", lo, hi, slo, shi, d }' "$tmp/series"
echo "single file: $(stat -c %s "$tmp/single.mtrace") bytes"
echo "disk budget: $maxf x largest file $largest = $((maxf * largest)) bytes (one file being written beside them may add one more)"
