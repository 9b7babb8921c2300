#!/bin/bash
# Bounded collector memory (issue 11): recording 1 M page faults on pages
# never touched before costs the collector no more memory than 1 M faults
# on the same 1024 pages over and over (peak RSS within BOUND_KB); the
# collector that kept every page ever seen needed ~16 MB more (docs/design.md).
# The WINDOWS rows written with the expiring live WSS equal report's series.
. "$(dirname "$0")/lib.sh"
MT=${MT_UNDER_TEST:-$MT}	# another collector to compare with
PAGES=${PAGES:-1048576} BOUND_KB=${BOUND_KB:-6144}
peak_rss() {	# peak_rss OUT.mtrace WORKLOAD-ARGS...: the collector's peak RSS in KiB
	local out=$1
	shift
	$PY - "$MT" "$out" "$WL/freshpages" "$@" <<'PY'
import resource, subprocess, sys
mt, out, wl = sys.argv[1:4]
p = subprocess.run([mt, "record", "-e", "page-faults", "-c", "1", "-o", out, "--", wl] + sys.argv[4:],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if p.returncode:
    sys.exit("record failed: " + p.stderr.strip())
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
same=$(peak_rss "$TMP/same.mtrace" -n $PAGES -r 4) || fail "$same"
fresh=$(peak_rss "$TMP/fresh.mtrace" -n $PAGES) || fail "$fresh"
n=$("$MT" report "$TMP/fresh.mtrace" --json | $PY -c 'import json,sys; r=json.load(sys.stdin); print(r["samples"], r["wss_data"]["total"])')
set -- $n
# nearly every fault is on a new page (retried faults count twice, a busy
# machine may lose samples, the program's own pages come on top)
[ "$2" -ge $((PAGES * 9 / 10)) ] && [ "$2" -lt $((PAGES + 1000)) ] && [ "$1" -le $(($2 + 1000)) ] ||
	fail "fresh: $1 samples on $2 pages, want about $PAGES of each"
echo "peak RSS: $PAGES faults on the same 1024 pages ${same} KiB, on fresh pages ${fresh} KiB" >&2
[ $((fresh - same)) -le $BOUND_KB ] ||
	fail "fresh pages: peak RSS ${fresh} KiB, ${same} KiB re-touching pages: more than $BOUND_KB KiB apart"
$PY "$TOP/tests/integration/check_windows.py" "$TOP" "$TMP/fresh.mtrace" >/dev/null || fail "WINDOWS rows differ from report"
