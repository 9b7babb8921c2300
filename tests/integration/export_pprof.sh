#!/bin/bash
# export --format pprof read by `go tool pprof`: allocsites recorded as a
# command at every page fault (-c 1).  -top of the export (--by code) must
# list every function with exactly the faults its instructions made, counted
# here from `memtracectl dump`'s ips: binutils' addr2line names the innermost
# inlined function from DWARF; an ip without DWARF (static glibc) is named by
# nm's function symbol that holds it, any alias at that address.  The bytes
# sample type is faults x the bucket (4096), the region labels sum to the
# total, and --by site / --by span say why a trace without them cannot.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "no go command (golang-go: tools/deps/collector.txt, make deps)"
# go tool pprof keeps state under HOME and GOCACHE: both in the test's temp dir
export HOME="$TMP" GOCACHE="$TMP/gocache" PPROF_TMPDIR="$TMP/pprof" GOTOOLCHAIN=local GOFLAGS=
pprof() { go tool pprof -symbolize=none -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@"; }
"$MT" record -e page-faults -c 1 -o "$TMP/t.mtrace" -- "$WL/allocsites" >"$TMP/wl.out" 2>"$TMP/rec.err" ||
	fail "record failed: $(cat "$TMP/rec.err")"
"$MT" export --format pprof -o "$TMP/t.pb.gz" "$TMP/t.mtrace" || fail "export failed"
[ ! -e "$TMP/t.pb.gz.tmp" ] || fail "export left its temp file"
"$MT" dump "$TMP/t.mtrace" >"$TMP/d.csv" || fail "dump failed"
pprof -top -sample_index=faults "$TMP/t.pb.gz" >"$TMP/top.txt" 2>"$TMP/pprof.err" ||
	fail "go tool pprof -top failed: $(cat "$TMP/pprof.err")"
pprof -top -sample_index=bytes -unit=byte "$TMP/t.pb.gz" >"$TMP/bytes.txt" 2>>"$TMP/pprof.err" ||
	fail "go tool pprof -top -sample_index=bytes failed: $(cat "$TMP/pprof.err")"
pprof -tags "$TMP/t.pb.gz" >"$TMP/tags.txt" 2>>"$TMP/pprof.err" || fail "go tool pprof -tags failed"
$PY - "$TMP/d.csv" "$WL/allocsites" "$TMP/top.txt" "$TMP/bytes.txt" "$TMP/tags.txt" <<'PY' || exit 1
import collections, csv, re, subprocess, sys
dump, binary, top, bytes_top, tags = sys.argv[1:]
ips = collections.Counter(int(r["ip"], 16) for r in csv.DictReader(open(dump)))
total = sum(ips.values())
assert total > 500, f"only {total} faults recorded"
# addr2line -a -f -i: per address "0x..", then (function, file:line) pairs, innermost first
out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", binary] + [hex(a) for a in ips],
                     capture_output=True, text=True, check=True).stdout.splitlines()
dwarf, i = {}, 0
while i < len(out):
    addr = int(out[i], 16)
    fn, where = out[i + 1], out[i + 2]
    i += 3
    while i < len(out) and not out[i].startswith("0x"):
        i += 2
    if re.match(r"[^?].*:\d+", where):	# a DWARF line ("x.o:?" is a symbol's file)
        dwarf[addr] = fn
# nm: function symbols with sizes; aliases share an address
syms = collections.defaultdict(set)
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "TtWi":
        syms[(int(f[0], 16), int(f[1], 16))].add(f[3])
def names(ip):
    if ip in dwarf:
        return frozenset([dwarf[ip]])
    hold = [k for k in syms if k[0] <= ip < k[0] + k[1]]
    assert hold, f"no function symbol holds ip {ip:#x}"
    return frozenset(syms[min(hold, key=lambda k: k[1])])
want = collections.Counter()
for ip, n in ips.items():
    want[names(ip)] += n
def parse(path):
    rows, on = {}, False
    for line in open(path):
        if line.split()[:2] == ["flat", "flat%"]:
            on = True
            continue
        m = on and re.match(r"\s*(\d+)B?\s+\S+%\s+\S+%\s+\d+B?\s+\S+%\s+(.*?)( \(inline\))?$", line)
        if m and int(m.group(1)):
            rows[m.group(2)] = rows.get(m.group(2), 0) + int(m.group(1))
    return rows
got = parse(top)
hot = {}
for name, n in got.items():
    key = [k for k in want if name in k]
    assert len(key) == 1, f"pprof lists {name} ({n}), which no independent count names"
    hot[key[0]] = n
for k, n in want.items():
    assert hot.get(k) == n, f"{sorted(k)}: pprof {hot.get(k)}, counted {n}"
# the workload's own functions are the hot ones
for fn in ("put", "ht_insert"):
    assert got.get(fn, 0) >= 100, (fn, got.get(fn))
nbytes = parse(bytes_top)
assert nbytes == {k: 4096 * v for k, v in got.items()}, "bytes is not faults x 4096"
m = re.search(r"region: Total (\d+)", open(tags).read())
assert m and int(m.group(1)) == total, "the region labels do not cover every sample"
print(f"{len(got)} functions, {total} faults: {got['put']} in put, {got['ht_insert']} in ht_insert")
PY
expect_error "--by site: the trace has no allocation records" "$MT" export -o "$TMP/s.pb.gz" --by site "$TMP/t.mtrace"
expect_error "--by span: the trace has no spans" "$MT" export -o "$TMP/s.pb.gz" --by span "$TMP/t.mtrace"
[ ! -e "$TMP/s.pb.gz" ] && [ ! -e "$TMP/s.pb.gz.tmp" ] || fail "a failed export left a file behind"
expect_error "unknown --format 'json'" "$MT" export --format json -o "$TMP/s.pb.gz" "$TMP/t.mtrace"
expect_error "export needs -o FILE" "$MT" export "$TMP/t.mtrace"
expect_error "invalid --by 'heap'" "$MT" export --by heap -o "$TMP/s.pb.gz" "$TMP/t.mtrace"
exit 0
