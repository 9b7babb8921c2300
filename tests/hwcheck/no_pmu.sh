#!/bin/bash
# memtrace-hwcheck's no-PMU path on this machine (a machine with a PMU is
# made to look like one without through MEMTRACE_HWCHECK_PMUS): one line
# saying so, the page-fault checks through the perf backend (and the bpf
# backend where memtracectl status says it loads), exact page counts, exit 0
# with "hardware checks skipped"; then a collector that samples every 2nd
# fault (a wrapper adding -c 2) must fail the pages check and exit 1.
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/nopmu"
export MEMTRACE_HWCHECK_PMUS="$dir/nopmu"
fail() { echo "$*"; exit 1; }
pages='- PASS pages: pages faulted: A 2048 (expected 2048), B 8192 (expected 8192), C 0 (expected 0), D 512 (expected 512)'

tools/memtrace-hwcheck --rounds 2 -o "$dir/out" --report "$dir/report.md" > "$dir/stdout" 2> "$dir/stderr"
rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$dir/stderr")"
[ "$(cat "$dir/stdout")" = "memtrace-hwcheck: hardware checks skipped" ] || fail "stdout: $(cat "$dir/stdout")"
head -1 "$dir/stderr" | grep -qE '^memtrace-hwcheck: no hardware PMU.*: hardware checks skipped, running the software-event checks$' ||
	fail "stderr: $(cat "$dir/stderr")"
grep -qxF -- "**No PEBS or IBS on this machine: hardware checks skipped** (no hardware PMU (no cpu or ibs_op in $dir/nopmu)). Only the page-fault (software event) checks ran; PEBS, IBS and the module's hardware path are untested here." "$dir/report.md" ||
	fail "report headline missing"
! grep -q '^- FAIL' "$dir/report.md" || fail "$(grep '^- FAIL' "$dir/report.md")"
backends=perf
build/memtracectl status | grep -q '^  bpf: page-faults: available' && backends="perf bpf"
n=0
for b in $backends; do
	awk -v h="### $b backend, page-faults, period 1" '/^##/ { on = $0 == h } on' "$dir/report.md" > "$dir/$b.txt"
	grep -qxF -- "$pages" "$dir/$b.txt" || fail "$b: $(cat "$dir/$b.txt")"
	grep -qx -- '- PASS untouched: 0 samples in C (never accessed)' "$dir/$b.txt" || fail "$b: C"
	grep -qE -- '^- PASS repeats: [0-9]+ faults on 10752 pages' "$dir/$b.txt" || fail "$b: repeats"
	n=$((n + 1))
done
grep -qx "Checks: $((n * 6)) passed, 0 failed, $((n * 2)) skipped (tolerance of shares ±0.05; docs/hwcheck.md says what each check means)." "$dir/report.md" ||
	fail "$(grep '^Checks:' "$dir/report.md")"
grep -q '^| PEBS sink hook in the kernel | ' "$dir/report.md" || fail "machine table"

# every 2nd fault: half the pages, the pages check fails, exit 1
cat > "$dir/memtracectl" <<EOW
#!/bin/bash
args=()
for a in "\$@"; do [ "\$a" = 1 ] && [ "\${args[-1]:-}" = -c ] && a=2; args+=("\$a"); done
exec $PWD/build/memtracectl "\${args[@]}"
EOW
chmod +x "$dir/memtracectl"
MEMTRACECTL_BIN="$dir/memtracectl" tools/memtrace-hwcheck --rounds 2 --backends perf -o "$dir/out2" \
	--report "$dir/report2.md" > "$dir/stdout" 2> "$dir/stderr"
rc=$?
[ "$rc" = 1 ] || fail "halved faults: exit $rc, not 1"
grep -qE '^- FAIL pages: pages faulted: A 10[0-9]{2} \(expected 2048\)' "$dir/report2.md" ||
	fail "halved faults: $(grep pages "$dir/report2.md")"
tail -1 "$dir/stderr" | grep -q ': 5 checks passed, 1 failed, 2 skipped: ' || fail "summary: $(tail -1 "$dir/stderr")"
