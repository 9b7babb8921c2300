#!/bin/bash
# bench/record/run.sh [REPS] - the recording side next to perf record, on one
# fault loop at period 1: build/bench/fault_cost maps, writes once per page
# (fresh pages) and unmaps PAGES x ROUNDS pages (default 4096 x 200 = 819 200
# faults; the issue used 4096 x 680).  Modes, interleaved, REPS runs each
# (default 5), medians:
#   none       untraced
#   mt-perf    memtracectl record --backend perf -e page-faults -c 1
#   mt-bpf     memtracectl record --backend bpf  -e page-faults -c 1 (what
#              -e page-faults picks as root where BPF works)
#   perf       perf record -e page-faults -c 1 -d
#   old-perf, old-bpf   the mt- modes with $MT_OLD (another build's
#              memtracectl, e.g. of the commit before a change: side by side)
# CPU time, not wall time: the machine is shared.  Target: fault_cost's own
# CPU time (getrusage) minus the untraced run's of the same round, per sample.
# Collector: the recorder's user+sys (GNU time, children included) minus the
# target's and minus its fixed cost (median of 3 runs of an empty target:
# start-up, BPF verifier), per sample.  Bytes: the output file per sample.
# Figures: docs/performance.md, "Recording".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-${REPS:-5}}
pages=${PAGES:-4096} rounds=${ROUNDS:-200}
modes=${MODES:-"mt-perf mt-bpf perf"}
MT=${MT:-build/memtracectl} FC=build/bench/fault_cost MT_OLD=${MT_OLD:-}
[ -x $MT ] && [ -x $FC ] || { echo "bench/record: build first (make all)"; exit 1; }
case " $modes " in *" old-"*) [ -x "$MT_OLD" ] || { echo "bench/record: old-* modes need MT_OLD=path/to/memtracectl"; exit 1; } ;; esac
[ -x /usr/bin/time ] || { echo "bench/record: needs GNU time (/usr/bin/time)"; exit 1; }
if ! command -v perf >/dev/null; then	# no perf record to compare with
	modes=$(for m in $modes; do [ "$m" = perf ] || echo "$m"; done)
	echo "bench/record: perf not installed: memtracectl alone"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rec() {	# rec MODE TARGET...: runs it under GNU time into $tmp/time, output file $tmp/out.*
	local m=$1
	shift
	rm -f "$tmp/out.mtrace" "$tmp/out.data"
	case $m in
	mt-*|old-*) local bin=$MT
		[ "${m%%-*}" = old ] && bin=$MT_OLD
		/usr/bin/time -f "%U %S %e" -o "$tmp/time" $bin record --backend "${m#*-}" \
		-e page-faults -c 1 -o "$tmp/out.mtrace" --force -- "$@" ;;
	perf) /usr/bin/time -f "%U %S %e" -o "$tmp/time" perf record -e page-faults -c 1 -d \
		-o "$tmp/out.data" -- "$@" ;;
	esac
}
samples_of() {	# samples_of MODE: samples in the output of the last run
	case $1 in
	mt-*|old-*) $MT dump --meta "$tmp/out.mtrace" | sed -n 's/^samples=//p' ;;
	perf) sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/err" ;;
	esac
}
usable=
for m in $modes; do	# a mode that cannot record here (no BPF, not root) is left out
	rec "$m" true >/dev/null 2>"$tmp/err" || { echo "bench/record: $m left out: $(tail -1 "$tmp/err")"; continue; }
	usable="$usable $m"
	for i in 1 2 3; do
		rec "$m" true >/dev/null 2>&1
		read -r u s e <"$tmp/time"
		echo "$m $u $s" >>"$tmp/fixed"
	done
done
modes=$usable
[ -n "$modes" ] || exit 1
for i in $(seq "$reps"); do
	base=$($FC "$pages" "$rounds" | sed -n 's/.*cpu_ns=//p')
	for m in $modes; do
		rec "$m" $FC "$pages" "$rounds" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		read -r u s e <"$tmp/time"
		bytes=$(stat -c %s "$tmp"/out.* | head -1)
		t=$(sed -n 's/.*cpu_ns=//p' "$tmp/out")
		lost=-1
		case $m in mt-*|old-*) lost=$($MT dump --meta "$tmp/out.mtrace" | sed -n 's/^lost=//p') ;; esac
		echo "$m $i $base $t $u $s $(samples_of "$m") $bytes $e $lost" >>"$tmp/runs"
	done
done
/usr/bin/python3 - "$tmp/runs" "$tmp/fixed" "$modes" "$((pages * rounds))" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
modes = sys.argv[3].split()
fixed = {m: st.median((float(x[1]) + float(x[2])) * 1e9 for x in map(str.split, open(sys.argv[2]))
                      if x[0] == m) for m in modes}
base = [float(x[2]) for x in rows if x[0] == modes[0]]
print("%d faults, %d runs per mode, medians (range); untraced target CPU %.3f s" %
      (int(sys.argv[4]), len(base), st.median(base) / 1e9))
print("%-8s %22s %22s %13s %11s %7s %9s" % ("mode", "target +ns/sample", "collector ns/sample",
                                             "samples", "B/sample", "wall s", "max lost"))
res = {}
for m in modes:
    r = [x for x in rows if x[0] == m]
    n = [int(x[6]) for x in r]
    tgt = [(float(x[3]) - float(x[2])) / int(x[6]) for x in r]
    col = [((float(x[4]) + float(x[5])) * 1e9 - float(x[3]) - fixed[m]) / int(x[6]) for x in r]
    bps = [int(x[7]) / int(x[6]) for x in r]
    res[m] = (st.median(tgt), st.median(col))
    lost = max(int(x[9]) for x in r)
    print("%-8s %10.0f (%4.0f-%4.0f) %10.0f (%4.0f-%4.0f) %13d %11.2f %7.2f %9s" % (
        m, res[m][0], min(tgt), max(tgt), res[m][1], min(col), max(col), st.median(n),
        st.median(bps), st.median(float(x[8]) for x in r), lost if lost >= 0 else "-"))
print("fixed collector cost (empty target), ms: " +
      ", ".join("%s %.0f" % (m, fixed[m] / 1e6) for m in modes))
if "perf" in res:
    for m in modes:
        if m != "perf":
            print("%s / perf: target %.2f, collector %.2f" % (m, res[m][0] / res["perf"][0],
                                                              res[m][1] / res["perf"][1]))
PY
