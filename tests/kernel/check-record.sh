#!/bin/bash
# check-record.sh CONSOLE.txt DIR TAG [BACKEND] - extracts the traces
# guest-record.sh (BACKEND, default module) shipped on the console and
# checks them on the host with the same exact
# checks as the perf backend's traces (tests/integration/record_*.sh).
#   SERIES_CYCLES=0: the WSS series' rows and sums are checked, not their
#   grouping into pageramp's 10 cycles (the debug guest is too slow under
#   TCG for the idle gaps between cycles to show in 20 ms windows)
set -u
log=$1 dir=$2 tag=$3 backend=${4:-module}
P=; [ "$backend" = module ] || P=$backend-
top=$(cd "$(dirname "$0")/../.." && pwd)
MT=${MT:-$top/build/memtracectl}
PY=${PYTHON:-/usr/bin/python3}
rm -rf "$dir"; mkdir -p "$dir"
awk -v d="$dir" '/^BEGIN-FILE /{f=d"/"$2".b64"; next} /^END-FILE/{f=""; next}
	/^\[ *[0-9]+\.[0-9]+\]/{next} f{print > f}' "$log"
for b in "$dir"/*.b64; do [ -e "$b" ] && base64 -d "$b" >"${b%.b64}"; done
rc=0 err=
ok() { echo "ok   $tag $*"; }
bad() { echo "FAIL $tag $*"; rc=1; }

if [ ! -s "$dir/${P}ramp.mtrace" ]; then
	bad "record-pageramp: no trace came back from the guest"
elif [ ! -x "$MT" ]; then
	bad "record-pageramp: no host memtracectl ($MT)"
else
	t=$dir/${P}ramp.mtrace
	if "$MT" dump "$t" >"$dir/${P}ramp.csv" 2>"$dir/err" &&
	   err=$($PY "$top/tests/integration/check_pageramp.py" "$dir/${P}ramp.csv" "$dir/${P}ramp.out" 1024 10 2>&1); then
		ok "record-pageramp: 5120 faults of pageramp: exact pages, order, addresses, tid"
	else
		bad "record-pageramp: $err $(head -2 "$dir/err")"
	fi
	start=$("$MT" dump --meta "$t" | sed -n 's/^start_time=//p')
	series_ok=1
	for spec in "20ms 20ms 4K 20000000 20000000 512" "40ms 20ms 4K 40000000 20000000 512" \
		    "20ms 20ms 8K 20000000 20000000 512"; do
		set -- $spec
		if ! "$MT" report "$t" --window $1 --interval $2 --bucket $3 --series "$dir/s.csv" >/dev/null 2>&1 ||
		   ! err=$($PY "$top/tests/integration/check_series.py" "$dir/s.csv" "$dir/${P}ramp.csv" "$start" $4 $5 $6 ${SERIES_CYCLES:-10} 2>&1); then
			bad "record-wss: series window $1 interval $2 bucket $3: $err"
			series_ok=0
		fi
	done
	if [ $series_ok = 1 ] && [ "${SERIES_CYCLES:-10}" = 0 ]; then
		ok "record-wss: WSS series (tau=T, tau=2T, 8K buckets): row times and sums exact (grouping into cycles not checked)"
	elif [ $series_ok = 1 ]; then
		ok "record-wss: WSS series (tau=T, tau=2T, 8K buckets) equal the known pageramp pattern"
	fi
	if "$MT" report "$t" --json >"$dir/r.json" 2>/dev/null && err=$($PY - "$dir/r.json" "$backend" <<'PY' 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["samples"] == 5120, r["samples"]
assert r["wss_data"]["total"] == 512, r["wss_data"]
assert r["complete"] and r["end_reason"] == "target-exited", r["end_reason"]
assert r["source"] == "page-faults" and r["backend"] == sys.argv[2], (r["source"], r["backend"])
assert [h["count"] for h in r["hot_data"]] == [10] * 10
PY
	); then
		ok "record-report: backend=$backend, 5120 samples, WSS 512 pages, hot pages x10, end target-exited"
	else
		bad "record-report: $err"
	fi
fi

if [ ! -s "$dir/${P}fork.mtrace" ]; then
	bad "record-mtfork: no trace came back from the guest"
elif "$MT" dump "$dir/${P}fork.mtrace" >"$dir/${P}fork.csv" 2>/dev/null && err=$($PY - "$dir/${P}fork.csv" "$dir/${P}fork.out" <<'PY' 2>&1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
workers = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[2]) if l.startswith("worker=")]
assert len(workers) == 7, f"{len(workers)} workers reported"
assert sorted(w["kind"] for w in workers) == ["child"] + ["thread"] * 6
for w in workers:
    base, pages, pid = int(w["base"], 16), int(w["pages"]), int(w["pid"])
    got = [r for r in rows if int(r["pid"]) == pid and base <= int(r["addr"], 16) < base + pages * 4096]
    pg = sorted((int(r["addr"], 16) - base) // 4096 for r in got)
    # A fault retried because another thread changed the address space at
    # that moment is counted at each entry (the kernel's page-fault event,
    # the same with perf: tests/integration/record_threads.sh).
    assert sorted(set(pg)) == list(range(pages)), f"worker {w['worker']} ({w['kind']}): pages {pg}"
    assert len(pg) - pages <= 2, f"worker {w['worker']}: {len(pg) - pages} repeated faults: {pg}"
    tids = {int(r["tid"]) for r in got}
    want = {int(w["tid"])} if w["kind"] == "thread" else {pid}
    assert tids == want, f"worker {w['worker']}: tids {tids}, want {want}"
PY
); then
	ok "record-mtfork: 6 threads (3 before, 3 after start) + forked child: every page (at most 2 retried faults per worker), right tid"
else
	bad "record-mtfork: $err"
fi
if [ ! -s "$dir/${P}tree.mtrace" ]; then
	bad "record-tree: no trace came back from the guest"
elif "$MT" dump "$dir/${P}tree.mtrace" >"$dir/${P}tree.csv" 2>/dev/null &&
     reason=$("$MT" dump --meta "$dir/${P}tree.mtrace" | sed -n 's/^end_reason=//p') &&
     err=$($PY - "$dir/${P}tree.csv" "$dir/${P}tree.out" "$reason" <<'PY' 2>&1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
workers = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[2]) if l.startswith("worker=")]
kinds = sorted(w["kind"] for w in workers)
assert kinds == ["child", "grandchild", "late", "root", "thread"], f"workers {kinds}"
assert sys.argv[3] == "target-exited", f"end_reason {sys.argv[3]}"
for w in workers:
    base, pages, pid, tid = int(w["base"], 16), int(w["pages"]), int(w["pid"]), int(w["tid"])
    got = [r for r in rows if int(r["pid"]) == pid and base <= int(r["addr"], 16) < base + pages * 4096]
    pg = sorted((int(r["addr"], 16) - base) // 4096 for r in got)
    assert sorted(set(pg)) == list(range(pages)), f"{w['kind']} (pid {pid}): pages {pg}"
    assert len(pg) - pages <= 2, f"{w['kind']}: {len(pg) - pages} repeated faults"
    assert {int(r["tid"]) for r in got} == {tid}, f"{w['kind']}: tids {set(int(r['tid']) for r in got)}, want {tid}"
PY
); then
	ok "record-tree: -p ROOT: root, its thread, child, grandchild (touching after the root exited) and a late child: every page (at most 2 retried faults per worker), right pid/tid, end target-exited"
else
	bad "record-tree: $err"
fi
exit $rc
