#!/bin/bash
# perf_import.sh - `memtracectl import --format perf`, sample by sample
# against `perf script` on perf.data recorded here (page faults with -d:
# two events in one file, pipe mode straight into import, a forking
# workload, zstd-compressed with -z), and on hand-built files (perfdata_gen.py: weight, weight_struct,
# data_src, samples out of order across CPUs, file and pipe mode) whose
# samples are known exactly.  Also: names resolve through the MMAP2 maps,
# bad input is one line and a non-zero exit.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
M=$top/build/memtracectl
here=$top/tests/import
tmp=$(mktemp -d /tmp/memtrace-perfimport.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
die() { echo "FAIL: $*" >&2; exit 1; }
command -v perf >/dev/null || die "perf is not installed (linux-perf, tools/deps/install.txt)"
cmp_script() {	# DATA TRACE [--full]
	local fields=pid,tid,cpu,time,addr,ip
	[ "${3:-}" = --full ] && fields=$fields,weight,data_src
	perf script -i "$1" -F $fields --ns >"$1.script" 2>/dev/null || die "perf script -i $1"
	"$M" dump "$2" >"$2.csv" || die "dump $2"
	python3 "$here/compare_perf_script.py" "$2.csv" "$1.script" ${3:-} || die "$2 differs from perf script"
}
cp "$top/build/workloads/pageramp" "$top/build/workloads/mtfork" .

# 1. file mode, two events (page-faults and minor-faults), every fault
perf record -q -d -c 1 --sample-cpu -e page-faults -e minor-faults -o pf.data -- \
	./pageramp -n 128 -c 3 >/dev/null 2>&1 || die "perf record"
"$M" import --format perf -o pf.mtrace pf.data 2>err || die "import pf.data: $(cat err)"
echo "file mode, 2 events: $(cmp_script pf.data pf.mtrace)"
"$M" dump --meta pf.mtrace >meta
grep -qx 'event=page-faults,minor-faults' meta || die "event names: $(grep ^event= meta)"
grep -qx 'sample_class=first-touch' meta || die "page faults are not first-touch"
grep -qx 'target_comm=pageramp' meta || die "target_comm: $(grep ^target_comm meta)"
grep -q " $tmp/pageramp\$" meta || die "no MAPS line for $tmp/pageramp"
"$M" report pf.mtrace --top 40 >report || die "report"
grep -q 'pageramp+0x' report && grep -q 'touch_pages' report ||
	die "names do not resolve: $(grep -A3 'Most-faulted data' report | tr '\n' ' ')"

# 2. pipe mode, straight into import from stdin
perf record -q -d -c 1 --sample-cpu -e page-faults -o - -- ./pageramp -n 64 -c 2 2>/dev/null |
	tee pipe.data | "$M" import --format perf -o pipe.mtrace - 2>err || die "import -: $(cat err)"
echo "pipe mode: $(cmp_script pipe.data pipe.mtrace)"

# 2b. perf record -z: zstd-compressed records, file and pipe mode
perf record -q -z -d -c 1 --sample-cpu -e page-faults -e minor-faults -o z.data -- \
	./pageramp -n 128 -c 3 >/dev/null 2>&1 || die "perf record -z"
"$M" import --format perf -o z.mtrace z.data 2>err || die "import z.data: $(cat err)"
echo "perf record -z: $(cmp_script z.data z.mtrace)"
perf record -q -z -d -c 1 --sample-cpu -e page-faults -o - -- ./pageramp -n 64 -c 2 2>/dev/null |
	tee zpipe.data | "$M" import --format perf -o zpipe.mtrace - 2>err || die "import -z -: $(cat err)"
echo "perf record -z, pipe mode: $(cmp_script zpipe.data zpipe.mtrace)"

# 3. a forking workload with threads: the child's maps start as its parent's
perf record -q -d -c 1 --sample-cpu -e page-faults -o fork.data -- ./mtfork -b 2 -k 16 -f \
	>fork.out 2>/dev/null || die "perf record mtfork"
"$M" import --format perf -o fork.mtrace fork.data 2>err || die "import fork.data: $(cat err)"
echo "fork and threads: $(cmp_script fork.data fork.mtrace)"
child=$(sed -n 's/.*kind=child pid=\([0-9]*\).*/\1/p' fork.out)
[ -n "$child" ] || die "mtfork printed no child"
"$M" dump --meta fork.mtrace | awk -v p="pid=$child" '/^# maps/ {on = ($4 == p)} on' >child.maps
grep -q " $tmp/mtfork\$" child.maps || die "child $child's maps lack the inherited mtfork mapping"

# 4. hand-built: weight, weight_struct (var1_dw), data_src, out-of-order CPUs
python3 "$here/perfdata_gen.py" gen.data >gen.expect
"$M" import --format perf -o gen.mtrace gen.data 2>err || die "import gen.data: $(cat err)"
"$M" dump gen.mtrace | tail -n +2 | diff -u gen.expect - >&2 || die "gen.data: samples differ"
echo "hand-built, exact: $(cmp_script gen.data gen.mtrace --full)"
"$M" dump --meta gen.mtrace >gmeta
grep -qx 'fields=ip,weight,data_src' gmeta || die "fields: $(grep ^fields= gmeta)"
grep -qx 'lost=5' gmeta || die "LOST record: $(grep ^lost= gmeta)"
grep -q '^00400000-00410000 r-xp 00000000 08:01 777 .*/usr/bin/fakedb$' gmeta || die "MMAP2 line: $(grep fakedb gmeta)"
python3 "$here/perfdata_gen.py" genp.data --pipe >/dev/null
"$M" import --format perf -o genp.mtrace - <genp.data 2>err || die "import pipe gen: $(cat err)"
"$M" dump genp.mtrace | tail -n +2 | diff -u gen.expect - >&2 || die "genp.data: samples differ"
echo "hand-built pipe mode: exact"
python3 "$here/perfdata_gen.py" genu.data --unknown-id >/dev/null
"$M" import --format perf -o genu.mtrace genu.data 2>err || die "import genu.data: $(cat err)"
"$M" dump genu.mtrace | tail -n +2 | diff -u gen.expect - >&2 || die "genu.data: samples differ"
grep -q '1 samples of an event id the file does not list left out' err || die "unknown id: $(cat err)"
echo "unknown event id: left out, said"
python3 "$here/perfdata_gen.py" genf.data --fork >/dev/null
"$M" import --format perf -o genf.mtrace genf.data 2>err || die "import genf.data: $(cat err)"
"$M" dump genf.mtrace | tail -n +2 | diff -u gen.expect - >&2 || die "genf.data: samples differ"
"$M" dump --meta genf.mtrace | awk '/^# maps/ {on = ($4 == "pid=4300")} on' >genf.maps
grep -q ' /usr/bin/fakedb$' genf.maps && grep -q '^7f0000000000-7f0000200000 ' genf.maps ||
	die "a FORK written before its parent's earlier MMAP2 records: the child lacks them"
echo "side-band records in time order: the child inherits its parent's maps"

# 5. bad input: one line, exit 1
printf 'hello' >bad.data
"$M" import --format perf -o bad.mtrace bad.data 2>err && die "a non-perf file was imported"
[ "$(wc -l <err)" = 1 ] && grep -q 'not a perf.data file' err || die "bad input: $(cat err)"
head -c 300 genp.data >cut.data
"$M" import --format perf -o cut.mtrace - <cut.data 2>err && die "a cut stream exited 0"
grep -q 'cut in the middle of a record' err || die "cut stream: $(cat err)"
head -c 200 gen.data >cut2.data
"$M" import --format perf -o cut2.mtrace cut2.data 2>err && die "a cut file exited 0"
[ "$(wc -l <err)" = 1 ] || die "cut file: $(cat err)"
perf record -q -e page-faults -c 1 -o noaddr.data -- ./pageramp -n 8 -c 1 >/dev/null 2>&1
"$M" import --format perf -o noaddr.mtrace noaddr.data 2>err && die "samples without addresses exited 0"
grep -q 'no samples with a data address' err || die "no-addr: $(cat err)"
echo "bad input: one-line errors"
