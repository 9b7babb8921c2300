#!/bin/bash
# 55-hint-guest: the hint-faults source in qemu guests of Debian's 6.1 and
# 6.12 kernels (tests/kernel/kernels.conf) with two NUMA nodes (tests/kernel/run-guest.sh GUEST_NUMA_NODES=2,
# guest-hint.sh), with the perf backend and with the module backend: a
# single-threaded target's set A is seen (>= 90 % within three scan
# periods), set C never, numa_balancing put back; --scan-period through
# debugfs; nothing dropped, lost or throttled.
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
build=${BUILD:-build}
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for t in qemu-system-x86_64 cpio gzip; do
	command -v $t >/dev/null || { bad "hint-guest: missing $t (tools/deps/kernel.txt)"; echo "$pass passed, $fail failed"; exit 1; }
done
make -s --no-print-directory static kernel-tests >/dev/null 2>&1 || bad "hint-guest: make static kernel-tests"
kernels=$(timeout 600 tests/kernel/fetch-kernels.sh 2>/dev/null) || { bad "hint-guest: kernel fetch"; echo "$pass passed, $fail failed"; exit 1; }
while read -r abi root; do
	out=$build/kernel-guest-hint/$abi
	mkdir -p "$out"
	tag="[${abi%%+*}]"
	GUEST_NUMA_NODES=2 GUEST_TIMEOUT=${GUEST_TIMEOUT:-600} tests/kernel/run-guest.sh "$abi" "$root" "$out" hint \
		>"$out.lines" 2>&1
	while IFS= read -r l; do
		echo "$l"
		case "$l" in "ok "*) pass=$((pass + 1)) ;; "FAIL "*) fail=$((fail + 1)) ;; esac
	done <"$out.lines"
	d=$out/hint
	rm -rf "$d" && mkdir -p "$d"
	awk -v d="$d" '/^BEGIN-FILE /{f=d"/"$2".b64"; next} /^END-FILE/{f=""; next}
		/^\[ *[0-9]+\.[0-9]+\]/{next} f{print > f}' "$out/console.log.txt" 2>/dev/null
	for b in "$d"/*.b64; do [ -e "$b" ] && base64 -d "$b" >"${b%.b64}"; done
	# hint: the perf backend; hint-module: memtrace.ko's page-fault tracepoint counter
	for n in hint hint-module; do
		b=perf
		[ $n = hint-module ] && b=module
		res=
		if [ -s "$d/$n.csv.gz" ] && gunzip -f "$d/$n.csv.gz" &&
		   res=$(/usr/bin/python3 tests/integration/check_hintsets.py "$d/$n.csv" "$d/$n.meta" "$(cat "$d/$n.line")" 2>&1); then
			ok "$tag $n-sets ($b backend, two nodes, one thread): $res"
		else
			bad "$tag $n-sets ($b backend): ${res:-no trace shipped}"
		fi
		grep -qx 'scan_period_ms=500' "$d/$n.meta" 2>/dev/null && ok "$tag $n-scan-period: 500 ms set through debugfs" ||
			bad "$tag $n-scan-period: $(grep scan_period "$d/$n.meta" 2>/dev/null || echo none)"
		# the module's rings and perf: nothing dropped or lost
		if grep -qx "backend=$b" "$d/$n.meta" && grep -qx 'dropped=0' "$d/$n.meta" &&
		   grep -qx 'lost=0' "$d/$n.meta" && grep -qx 'throttled=0' "$d/$n.meta"; then
			ok "$tag $n-complete: backend=$b, dropped=0 lost=0 throttled=0"
		else
			bad "$tag $n-complete: $(grep -E '^(backend|dropped|lost|throttled)=' "$d/$n.meta" 2>/dev/null | tr '\n' ' ')"
		fi
	done
done <<<"$kernels"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
