#!/bin/bash
# export --format pprof --by site: allocsites recorded with -p at page faults,
# period 1, every block recorded (--alloc-rate 1, as alloc_sites.sh).  `go tool
# pprof -top` of the export lists each allocation site's function with the
# page faults the workload itself counted in that site's block (a retried
# fault may count twice: <= 2 more, as check_alloc_sites.py allows), and the
# site label (-tagfocus) picks the same samples in the --by code export.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "no go command (golang-go: tools/deps/collector.txt, make deps)"
export HOME="$TMP" GOCACHE="$TMP/gocache" PPROF_TMPDIR="$TMP/pprof" GOTOOLCHAIN=local GOFLAGS=
pprof() { go tool pprof -symbolize=none -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@"; }
"$WL/allocsites" -w >"$TMP/wl.out" &
wl=$!
wait_file "$TMP/wl.out" 5 || fail "allocsites did not start"
"$MT" record -p $wl -e page-faults -c 1 --allocs --alloc-rate 1 -o "$TMP/t.mtrace" 2>"$TMP/rec.err" &
rec=$!
wait_file "$TMP/t.mtrace" 100 || fail "record did not start: $(cat "$TMP/rec.err")"
kill -USR1 $wl
timeout 60 tail --pid=$rec -f /dev/null || fail "record did not end when the target exited"
wait $rec || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" export -o "$TMP/s.pb.gz" --by site "$TMP/t.mtrace" || fail "export --by site failed"
"$MT" export -o "$TMP/c.pb.gz" "$TMP/t.mtrace" || fail "export failed"
pprof -top "$TMP/s.pb.gz" >"$TMP/sites.txt" 2>"$TMP/pprof.err" || fail "pprof -top: $(cat "$TMP/pprof.err")"
for fn in make_matrix ht_grow; do
	pprof -top -tagfocus="site=^$fn " "$TMP/c.pb.gz" >"$TMP/focus_$fn.txt" 2>>"$TMP/pprof.err" ||
		fail "pprof -tagfocus site=$fn: $(cat "$TMP/pprof.err")"
done
$PY - "$TMP/wl.out" "$TMP/sites.txt" "$TMP"/focus_make_matrix.txt "$TMP"/focus_ht_grow.txt <<'PY' || exit 1
import re, sys
want = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "expect":
        want[f[1]] = int(f[2])
def top(path):
    rows, on = {}, False
    for line in open(path):
        if line.split()[:2] == ["flat", "flat%"]:
            on = True
            continue
        m = on and re.match(r"\s*(\d+)\s+\S+%\s+\S+%\s+\d+\s+\S+%\s+(.*)$", line)
        if m:
            rows[m.group(2)] = int(m.group(1))
    return rows
got = top(sys.argv[2])
for fn, n in want.items():
    assert n <= got.get(fn, -1) <= n + 2, f"{fn}: pprof {got.get(fn)}, the workload counted {n}"
for path, fn in ((sys.argv[3], "make_matrix"), (sys.argv[4], "ht_grow")):
    m = re.search(r"Showing nodes accounting for (\d+), [\d.]+% of \d+ total", open(path).read())
    assert m and int(m.group(1)) == got[fn], f"-tagfocus site={fn}: {m and m.group(1)}, want {got[fn]}"
print(", ".join(f"{fn} {got[fn]}" for fn in want))
PY
