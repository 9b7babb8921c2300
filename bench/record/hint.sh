#!/bin/bash
# bench/record/hint.sh [REPS] - the hint-fault stream next to perf record:
# build/workloads/hintsets (2 threads re-reading PAGES private pages, default
# 65536, for SECONDS, default 8; NUMA balancing unmaps them every scan and
# each re-read takes a hint fault) recorded at period 1, attached with -p
# before the workload starts (it waits for SIGUSR1), so GNU time counts the
# recorder alone.  Modes, interleaved, REPS runs each (default 5), medians:
#   mt-perf    memtracectl record --backend perf -e hint-faults -c 1 -p PID
#   mt-bpf     memtracectl record --backend bpf  -e hint-faults -c 1 -p PID
#   perf       perf record -e page-faults -c 1 -d -p PID (the page-fault
#              event sees hint faults while numa_balancing is 1)
#   old-perf, old-bpf   the mt- modes with $MT_OLD (another build's
#              memtracectl, e.g. of the commit before a change: side by side)
#   perf-tp    perf record -e exceptions:page_fault_user -c 1 -p PID (the
#              tracepoint memtrace's perf backend reads: address, ip, error code)
# Collector CPU per sample: the recorder's user+sys minus its fixed cost
# (median of 3 attaches to a workload that exits at once), over the samples
# it wrote (faults: first touches of 2 x PAGES pages, then hint faults).
# Needs root and CONFIG_NUMA_BALANCING; /proc/sys/kernel/numa_balancing is
# set to 1 around the perf modes (memtracectl does it itself) and restored
# on every exit path.  Figures: docs/performance.md, "Recording".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-${REPS:-5}}
pages=${PAGES:-65536} secs=${SECONDS_RUN:-8}
modes=${MODES:-"mt-perf mt-bpf perf perf-tp"}
MT=${MT:-build/memtracectl} HS=build/workloads/hintsets MT_OLD=${MT_OLD:-}
[ -x $MT ] && [ -x $HS ] || { echo "bench/record/hint: build first (make all)"; exit 1; }
case " $modes " in *" old-"*) [ -x "$MT_OLD" ] || { echo "bench/record/hint: old-* modes need MT_OLD=path/to/memtracectl"; exit 1; } ;; esac
[ -x /usr/bin/time ] || { echo "bench/record/hint: needs GNU time (/usr/bin/time)"; exit 1; }
nbf=/proc/sys/kernel/numa_balancing
[ -w $nbf ] || { echo "bench/record/hint: needs root and CONFIG_NUMA_BALANCING ($nbf)"; exit 1; }
command -v perf >/dev/null || modes=$(for m in $modes; do case $m in perf*) ;; *) echo "$m" ;; esac; done)
nb_old=$(cat $nbf)
tmp=$(mktemp -d)
trap 'echo "$nb_old" >$nbf; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

rec() {	# rec MODE PAGES SECONDS: one attached recording; GNU time into $tmp/time
	local m=$1 hs
	rm -f "$tmp/out.mtrace" "$tmp/out.data"
	$HS -w -n "$2" -t 2 -s "$3" >"$tmp/hs.out" &
	hs=$!
	while [ ! -s "$tmp/hs.out" ]; do sleep 0.05; done	# mapped, waiting for SIGUSR1
	case $m in
	mt-*|old-*) local bin=$MT
		[ "${m%%-*}" = old ] && bin=$MT_OLD
		/usr/bin/time -f "%U %S %e" -o "$tmp/time" $bin record --backend "${m#*-}" \
		-e hint-faults -c 1 -p $hs -o "$tmp/out.mtrace" --force 2>"$tmp/err" & ;;
	perf|perf-tp) echo 1 >$nbf
		local ev=page-faults opt=-d
		[ $m = perf-tp ] && ev=exceptions:page_fault_user opt=
		/usr/bin/time -f "%U %S %e" -o "$tmp/time" perf record -e $ev -c 1 $opt -p $hs \
		-o "$tmp/out.data" 2>"$tmp/err" >/dev/null & ;;
	esac
	local r=$!
	sleep 1.5	# attached (neither recorder says when; the fixed cost has the same wait)
	kill -USR1 $hs
	wait $hs
	wait $r
	echo "$nb_old" >$nbf
}
samples_of() {	# samples_of MODE: samples in the output of the last run, lost
	case $1 in
	mt-*|old-*) $MT dump --meta "$tmp/out.mtrace" | sed -n 's/^samples=//p;s/^lost=//p' | tr '\n' ' ' ;;
	perf*) echo "$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/err") $(grep -c LOST "$tmp/err")" ;;
	esac
}
for m in $modes; do	# fixed cost: a workload of one page and one second
	for i in 1 2 3; do
		rec "$m" 1 1
		read -r u s e <"$tmp/time"
		echo "$m $u $s" >>"$tmp/fixed"
	done
done
for i in $(seq "$reps"); do
	for m in $modes; do
		rec "$m" "$pages" "$secs"
		read -r u s e <"$tmp/time"
		bytes=$(stat -c %s "$tmp"/out.* | head -1)
		echo "$m $i $u $s $(samples_of "$m") $bytes $e" >>"$tmp/runs"
		[ -n "${VERBOSE:-}" ] && tail -1 "$tmp/runs" && tail -2 "$tmp/err"
	done
done
/usr/bin/python3 - "$tmp/runs" "$tmp/fixed" "$modes" "$pages" "$secs" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
modes = sys.argv[3].split()
fixed = {m: st.median((float(x[1]) + float(x[2])) * 1e9 for x in map(str.split, open(sys.argv[2]))
                      if x[0] == m) for m in modes}
print("hintsets -n %s -t 2 -s %s, %d runs per mode, medians (range)" %
      (sys.argv[4], sys.argv[5], len(rows) // len(modes)))
print("%-8s %24s %11s %9s %10s" % ("mode", "collector ns/sample", "samples", "B/sample", "lost"))
res = {}
for m in modes:
    r = [x for x in rows if x[0] == m]
    n = [int(x[4]) for x in r]
    col = [((float(x[2]) + float(x[3])) * 1e9 - fixed[m]) / int(x[4]) for x in r]
    bps = [int(x[6]) / int(x[4]) for x in r]
    res[m] = st.median(col)
    print("%-8s %10.0f (%5.0f-%5.0f) %11d %9.2f %10s" % (m, res[m], min(col), max(col),
          st.median(n), st.median(bps), max(int(x[5]) for x in r)))
print("fixed recorder cost (1-page workload, 1 s), ms: " +
      ", ".join("%s %.0f" % (m, fixed[m] / 1e6) for m in modes))
for p in ("perf", "perf-tp"):
    if p in res:
        for m in modes:
            if m.startswith(("mt-", "old-")):
                print("%s / %s: collector %.2f" % (m, p, res[m] / res[p]))
PY
