#!/bin/bash
# 56-allocs-guest: record --allocs and --mark in a qemu guest of Debian's
# 6.12 kernel (tests/kernel/run-guest.sh, guest-allocs.sh): allocsites'
# page faults charged to the right allocation sites with the accesses from
# the perf backend and from memtrace.ko (the allocations from BPF uprobes in
# both), pageramp's touch_pages spans (uprobe/uretprobe) and usdtspans'
# USDT spans as called.
# The guest ships the reports; the host checks them exactly like the host
# tests (tests/integration/check_alloc_sites.py, check_mark_ramp.py).
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
build=${BUILD:-build}
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for t in qemu-system-x86_64 cpio gzip; do
	command -v $t >/dev/null || { bad "allocs-guest: missing $t (tools/deps/kernel.txt)"; echo "$pass passed, $fail failed"; exit 1; }
done
make -s --no-print-directory static kernel-tests >/dev/null 2>&1 || bad "allocs-guest: make static kernel-tests"
kernels=$(timeout 600 tests/kernel/fetch-kernels.sh 2>/dev/null) || { bad "allocs-guest: kernel fetch"; echo "$pass passed, $fail failed"; exit 1; }
while read -r abi root; do
	case $abi in 6.12*) ;; *) continue ;; esac
	out=$build/kernel-guest-allocs/$abi
	mkdir -p "$out"
	tag="[${abi%%+*}]"
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-600} tests/kernel/run-guest.sh "$abi" "$root" "$out" allocs >"$out.lines" 2>&1
	while IFS= read -r l; do
		echo "$l"
		case "$l" in "ok "*) pass=$((pass + 1)) ;; "FAIL "*) fail=$((fail + 1)) ;; esac
	done <"$out.lines"
	d=$out/files
	rm -rf "$d" && mkdir -p "$d"
	awk -v d="$d" '/^BEGIN-FILE /{f=d"/"$2".b64"; next} /^END-FILE/{f=""; next}
		/^\[ *[0-9]+\.[0-9]+\]/{next} f{print > f}' "$out/console.log.txt" 2>/dev/null
	for b in "$d"/*.b64; do [ -e "$b" ] && base64 -d "$b" >"${b%.b64}"; done
	for b in perf module; do
		if res=$(/usr/bin/python3 tests/integration/check_alloc_sites.py "$d/allocs-$b.json" \
			"$d/allocs-$b.out" "$d/allocs-$b.txt" 2>&1); then
			ok "$tag allocs-$b-sites: $res"
		else
			bad "$tag allocs-$b-sites: ${res:-no report shipped}"
		fi
	done
	if res=$(/usr/bin/python3 tests/integration/check_mark_ramp.py "$d/mark-ramp.json" 2>&1); then
		ok "$tag mark-spans: $res"
	else
		bad "$tag mark-spans: ${res:-no report shipped}"
	fi
	if res=$(/usr/bin/python3 tests/integration/check_mark_usdt.py "$d/mark-usdt.json" 3 2>&1); then
		ok "$tag mark-usdt-spans: $res"
	else
		bad "$tag mark-usdt-spans: ${res:-no report shipped}"
	fi
done <<<"$kernels"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
